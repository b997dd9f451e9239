"""Execute stage: run each per-framework notebook in its framework's own kernel.

A notebook runs again only when its cache key changes: the tab, its code after
splitting, that tab's d2l file, the environment's exact packages, the GPU
class. The cache keeps, with the key, each code cell's outputs by cell id; every
eval writes each executed notebook afresh from today's split with those outputs
merged in, so prose, headings and .md lines are always current and a prose edit
runs nothing. Results are written atomically; a failed or interrupted notebook
caches nothing and keeps its previous good result. Up to `jobs` kernels run at
once, longest first, and a section gets up to its ``#gpus(N)`` GPUs.
"""
from __future__ import annotations

import atexit
import copy
import datetime
import functools
import hashlib
import json
import os
import re
import signal
import sys
import threading
import time
from dataclasses import dataclass, field

import nbformat

from .devices import PROBE, read_probe
from ..bootstrap.records import atomic_write
from ..core.files import read_json, write_notebook_if_changed
from .kernels import Gpu, Runtime, gpu_class, jupyter_environment, kernel_manager_class
from ..core.layout import Layout
from ..core.model import METADATA_KEY, Section

CACHE_FORMAT = 3   # 2: provenance records the devices the code used; 3: outputs by cell id
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
TRACEBACK_LINE = re.compile(r"(?:Cell In\[\d+\]|<cell line: \d+>|input-\d+-\w+), line (\d+)")


@dataclass
class Task:
    section: Section
    tab: str
    notebook: nbformat.NotebookNode
    key: str = ""
    frozen_key: str = ""
    """The key of its outputs in the frozen store (see frozen.py), set when planning."""
    estimate: float = 0.0
    """Seconds of the last run, to start the longest notebooks first."""
    frozen_note: dict | None = None
    """What the executed notebook says of the frozen store: its result was used, or it
    is out of date (see frozen.py); None when there is no frozen notebook."""

    @property
    def label(self) -> str:
        return f"{self.section.name} [{self.tab}]"


@dataclass
class Execution:
    """What became of a task: run, taken from the cache or the frozen store, failed,
    interrupted or skipped."""
    task: Task
    status: str            # cached, frozen, ran, no code, failed, interrupted or skipped
    seconds: float = 0.0
    message: str = ""
    """Why it failed, at the .md line: what the console shows."""


def cache_key(task: Task, runtime: Runtime, library_text: str, gpus: str) -> str:
    code = [c.source for c in task.notebook.cells if c.cell_type == "code"]
    material = {"format": CACHE_FORMAT, "tab": task.tab, "code": code}
    if code:   # a prose-only notebook runs nothing: the environment cannot change it
        material.update(library=hashlib.sha256(library_text.encode()).hexdigest(),
                        python=runtime.python_version, packages=runtime.packages, gpus=gpus,
                        requires_gpus=task.section.gpus)
    return hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()


def read_record(layout: Layout, task: Task) -> dict:
    return read_json(layout.cache_record(task.tab, task.section))


def cell_results(notebook: nbformat.NotebookNode) -> dict[str, dict]:
    """What the cache keeps of each executed code cell, by cell id."""
    return {cell.id: {"execution_count": cell.execution_count, "outputs": cell.outputs,
                      "execution": cell.metadata.get("execution", {}),
                      "seconds": cell.metadata[METADATA_KEY].get("seconds", 0.0)}
            for cell in notebook.cells if cell.cell_type == "code"}


def merge_record(notebook: nbformat.NotebookNode, record: dict) -> nbformat.NotebookNode:
    """The split `notebook` with the outputs, timings and provenance of its cache `record`.

    As jupyter-cache's merge_match_into_notebook: prose, headings and .md lines
    come from today's split, outputs from the run whose key matches (same code,
    hence the same cell ids).
    """
    merged = copy.deepcopy(notebook)
    for cell in merged.cells:
        result = record["cells"].get(cell.id) if cell.cell_type == "code" else None
        if result:
            cell.execution_count = result["execution_count"]
            cell.outputs = nbformat.from_dict(result["outputs"])
            cell.metadata["execution"] = result["execution"]
            cell.metadata[METADATA_KEY]["seconds"] = result["seconds"]
    merged.metadata.update(nbformat.from_dict(record["kernel"]))
    merged.metadata[METADATA_KEY]["provenance"] = nbformat.from_dict(record["provenance"])
    return merged


