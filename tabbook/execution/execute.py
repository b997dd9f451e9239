"""Execute stage: run each planned notebook in its framework's own kernel.

The cache keeps, with the key, each code cell's outputs by cell id (see
record.py); every eval writes each executed notebook from today's split with
those outputs merged in (unless it is, untouched, the one written from the same
inputs: written.py), so prose, headings and .md lines are always current and a
prose edit runs nothing. Results are written atomically; a failed
or interrupted notebook caches nothing and keeps its previous good result, and so
does one whose result the machine refused to save (it fails, at its file). Up
to `jobs` kernels run at once, longest first, and a section gets up to its
``#gpus(N)`` GPUs; what a notebook's code leaves running once its kernel is gone
is killed (leftovers.py). The executor prints nothing: it tells what happens
through events (tasks.Started, Finished, Running, Leftovers) that the console
renders.
"""
from __future__ import annotations

import atexit
import copy
import os
import signal
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field, replace
from typing import Callable

import nbformat

from ..core.files import write_notebook_if_changed
from ..core.language import Language
from ..core.layout import Layout
from ..core.model import METADATA_KEY
from ..features.recorded_values import RECORDED_VALUES, replay_notebook
from ..features.registry import RECORDED
from .devices import PROBE, read_probe
from .failures import failure_message, kernel_errors, kernel_log, save_failure_message
from .kernels import Gpu, Runtime, jupyter_environment, kernel_manager_class
from .leftovers import MARKER, end_leftovers
from .record import ExecutionRecord, kernel_metadata, provenance, write_cache
from .tasks import (Event, Execution, Finished, Leftovers, Planned, Running, Started,
                    Status, Task)

TICK_SECONDS = 1.0


def write_executed(layout: Layout, planned: Planned, record: ExecutionRecord,
                   language: Language) -> None:
    """Write the executed notebook of `planned` from `record` (only if its bytes change),
    its prose in the book's `language`."""
    task = planned.task
    notebook = record.merged_into(task.notebook, language)
    if planned.frozen is not None:
        notebook.metadata[METADATA_KEY]["frozen"] = nbformat.from_dict(planned.frozen.metadata())
    write_notebook_if_changed(layout.executed(task.tab, task.section), notebook)


def save(layout: Layout, planned: Planned, record: ExecutionRecord,
         language: Language) -> None:
    """Cache `record`, then write the executed notebook from it."""
    # The record first: should the build stop in between, the next eval writes
    # the notebook from it.
    write_cache(layout.cache_record(planned.task.tab, planned.task.section), record)
    write_executed(layout, planned, record, language)


def stored(planned: Planned, status: Status, record: ExecutionRecord | None,
           write: Callable[[], object], seconds: float | None = None) -> Execution:
    """The execution of `planned` once `write` has stored its result (in `seconds`, else
    those of the run recorded); FAILED, naming the file, if writing fails (a full disk):
    that notebook keeps its previous result, and the others still run."""
    if seconds is None:
        seconds = record.seconds if record is not None else 0.0
    try:
        write()
    except OSError as error:
        return Execution(planned, Status.FAILED, seconds,
                         save_failure_message(planned.task, error))
    return Execution(planned, status, seconds, record=record)


def _to_execute(planned: Planned) -> nbformat.NotebookNode:
    """A copy of the task's notebook for its kernel; for a replay, one whose code cells
    restore the values the cached run recorded, asking only what that run did not
    compute."""
    if planned.replay is None:
        return copy.deepcopy(planned.task.notebook)
    unanswered = planned.task.unanswered(planned.replay)
    notebook = replay_notebook(planned.task.notebook, planned.replay.recorded,
                               [item["expression"] for items in unanswered.values()
                                for item in items])
    notebook.metadata[METADATA_KEY].update(unanswered)
    return notebook


def _features(planned: Planned) -> tuple:
    """The features whose cells the kernel runs: a replay records no values (it keeps
    those of the run it replays)."""
    if planned.replay is None:
        return RECORDED
    return tuple(feature for feature in RECORDED if feature is not RECORDED_VALUES)


