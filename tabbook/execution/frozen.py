"""Frozen stage: executed notebooks committed beside the sources, reused by any machine.

As Quarto's ``_freeze/``: the GPU job executes the GPU sections with ``eval
--freeze``, and the notebooks it writes under ``frozen/<tab>/…`` are committed.
Every later build, a CPU runner's included, takes a section's outputs from
there instead of executing it, as long as the notebook's key matches. The key
covers what the outputs depend on wherever they are read: the tab, the code
after splitting, the tab's d2l file, the framework's release and the GPUs the
section declares; not the machine that reads them, which is the point. When the
key no longer matches, the section runs where the book is built, and its page
and the report say that the frozen result is out of date.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from ..bootstrap.errors import BookError
from .execute import Execution, Task, cell_results, write_executed
from ..core.files import read_notebook, write_notebook_if_changed
from ..core.layout import Layout
from ..core.model import METADATA_KEY
from .provenance import provenance_of

FROZEN_FORMAT = 1
KEY = "frozen_key"   # in a frozen notebook's book metadata
FROZEN_STATUSES = ("ran", "cached", "frozen")   # executions whose outputs can be frozen


class FrozenError(BookError):
    """A file of the frozen store that this build cannot read."""


def release(version: str) -> str:
    """A framework's version without its build's local tag: ``2.13.0+cpu`` and the CUDA
    build ``2.13.0`` compute the same thing."""
    return version.split("+")[0]


def frozen_key(task: Task, library_text: str, framework_version: str) -> str:
    code = [c.source for c in task.notebook.cells if c.cell_type == "code"]
    material = {"format": FROZEN_FORMAT, "tab": task.tab, "code": code,
                "library": hashlib.sha256(library_text.encode()).hexdigest(),
                "framework": release(framework_version), "requires_gpus": task.section.gpus}
    return hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()


@dataclass(frozen=True)
class FrozenNotebook:
    key: str
    record: dict
    """Its outputs in the shape of an execution cache record (see execute.py)."""

    @property
    def provenance(self) -> dict:
        return self.record["provenance"]


def read_frozen(layout: Layout, task: Task) -> FrozenNotebook | None:
    """The frozen notebook of `task`, None if there is none."""
    path = layout.frozen(task.tab, task.section)
    if not path.is_file():
        return None
    try:
        notebook = read_notebook(path)
        provenance = provenance_of(notebook)
        record = {"seconds": float(provenance.get("total_seconds", 0.0)),
                  "kernel": {name: notebook.metadata[name] for name in
                             ("kernelspec", "language_info") if name in notebook.metadata},
                  "provenance": provenance, "cells": cell_results(notebook)}
        return FrozenNotebook(notebook.metadata[METADATA_KEY].get(KEY, ""), record)
    except (ValueError, KeyError, AttributeError) as err:
        raise FrozenError(
            f"{layout.shown(path)}: not a notebook written by `build.py eval --freeze` "
            f"({type(err).__name__}: {err}) — restore it with git, or delete it to run the "
            "section here") from None


def use_frozen(layout: Layout, tasks: list[Task], libraries: dict[str, str],
               versions: dict[str, str], force: bool) -> tuple[list[Execution], list[Task]]:
    """Serve the tasks whose frozen notebook matches from it (their executed notebook
    is written); return those executions and the other tasks, which must run or come
    from the cache. A frozen notebook that no longer matches is noted on its task.

    `libraries` and `versions` are each tab's d2l file text and framework version;
    with `force`, nothing is taken from the store."""
    served, others = [], []
    for task in tasks:
        frozen = read_frozen(layout, task)
        task.frozen_key = frozen_key(task, libraries[task.tab], versions[task.tab])
        if frozen is not None and frozen.key == task.frozen_key and not force:
            task.frozen_note = {"status": "used", "path": layout.shown(
                layout.frozen(task.tab, task.section))}
            write_executed(layout, task, frozen.record)
            served.append(Execution(task, "frozen", frozen.record["seconds"]))
            continue
        if frozen is not None and frozen.key != task.frozen_key:
            task.frozen_note = {"status": "stale", "provenance": frozen.provenance}
        others.append(task)
    return served, others


@dataclass
class FreezeResult:
    written: list[Path]
    unchanged: list[Path]
    on_cpu: list[Task]
    """Frozen sections that declare #gpus(N) but computed on the CPU."""


def freeze(layout: Layout, executions: list[Execution]) -> FreezeResult:
    """Write the executed notebook of every successful execution that ran code into
    ``frozen/``, with the key `use_frozen` gave its task; the failed ones keep their
    previous frozen notebook."""
    result = FreezeResult([], [], [])
    for execution in executions:
        task = execution.task
        path = layout.executed(task.tab, task.section)
        if execution.status not in FROZEN_STATUSES or not path.is_file():
            continue
        notebook = read_notebook(path)
        provenance = provenance_of(notebook)
        if not provenance.get("cell_seconds"):
            continue   # prose only: nothing to freeze
        metadata = notebook.metadata[METADATA_KEY]
        metadata.pop("frozen", None)
        metadata[KEY] = task.frozen_key
        target = layout.frozen(task.tab, task.section)
        (result.written if write_notebook_if_changed(target, notebook)
         else result.unchanged).append(target)
        if task.section.gpus and provenance.get("devices", "CPU") == "CPU":
            result.on_cpu.append(task)
    return result


def recorded_seconds(layout: Layout, task: Task) -> float | None:
    """How long the frozen notebook of `task` took to run, if there is one."""
    frozen = read_frozen(layout, task)
    return frozen.record["seconds"] if frozen is not None else None
