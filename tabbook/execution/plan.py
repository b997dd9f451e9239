"""The eval plan: for each task, computed once before anything runs, its keys, what the
cache and the frozen store hold for it, and whether a kernel must run it.

A notebook runs again only when its cache key changes: the tab, its code after
splitting, that tab's d2l file, the environment's exact packages, the GPU
class, what the features ask its kernel to evaluate. When only the last changed (an
``:eval:``, a claim, a condition added or edited) and every such expression can be
evaluated on the values the cached run of the same code recorded, the kernel evaluates
them there instead of running the code (see features/recorded_values.py). A notebook
whose frozen key matches (see frozen.py) is taken from the frozen store instead,
wherever the book is built.
"""
from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ..core.layout import Layout
from ..features.recorded_values import names_after, replayable
from ..features.registry import FROZEN_KEYED
from .frozen import frozen_key, read_frozen
from .kernels import Runtime
from .record import CACHE_FORMAT, ExecutionRecord, prose_record, read_cache
from .tasks import Frozen, FrozenNote, Planned, Status, Task
from ..bootstrap.records import key_of


def cache_key(task: Task, runtime: Runtime, library_text: str, gpus: str,
              annotated: bool = True) -> str:
    """The key of the task's cached run; without `annotated`, that of its code alone (what
    the features ask its kernel to evaluate left out)."""
    material = {"format": CACHE_FORMAT, "tab": task.tab, "code": task.code}
    if annotated:
        material.update(task.annotations)   # none in a notebook without: its key unchanged
    if task.computes:   # a prose-only notebook runs nothing: the environment cannot change it
        material.update(library=hashlib.sha256(library_text.encode()).hexdigest(),
                        python=runtime.python_version, packages=runtime.packages, gpus=gpus,
                        requires_gpus=task.section.gpus)
    return key_of(material)


@dataclass(frozen=True)
class Context:
    """What every task of a plan is planned against."""
    layout: Layout
    runtimes: dict[str, Runtime]
    libraries: dict[str, str]
    """Each tab's d2l file."""
    gpu_class: str
    force: bool
    """Take nothing from the cache or the frozen store."""
    blocked: frozenset[str]
    """Tabs whose framework cannot see the GPUs (with --require-gpu): their GPU
    sections are skipped, running them would only prove the CPU works."""


def plan_tasks(context: Context, tasks: list[Task]) -> tuple[Planned, ...]:
    """Every task's plan, in the order of `tasks`."""
    return tuple(plan_task(context, task) for task in tasks)


def plan_task(context: Context, task: Task) -> Planned:
    runtime, library = context.runtimes[task.tab], context.libraries[task.tab]
    key = cache_key(task, runtime, library, context.gpu_class)
    code_key = cache_key(task, runtime, library, context.gpu_class, annotated=False)
    frozen_keys = (frozen_key(task, library, runtime.framework_version),
                   frozen_key(task, library, runtime.framework_version, expressions=False))
    cached = read_cache(context.layout.cache_record(task.tab, task.section))
    planned = functools.partial(Planned, task, key, frozen_keys[0],
                                cached.seconds if cached else 0.0, code_key=code_key,
                                frozen_code_key=frozen_keys[1])
    frozen, note = _frozen(context, task, *frozen_keys)
    if note is not None and note.state is Frozen.USED:
        served = _from_frozen(planned, note, task, frozen, cached, key)
        if served is not None:
            return served
        note = FrozenNote(Frozen.STALE, note.path, note.provenance)
    current = cached if cached and cached.key == key and not context.force else None
    outcome, record = _outcome(context, task, runtime, current, key)
    if outcome is None and not context.force:
        return _replayed(planned, note, task, cached, (key, code_key)) or \
            planned(note, None, None)
    return planned(note, outcome, record)


def _replayed(planned: Callable[..., Planned], note: FrozenNote | None, task: Task,
              cached: ExecutionRecord | None, keys: tuple[str, str]) -> Planned | None:
    """A task to run whose expressions can be evaluated on the values of the cached run of
    its code instead (`keys`: its cache key and that of its code): by a kernel, unless it
    only dropped some (nothing left to evaluate); None if they cannot."""
    key, code_key = keys
    if cached is None or cached.code_key != code_key:
        return None
    unanswered = task.unanswered(cached)
    if not replays(unanswered, cached):
        return None
    if any(unanswered.values()):
        return planned(note, None, None, replay=cached)
    return planned(note, Status.REEVALUATED, cached.reevaluated(key, task.asked, {}))


def replays(unanswered: Mapping[str, list[dict]], record: ExecutionRecord) -> bool:
    """Whether every expression a task asks that the run of `record` (its code is the
    task's) did not compute (`unanswered`, `Task.unanswered`) can be evaluated on the
    values that run recorded, instead of running it."""
    names = names_after(record.recorded)
    return all(item["after"] in names and replayable(item["expression"], names[item["after"]])
               for items in unanswered.values() for item in items)


def _from_frozen(planned: Callable[..., Planned], note: FrozenNote, task: Task,
                 frozen: ExecutionRecord, cached: ExecutionRecord | None,
                 key: str) -> Planned | None:
    """A task the frozen store serves: from its frozen run, what its features ask now that
    the run did not compute evaluated on the values the run recorded (once: the cache
    keeps the answers). None when an inline value or a condition cannot be evaluated on
    them: the section must run here. A claim that cannot be is listed as not judged."""
    unanswered = task.unanswered(frozen)
    if not frozen.recorded or not any(unanswered.values()):
        return planned(note, Status.FROZEN, frozen)
    if cached is not None and cached.key == key and cached.cells == frozen.cells and \
            cached.provenance == frozen.provenance:
        return planned(note, Status.FROZEN, cached)
    if replays(unanswered, frozen):
        return planned(note, None, None, replay=frozen)
    if any(unanswered.get(feature) for feature in FROZEN_KEYED):
        return None
    return planned(note, Status.FROZEN, frozen)


def _frozen(context: Context, task: Task, frozen_as: str,
            frozen_code: str) -> tuple[ExecutionRecord | None, FrozenNote | None]:
    """The task's frozen record, and what its executed notebook will say of it: used
    (its key matches, and no --force), out of date (its key differs), or nothing. A run
    that recorded its values is keyed on its code alone (`frozen_code`)."""
    frozen = read_frozen(context.layout, task)
    if frozen is None:
        return None, None
    path = context.layout.shown(context.layout.frozen(task.tab, task.section))
    if frozen.key != (frozen_code if frozen.recorded else frozen_as):
        return frozen, FrozenNote(Frozen.STALE, path, frozen.provenance)
    return frozen, None if context.force else FrozenNote(Frozen.USED, path, frozen.provenance)


def _outcome(context: Context, task: Task, runtime: Runtime, current: ExecutionRecord | None,
             key: str) -> tuple[Status | None, ExecutionRecord | None]:
    """What happens to a task the frozen store does not serve, and the record it is
    written from without a kernel (None: a kernel runs it)."""
    if task.tab in context.blocked and task.section.gpus:
        return Status.SKIPPED, None
    if not task.computes:   # no kernel to start
        return Status.NO_CODE, current or prose_record(runtime, key)
    if current:
        return Status.CACHED, current
    return None, None
