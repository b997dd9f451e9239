"""Frozen store: executed notebooks committed beside the sources, reused by any machine.

As Quarto's ``_freeze/``: the GPU job executes the GPU sections with ``eval
--freeze``, and the notebooks it writes under ``frozen/<tab>/…`` are committed.
Every later build, a CPU runner's included, takes a section's outputs from
there instead of executing it, as long as the notebook's key matches. The key
covers what the outputs depend on wherever they are read: the tab, the code
after splitting, the tab's d2l file, the framework's major version and the GPUs
the section declares; not the machine that reads them, which is the point, nor
the framework's exact release: a GPU node keeps the release it has installed
(PyTorch 2.11 with CUDA there, 2.13 on the CPU here), and its outputs hold. The
exact versions are in each notebook's provenance, which readers are shown. When
the key no longer matches, the section runs where the book is built, and its
page and the report say that the frozen result is out of date. A run that recorded
its values (features/recorded_values.py) is keyed without the expressions of the prose:
those added or changed since are evaluated on its values (execution/plan.py).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from ..bootstrap.errors import BookError
from ..bootstrap.records import key_of
from ..core.files import read_notebook, write_notebook_if_changed
from ..core.language import Language
from ..core.layout import Layout
from ..core.model import METADATA_KEY
from ..features.registry import FROZEN_KEYED
from .record import ExecutionRecord
from .tasks import Execution, Task

FROZEN_FORMAT = 2   # 2: the framework's major version, not its release
KEY = "frozen_key"   # in a frozen notebook's book metadata


class FrozenError(BookError):
    """A file of the frozen store that this build cannot read."""


def major_version(version: str) -> str:
    """``2`` for ``2.11.0+cu130`` and for ``2.13.0``: releases of one major version run
    the book's code alike, whatever their build (CUDA, CPU)."""
    return version.split("+")[0].split(".")[0]


def frozen_key(task: Task, library_text: str, framework_version: str,
               expressions: bool = True) -> str:
    """The task's key in the frozen store; without `expressions`, that of a frozen run
    that recorded its values, whose new expressions are evaluated on those values (see
    features/recorded_values.py): what the features ask is then left out."""
    material = {"format": FROZEN_FORMAT, "tab": task.tab, "code": task.code,
                "library": hashlib.sha256(library_text.encode()).hexdigest(),
                "framework": major_version(framework_version),
                "requires_gpus": task.section.gpus}
    # None in a notebook without: its key unchanged. Claims are left out: a sentence
    # edit must not discard a GPU run (see features/claims.py).
    if expressions:
        material.update({key: annotation for key, annotation in task.annotations.items()
                         if key in FROZEN_KEYED})
    return key_of(material)


def read_frozen(layout: Layout, task: Task) -> ExecutionRecord | None:
    """The frozen record of `task` (keyed by its frozen key), None if there is none."""
    path = layout.frozen(task.tab, task.section)
    if not path.is_file():
        return None
    try:
        notebook = read_notebook(path)
        return ExecutionRecord.from_notebook(notebook, str(notebook.metadata[METADATA_KEY][KEY]))
    except (ValueError, KeyError, AttributeError, TypeError) as err:
        raise FrozenError(
            f"{layout.shown(path)}: not a notebook written by `build.py eval --freeze` "
            f"({type(err).__name__}: {err}) — restore it with git, or delete it to run the "
            "section here") from None


@dataclass
class FreezeResult:
    written: list[Path]
    unchanged: list[Path]
    on_cpu: list[Task]
    """Frozen sections that declare #gpus(N) but computed on the CPU."""


def freeze(layout: Layout, executions: list[Execution], language: Language) -> FreezeResult:
    """Write every successful execution that ran code into ``frozen/``, under the frozen
    key its plan gave it; the failed ones keep their previous frozen notebook."""
    result = FreezeResult([], [], [])
    for execution in executions:
        record = execution.record
        if not execution.status.has_outputs or record is None or not (
                record.cells or record.computed):
            continue   # failed, skipped, or prose only: nothing to freeze
        task = execution.task
        notebook = record.merged_into(task.notebook, language)
        planned = execution.planned
        notebook.metadata[METADATA_KEY][KEY] = (
            planned.frozen_code_key if record.recorded else planned.frozen_key)
        target = layout.frozen(task.tab, task.section)
        (result.written if write_notebook_if_changed(target, notebook)
         else result.unchanged).append(target)
        if task.section.gpus and record.provenance.get("devices", "CPU") == "CPU":
            result.on_cpu.append(task)
    return result


def recorded_seconds(layout: Layout, task: Task) -> float | None:
    """How long the frozen notebook of `task` took to run, if there is one."""
    frozen = read_frozen(layout, task)
    return frozen.seconds if frozen is not None else None