def write_executed(layout: Layout, task: Task, record: dict) -> None:
    """Write the executed notebook of `task` from its record (only if its bytes change)."""
    notebook = merge_record(task.notebook, record)
    if task.frozen_note:
        notebook.metadata[METADATA_KEY]["frozen"] = nbformat.from_dict(task.frozen_note)
    write_notebook_if_changed(layout.executed(task.tab, task.section), notebook)


def read_executed(layout: Layout, task: Task) -> dict | None:
    """The executed notebook of `task` (its last good result), None if there is none."""
    path = layout.executed(task.tab, task.section)
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def strip_ansi(text: str) -> str:
    return ANSI.sub("", text)


def failure_message(task: Task, notebook, index: int | None, reason: str,
                    error: Exception | None = None) -> str:
    """``path:LINE [tab] cell N: reason``, with the last lines of the traceback, if any.

    `index` is the failing cell's (None when no cell started); with a cell's
    `error`, the reason and line come from the error output the cell holds."""
    cell = notebook.cells[index] if index is not None else None
    lines = (cell.metadata.get(METADATA_KEY, {}).get("lines") or [0]) if cell else [0]
    line, details = lines[0], []
    if error is not None:
        reason, line, details = _described_error(cell, lines, error)
    if index is None:
        return f"  {task.section.display_path} [{task.tab}]: {reason}"
    number = sum(1 for c in notebook.cells[:index + 1] if c.cell_type == "code")
    return (f"  {task.section.display_path}:{line} [{task.tab}] cell {number}: {reason}"
            + "".join(f"\n    | {d}" for d in details))


def _described_error(cell, lines: list[int], error: Exception) -> tuple[str, int, list[str]]:
    """The error's name and value, the .md line it happened at, the traceback's last lines."""
    outputs = [o for o in (cell or {}).get("outputs", []) if o.get("output_type") == "error"]
    if not outputs:
        return strip_ansi(str(error)).strip().split("\n")[-1], lines[0], []
    traceback = strip_ansi("\n".join(outputs[-1].traceback)).strip().split("\n")
    return (f"{outputs[-1].ename}: {outputs[-1].evalue}", _traceback_line(traceback, lines),
            [text for text in traceback if text.strip()][-6:])


def _traceback_line(traceback: list[str], lines: list[int]) -> int:
    """The .md line of the innermost traceback line that is in the cell itself."""
    line = lines[0]
    for text in traceback:
        found = TRACEBACK_LINE.search(text)
        if found and int(found.group(1)) <= len(lines):
            line = lines[int(found.group(1)) - 1]
    return line