@dataclass
class _Hooks:
    """What nbclient calls back while it runs a notebook (the build's code, not the
    notebook's): the running cell and when it started, each cell's duration, the kernel's
    pid (for `Executor.stop`)."""
    holder: dict
    index: int | None = None
    start: float = field(default_factory=time.monotonic)
    client: object = None

    def cell_started(self, cell, cell_index: int, **_) -> None:
        self.index, self.start = cell_index, time.monotonic()

    def cell_executed(self, cell, cell_index: int, **_) -> None:
        cell.metadata.setdefault(METADATA_KEY, {})["seconds"] = round(
            time.monotonic() - self.start, 3)

    def kernel_started(self, notebook, **_) -> None:
        provisioner = getattr(self.client.km, "provisioner", None)
        self.holder["pid"] = getattr(provisioner, "pid", None) or getattr(
            getattr(provisioner, "process", None), "pid", None)


@dataclass
class Executor:
    layout: Layout
    runtimes: dict[str, Runtime]
    gpus: list[Gpu]
    jobs: int
    timeout: int
    language: Language
    """The book's: the executed notebooks' marks of values not computed are in it."""
    on_event: Callable[[Event], None] = lambda event: None
    _executions: list[Execution] = field(default_factory=list)
    _running: dict = field(default_factory=dict)     # task label -> (start, kernel pid holder)
    _free_gpus: list[int] = field(default_factory=list)
    _condition: threading.Condition = field(default_factory=threading.Condition)
    _stopping: bool = False
    _kernel_manager: type | None = None
    _crashes: list[BaseException] = field(default_factory=list)

    def run(self, queue: list[Planned]) -> list[Execution]:
        """Run `queue` with up to `jobs` kernels; Ctrl-C stops every kernel cleanly, then
        raises KeyboardInterrupt. The executions, in the order they ended."""
        if not queue:   # nothing to run: Jupyter's client is not even imported (0.4 s)
            return []
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
        if self._crashes:   # a bug of the build: its traceback, not a silent success
            raise self._crashes[0]
        return list(self._executions)

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

    def _next(self, pending: list[Planned]) -> tuple[Planned, list[int]] | None:
        with self._condition:
            while True:
                if self._stopping or not pending:
                    return None
                for planned in pending:
                    wanted = min(planned.task.section.gpus, len(self.gpus))
                    if wanted <= len(self._free_gpus):
                        pending.remove(planned)
                        granted = self._free_gpus[:wanted]
                        del self._free_gpus[:wanted]
                        return planned, granted
                self._condition.wait()

    def _worker(self, pending: list[Planned]) -> None:
        while True:
            picked = self._next(pending)
            if picked is None:
                return
            planned, granted = picked
            try:
                execution = self._execute(planned, granted)
            except Exception as crash:   # run() raises it once the other workers are done
                self._crashes.append(crash)
                return
            finally:
                with self._condition:
                    self._free_gpus.extend(granted)
                    self._condition.notify_all()
            with self._condition:
                self._executions.append(execution)
            self.on_event(Finished(execution))

    def _tick(self) -> None:
        """Tell what runs, every second."""
        while not self._stopping:
            time.sleep(TICK_SECONDS)
            with self._condition:
                running = tuple((label, time.monotonic() - start)
                                for label, (start, _) in self._running.items())
            if running and not self._stopping:
                self.on_event(Running(running))

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

    def _execute(self, planned: Planned, granted: list[int]) -> Execution:
        from nbclient import NotebookClient

        task = planned.task
        runtime = self.runtimes[task.tab]
        notebook = _to_execute(planned)
        for feature in _features(planned):
            notebook = feature.prepare(notebook)
        notebook.metadata.update(nbformat.from_dict(kernel_metadata(runtime)))
        if planned.replay is None:   # a replay uses no device: its record keeps the run's
            notebook.cells.append(nbformat.v4.new_code_cell(PROBE))
        target = self.layout.executed(task.tab, task.section)
        target.parent.mkdir(parents=True, exist_ok=True)
        # Every process the kernel starts inherits this run's mark, even in a session
        # of its own: what still has it once the kernel is gone was left behind.
        mark = uuid.uuid4().hex
        environment = {**self._environment(granted), MARKER: mark}
        started = time.monotonic()
        hooks = _Hooks({})
        client = hooks.client = NotebookClient(
            notebook, timeout=self.timeout, kernel_name=runtime.kernel_name,
            kernel_manager_class=self._kernel_manager,
            resources={"metadata": {"path": str(target.parent)}},
            on_cell_start=hooks.cell_started, on_cell_executed=hooks.cell_executed,
            on_notebook_start=hooks.kernel_started)
        with self._condition:
            self._running[task.label] = (started, hooks.holder)
        self.on_event(Started(task, tuple(granted)))
        # The kernel's own output (its log, a crash's last words) goes to a file, not
        # the build's terminal: a timeout's shutdown logs ZMQ errors there.
        replay_failed = False
        with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as log:
            try:
                client.execute(env=environment, stdout=log, stderr=log)
            except kernel_errors() as error:   # the notebook's code or its kernel failed
                if planned.replay is None or self._stopping:
                    return self._failure(planned, notebook, hooks.index, started, error,
                                         kernel_log(log))
                replay_failed = True
            finally:
                # nbclient registers a clean-up at exit that fails once the kernel is gone.
                atexit.unregister(client._cleanup_kernel)
                with self._condition:
                    self._running.pop(task.label, None)
                self._end_leftovers(task, mark)
        if self._stopping:
            return Execution(planned, Status.INTERRUPTED, time.monotonic() - started)
        if replay_failed:   # the recorded values did not restore here: run the code
            return self._execute(replace(planned, replay=None), granted)
        return self._saved(planned, notebook, granted, time.monotonic() - started)

    def _end_leftovers(self, task: Task, mark: str) -> None:
        """Kill what the code of `task` left running, and tell."""
        left = end_leftovers(mark)
        if left:
            self.on_event(Leftovers(task, left))

    def _failure(self, planned: Planned, notebook, index: int | None, started: float,
                 error: Exception, log: list[str]) -> Execution:
        """A failed execution, described at its .md line; the previous good result stays."""
        seconds = time.monotonic() - started
        if self._stopping:   # Ctrl-C killed the kernel under us
            return Execution(planned, Status.INTERRUPTED, seconds)
        return Execution(planned, Status.FAILED, seconds,
                         failure_message(planned.task, notebook, index, error, self.timeout,
                                         log))

    def _saved(self, planned: Planned, notebook, granted: list[int],
               seconds: float) -> Execution:
        """Record what the kernel computed; the probe cell says which devices it used."""
        computed = {f.results_key: f.collect(notebook) for f in _features(planned)}
        if planned.replay is not None:
            record = planned.replay.reevaluated(planned.key, planned.task.asked, computed)
            return stored(planned, Status.REEVALUATED, record,
                          lambda: save(self.layout, planned, record, self.language), seconds)
        probe = notebook.cells.pop()
        device_use = read_probe("".join(o.get("text", "") for o in probe.outputs))
        devices = [{"name": g.name, "memory_mib": g.memory_mib, "driver": g.driver,
                    "cuda": g.cuda} for g in self.gpus if g.index in granted]
        cell_seconds = [c.metadata.get(METADATA_KEY, {}).get("seconds", 0.0)
                        for c in notebook.cells if c.cell_type == "code"]
        book_metadata = notebook.metadata.setdefault(METADATA_KEY, {})
        book_metadata["provenance"] = provenance(
            self.runtimes[planned.task.tab], devices, device_use, cell_seconds, seconds)
        book_metadata.update(computed)
        record = replace(ExecutionRecord.from_notebook(notebook, planned.key),
                         code_key=planned.code_key)
        return stored(planned, Status.RAN, record,
                      lambda: save(self.layout, planned, record, self.language))
