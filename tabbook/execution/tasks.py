"""What the eval stage works on and what it says: tasks, their plan, their outcome, events.

A task is one section's notebook for one tab. The plan gives each task, once
and for all before anything runs, its cache key, its frozen key, what the
frozen store holds for it and how long it took last time; an execution is what
became of it. All are immutable: no stage fills in another's fields.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..core.model import METADATA_KEY, Section
from ..features.kernel_cells import result_entry
from ..features.registry import FEATURES
from .leftovers import Leftover
from .record import ExecutionRecord

if TYPE_CHECKING:   # nbformat: loaded by the commands that read or write notebooks
    import nbformat


class Status(enum.StrEnum):
    """What became of a task (the report and the console show the value)."""
    RAN = "ran"
    REEVALUATED = "re-evaluated"
    """Its code did not change, only expressions of its prose: they were evaluated on the
    values its last run recorded (features/recorded_values.py), without running it."""
    CACHED = "cached"
    FROZEN = "frozen"
    NO_CODE = "no code"
    FAILED = "failed"
    INTERRUPTED = "interrupted"
    SKIPPED = "skipped"

    @property
    def has_outputs(self) -> bool:
        """Whether the task's executed notebook holds the outputs of its current code."""
        return self in (Status.RAN, Status.REEVALUATED, Status.CACHED, Status.FROZEN)

    @property
    def unfinished(self) -> bool:
        """Failed or interrupted: the executed notebook keeps its previous good result."""
        return self in (Status.FAILED, Status.INTERRUPTED)


@dataclass(frozen=True, eq=False)   # a task is itself: compared and hashed by identity
class Task:
    section: Section
    tab: str
    notebook: nbformat.NotebookNode
    """The split notebook (today's prose, code and .md lines)."""

    @property
    def label(self) -> str:
        return f"{self.section.name} [{self.tab}]"

    @property
    def code(self) -> list[str]:
        return [c.source for c in self.notebook.cells if c.cell_type == "code"]

    @property
    def annotations(self) -> dict[str, list]:
        """What the features asked its kernel to compute, by feature key (see
        notebooks/features.py): part of its cache and frozen keys."""
        metadata = self.notebook.metadata.get(METADATA_KEY, {})
        return {feature.key: list(metadata[feature.key]) for feature in FEATURES
                if feature.key in metadata}

    @property
    def asked(self) -> dict[str, list[dict]]:
        """What the features ask of its kernel, by the key their results are kept under
        (empty for a feature that asks nothing of it now)."""
        return {feature.results_key: self.annotations.get(feature.key, [])
                for feature in FEATURES if feature.annotate is not None}

    def unanswered(self, record: ExecutionRecord) -> dict[str, list[dict]]:
        """What the features ask of its kernel that the run of `record` did not compute
        (added or changed since), by feature key."""
        return {feature.key: [item for item in items if result_entry(
                    record.computed.get(feature.results_key, ()), item["after"],
                    item["expression"]) is None]
                for feature in FEATURES if (items := self.annotations.get(feature.key))}

    @property
    def computes(self) -> bool:
        """Whether a kernel has anything to do: code to run or a feature's annotation."""
        return bool(self.code or self.annotations)


class Frozen(enum.StrEnum):
    """What the frozen store holds for a task, when it holds its notebook."""
    USED = "used"
    STALE = "stale"
    """Its key no longer matches: code, d2l or the framework's major version changed."""


@dataclass(frozen=True)
class FrozenNote:
    """What an executed notebook says of the frozen store (see frozen.py)."""
    state: Frozen
    path: str
    """The frozen notebook, as messages show it."""
    provenance: dict
    """Where and when the frozen outputs were computed."""

    def metadata(self) -> dict:
        """The note as the executed notebook keeps it (read by provenance.frozen_of)."""
        if self.state is Frozen.USED:
            return {"status": "used", "path": self.path}
        return {"status": "stale", "provenance": self.provenance}


@dataclass(frozen=True)
class Planned:
    """A task with everything decided before anything runs."""
    task: Task
    key: str
    """Its execution cache key (see plan.py)."""
    frozen_key: str
    """Its key in the frozen store (see frozen.py)."""
    estimate: float
    """Seconds of its last run (0 if none), to start the longest notebooks first."""
    frozen: FrozenNote | None
    outcome: Status | None
    """FROZEN, CACHED, NO_CODE, SKIPPED or REEVALUATED (nothing left to evaluate: it only
    dropped expressions) when no kernel runs it; None when it runs."""
    record: ExecutionRecord | None = None
    """The outputs it is written from without a kernel (cache or frozen store)."""
    code_key: str = ""
    """Its cache key without what the features ask of the kernel: that of its code."""
    frozen_code_key: str = ""
    """Its frozen key without what the features ask (that of a run that recorded its
    values)."""
    replay: ExecutionRecord | None = None
    """The cached run of the same code whose recorded values its kernel evaluates the
    expressions on, instead of running the code (see features/recorded_values.py)."""

    @property
    def runs(self) -> bool:
        return self.outcome is None


@dataclass(frozen=True)
class Execution:
    """What became of a planned task."""
    planned: Planned
    status: Status
    seconds: float = 0.0
    message: str = ""
    """Why it failed, at the .md line: what the console shows."""
    record: ExecutionRecord | None = None
    """The outputs its executed notebook now holds (None if it failed or was skipped)."""

    @property
    def task(self) -> Task:
        return self.planned.task


# -- what the executor tells while it runs (the console renders it) -------------------

@dataclass(frozen=True)
class Started:
    task: Task
    gpus: tuple[int, ...]
    """The GPUs it was given (CUDA_VISIBLE_DEVICES)."""


@dataclass(frozen=True)
class Finished:
    execution: Execution


@dataclass(frozen=True)
class Running:
    """Sent every second while kernels run: each running task and its seconds so far."""
    tasks: tuple[tuple[str, float], ...]


@dataclass(frozen=True)
class Leftovers:
    """Processes the code of `task` left running after its kernel was shut down."""
    task: Task
    processes: tuple[Leftover, ...]


Event = Started | Finished | Running | Leftovers