@dataclass
class Executor:
    layout: Layout
    runtimes: dict[str, Runtime]
    gpus: list[Gpu]
    jobs: int
    timeout: int
    force: bool = False
    log: callable = functools.partial(print, flush=True)
    colour: bool = False
    executions: list[Execution] = field(default_factory=list)
    _running: dict = field(default_factory=dict)     # task label -> (start, kernel pid holder)
    _free_gpus: list[int] = field(default_factory=list)
    _condition: threading.Condition = field(default_factory=threading.Condition)
    _stopping: bool = False
    _kernel_manager: type | None = None

    # -- planning -------------------------------------------------------------
    def plan(self, tasks: list[Task], library_texts: dict[str, str]) -> list[Task]:
        """Key every task; write cached ones from the cache, and the prose-only ones; return
        the others, longest first."""
        gpus = gpu_class(self.gpus)
        to_run = []
        for task in tasks:
            task.key = cache_key(task, self.runtimes[task.tab], library_texts[task.tab], gpus)
            record = read_record(self.layout, task)
            task.estimate = float(record.get("seconds", 0.0))
            current = not self.force and record.get("key") == task.key
            if not any(c.cell_type == "code" for c in task.notebook.cells):
                if current:
                    write_executed(self.layout, task, record)
                else:   # no kernel to start
                    self._save(task, self._for_kernel(task), [], 0.0, {})
                self.executions.append(Execution(task, "no code"))
            elif current:
                write_executed(self.layout, task, record)
                self.executions.append(Execution(task, "cached", task.estimate))
            else:
                to_run.append(task)
        return sorted(to_run, key=lambda t: -t.estimate)

    # -- running ---------------------------------------------------------------
    def run(self, queue: list[Task]) -> None:
        """Run `queue` with up to `jobs` kernels; Ctrl-C stops every kernel cleanly."""
        self._free_gpus = [g.index for g in self.gpus]
        self._kernel_manager = kernel_manager_class(self.layout)
        pending = list(queue)
        workers = [threading.Thread(target=self._worker, args=(pending,), daemon=True)
                   for _ in range(min(self.jobs, len(queue)))]
        ticker = threading.Thread(target=self._tick, daemon=True)
        for worker in workers:
            worker.start()
        ticker.start()
        try:
            for worker in workers:
                while worker.is_alive():
                    worker.join(0.2)
        except KeyboardInterrupt:
            self.stop()
            for worker in workers:
                worker.join(30)
            raise
        finally:
            with self._condition:
                self._stopping = True
                self._condition.notify_all()

    def stop(self) -> None:
        """Kill every running kernel (with its children) and start nothing more."""
        with self._condition:
            self._stopping = True
            self._condition.notify_all()
            holders = [holder for _, holder in self._running.values()]
        for holder in holders:
            pid = holder.get("pid")
            if pid:
                try:
                    os.killpg(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass

    def _next(self, pending: list[Task]) -> tuple[Task, list[int]] | None:
        with self._condition:
            while True:
                if self._stopping or not pending:
                    return None
                for task in pending:
                    wanted = min(task.section.gpus, len(self.gpus))
                    if wanted <= len(self._free_gpus):
                        pending.remove(task)
                        granted = self._free_gpus[:wanted]
                        del self._free_gpus[:wanted]
                        return task, granted
                self._condition.wait()

    def _worker(self, pending: list[Task]) -> None:
        while True:
            picked = self._next(pending)
            if picked is None:
                return
            task, granted = picked
            try:
                execution = self._execute(task, granted)
            finally:
                with self._condition:
                    self._free_gpus.extend(granted)
                    self._condition.notify_all()
            with self._condition:
                self.executions.append(execution)
            self._report(execution)

    def _tick(self) -> None:
        """Show what runs: a live line on a terminal, a line every 30 s otherwise."""
        interval = 1.0 if self.colour else 30.0
        last = time.monotonic()
        while not self._stopping:
            time.sleep(0.2)
            if time.monotonic() - last < interval:
                continue
            last = time.monotonic()
            with self._condition:
                running = [f"{label} {time.monotonic() - start:.0f} s"
                           for label, (start, _) in self._running.items()]
            if running:
                line = "running: " + ", ".join(running)
                if self.colour:
                    sys.stdout.write("\r\x1b[K" + line[:150])
                    sys.stdout.flush()
                else:
                    self.log(line)

    def _report(self, execution: Execution) -> None:
        prefix = "\r\x1b[K" if self.colour else ""
        if execution.status == "ran":
            self.log(f"{prefix}done    {execution.task.label} in {execution.seconds:.1f} s")
        elif execution.status == "failed":
            self.log(f"{prefix}FAILED  {execution.task.label} after {execution.seconds:.1f} s\n"
                     + execution.message)

    def _environment(self, granted: list[int]) -> dict[str, str]:
        """A kernel's environment: this process's, the build's Jupyter folders, its share
        of the cores, its GPUs."""
        env = {**os.environ, **jupyter_environment(self.layout)}
        if self.jobs > 1 and "OMP_NUM_THREADS" not in os.environ:
            # Kernels side by side share the cores. Each framework would start a thread
            # per core, and oversubscribed OpenMP threads spin: 2.7x slower on 2 cores.
            threads = str(max(1, (os.cpu_count() or 1) // self.jobs))
            env.update(OMP_NUM_THREADS=threads, TF_NUM_INTRAOP_THREADS=threads)
        if self.gpus:
            env["CUDA_VISIBLE_DEVICES"] = ",".join(str(i) for i in granted)
        return env

    def _execute(self, task: Task, granted: list[int]) -> Execution:
        from nbclient import NotebookClient
        from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

        runtime = self.runtimes[task.tab]
        notebook = self._for_kernel(task)
        target = self.layout.executed(task.tab, task.section)
        target.parent.mkdir(parents=True, exist_ok=True)
        started = time.monotonic()
        current = {"index": None, "start": started}
        holder: dict = {}

        def on_cell_start(cell, cell_index):
            current["index"], current["start"] = cell_index, time.monotonic()

        def on_cell_executed(cell, cell_index, **_):
            cell.metadata.setdefault(METADATA_KEY, {})["seconds"] = round(
                time.monotonic() - current["start"], 3)

        def on_notebook_start(notebook):
            provisioner = getattr(client.km, "provisioner", None)
            holder["pid"] = getattr(provisioner, "pid", None) or getattr(
                getattr(provisioner, "process", None), "pid", None)

        notebook.cells.append(nbformat.v4.new_code_cell(PROBE))
        client = NotebookClient(
            notebook, timeout=self.timeout, kernel_name=runtime.kernel_name,
            kernel_manager_class=self._kernel_manager,
            resources={"metadata": {"path": str(target.parent)}},
            on_cell_start=on_cell_start, on_cell_executed=on_cell_executed,
            on_notebook_start=on_notebook_start)
        with self._condition:
            self._running[task.label] = (started, holder)
        self.log(f"{'' if not self.colour else chr(13) + chr(27) + '[K'}start   {task.label}"
                 + (f" on GPU {','.join(map(str, granted))}" if granted else ""))
        try:
            client.execute(env=self._environment(granted))
        except CellTimeoutError:
            return self._failure(task, notebook, current["index"], started,
                                 f"the cell ran longer than the {self.timeout} s timeout "
                                 "([execute] timeout in config.ini)")
        except DeadKernelError:
            if self._stopping:
                return Execution(task, "interrupted", time.monotonic() - started)
            return self._failure(task, notebook, current["index"], started,
                                 "the kernel died (crash, os._exit or out of memory)")
        except CellExecutionError as err:
            return self._failure(task, notebook, current["index"], started, "", err)
        except Exception as err:   # the kernel was killed under us (Ctrl-C), or failed to start
            if self._stopping:
                return Execution(task, "interrupted", time.monotonic() - started)
            return self._failure(task, notebook, current["index"], started,
                                 f"{type(err).__name__}: {err}")
        finally:
            # nbclient registers a clean-up at exit that fails once the kernel is gone.
            atexit.unregister(client._cleanup_kernel)
            with self._condition:
                self._running.pop(task.label, None)
        if self._stopping:
            return Execution(task, "interrupted", time.monotonic() - started)
        seconds = time.monotonic() - started
        probe = notebook.cells.pop()
        device_use = read_probe("".join(o.get("text", "") for o in probe.outputs))
        self._save(task, notebook, granted, seconds, device_use)
        return Execution(task, "ran", seconds)

    def _for_kernel(self, task: Task) -> nbformat.NotebookNode:
        """A copy of the task's notebook naming the kernel of its tab."""
        notebook = copy.deepcopy(task.notebook)
        notebook.metadata["kernelspec"] = {"name": self.runtimes[task.tab].kernel_name,
                                           "language": "python",
                                           "display_name": f"Python 3 ({task.tab})"}
        return notebook

    def _failure(self, task: Task, notebook, index: int | None, started: float, reason: str,
                 error: Exception | None = None) -> Execution:
        """A failed execution, described at its .md line; the previous good result stays."""
        return Execution(task, "failed", time.monotonic() - started,
                         failure_message(task, notebook, index, reason, error))

    def _save(self, task: Task, notebook, granted: list[int], seconds: float,
              device_use: dict) -> None:
        runtime = self.runtimes[task.tab]
        devices = [{"name": g.name, "memory_mib": g.memory_mib, "driver": g.driver,
                    "cuda": g.cuda} for g in self.gpus if g.index in granted]
        provenance = {
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "framework": task.tab, "framework_version": runtime.framework_version,
            "python": runtime.python_version, "devices": devices or "CPU",
            "device_use": device_use,
            "cell_seconds": [c.metadata.get(METADATA_KEY, {}).get("seconds", 0.0)
                             for c in notebook.cells if c.cell_type == "code"],
            "total_seconds": round(seconds, 3),
        }
        record = {"key": task.key, "seconds": round(seconds, 3),
                  "kernel": {name: notebook.metadata[name]
                             for name in ("kernelspec", "language_info")},
                  "provenance": provenance, "cells": cell_results(notebook)}
        # The record first: should the build stop in between, the next eval writes
        # the notebook from it.
        atomic_write(self.layout.cache_record(task.tab, task.section), json.dumps(record) + "\n")
        write_executed(self.layout, task, record)
