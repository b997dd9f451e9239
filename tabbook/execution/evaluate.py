"""Eval stage: the selected notebooks executed (or taken from the cache or the frozen
store), judged and reported.

Two steps, so that the command line can show the plan before kernels start:
`plan_eval` decides everything once (GPUs, interpreters, the shard, each task's
keys and outcome) and returns an immutable `EvalPlan`; `evaluate` carries it out
and returns an `EvalResult`. Neither prints: the executor's progress goes to
the `on_event` callback.
"""
from __future__ import annotations

import functools
from collections import Counter
from itertools import chain
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping

import nbformat

from ..bootstrap.errors import BookError
from ..core.config import CONFIG_FILE, Config
from ..core.layout import Layout
from ..core.model import Problem, Section
from ..notebooks.features import RunFindings, run_problems
from ..notebooks.library import library_source
from ..notebooks.long_outputs import KEPT, LIMIT, long_outputs
from ..notebooks.split import code_cells, split_section
from .execute import Executor, stored
from .frozen import FreezeResult, freeze, recorded_seconds
from .kernels import Gpu, Runtime, detect_gpus, framework_gpus, gpu_class, prepare_runtime
from .plan import Context, plan_tasks
from .record import read_cache, read_executed_notebook, write_cache
from .report import FrameworkInfo, Report, build_report, write_report
from .shard import Shard, shard_items
from .tasks import Event, Execution, Frozen, Planned, Status, Task
from .written import WrittenNotebooks


class EvalUsageError(BookError):
    """An eval option this machine or book cannot honour (--require-gpu without a GPU)."""


@dataclass(frozen=True)
class EvalOptions:
    jobs: int
    """Kernels at once (at least 1)."""
    force: bool
    pythons: dict[str, Path]
    """The interpreters given with --python, by tab."""
    require_gpu: bool
    freeze: bool = False
    shard: Shard | None = None


@dataclass(frozen=True)
class ShardCut:
    shard: Shard
    chosen: int
    total: int
    loads: tuple[float, ...]
    """Estimated seconds of every part."""


@dataclass(frozen=True)
class EvalPlan:
    gpus: tuple[Gpu, ...]
    fewer_gpus: tuple[Section, ...]
    """With --require-gpu, sections declaring more GPUs than there are."""
    runtimes: dict[str, Runtime]
    frameworks: dict[str, FrameworkInfo]
    planned: tuple[Planned, ...]
    """Every selected notebook, in book order."""
    cut: ShardCut | None
    pruned_tabs: tuple[str, ...]
    """A full eval: the tabs whose removed sections lose their outputs."""
    jobs: int

    @functools.cached_property
    def queue(self) -> tuple[Planned, ...]:
        """The notebooks a kernel runs, longest first."""
        return tuple(sorted((p for p in self.planned if p.runs), key=lambda p: -p.estimate))

    @property
    def kernels(self) -> int:
        return min(self.jobs, max(len(self.queue), 1))

    def count(self, outcome: Status) -> int:
        return sum(p.outcome is outcome for p in self.planned)

    @property
    def stale(self) -> list[Planned]:
        """The tasks whose frozen result no longer matches: they run here instead."""
        return [p for p in self.planned if p.frozen and p.frozen.state is Frozen.STALE]


@dataclass(frozen=True)
class EvalResult:
    executions: tuple[Execution, ...]
    """In book order."""
    report: Report
    report_markdown: Path
    frozen: FreezeResult | None
    """What --freeze wrote."""
    removed: tuple[Path, ...]
    """Executed notebooks and cache records of sections no longer in the book."""
    failed: bool
    """A notebook failed, or, with --require-gpu, a GPU section may not have used a GPU."""
    problems: Mapping[str, tuple[Problem, ...]] = field(default_factory=dict)
    """By feature key, what its roles cannot show of what the notebooks shown computed
    (values not computed; warnings: strict builds make them errors)."""
    not_judged: tuple[Problem, ...] = ()
    """Claims the frozen runs shown predate (listed; never blocking, see run_problems)."""
    long_outputs: tuple[Problem, ...] = ()
    """The outputs too long to be published whole, which the pages, the PDF and the launch
    notebooks show cut (warnings: strict builds make them errors)."""
    notes: Mapping[str, tuple[Problem, ...]] = field(default_factory=dict)
    """By feature key, what is worth knowing of the runs (claims that hold narrowly):
    listed in the report, never an error."""

    def count(self, status: Status) -> int:
        return sum(e.status is status for e in self.executions)


def gpu_policy(sections: list[Section], gpus: list[Gpu], require_gpu: bool) -> list[Section]:
    """With --require-gpu, the sections that declare more GPUs than there are (they get
    those there are); an error if there is none for sections that declare some."""
    if not require_gpu:
        return []
    needing = [s for s in sections if s.gpus]
    if needing and not gpus:
        raise EvalUsageError("--require-gpu: no GPU is visible, but "
                             + ", ".join(f"{s.name} declares #gpus({s.gpus})" for s in needing)
                             + " — run on a machine whose GPUs nvidia-smi lists, or drop "
                               "--require-gpu")
    return [s for s in needing if s.gpus > len(gpus)]


def shard_tasks(layout: Layout, tasks: list[Task], shard: Shard) -> tuple[list[Task], ShardCut]:
    """The tasks of `shard`, cut by the durations the frozen store recorded."""
    chosen, loads = shard_items(
        tasks, shard, functools.partial(recorded_seconds, layout),
        lambda task: len(task.code))
    return chosen, ShardCut(shard, len(chosen), len(tasks), tuple(loads))


def prepare_runtimes(layout: Layout, tabs: list[str],
                     pythons: dict[str, Path]) -> dict[str, Runtime]:
    """The interpreter and kernel of each of `tabs` (--python's, else the managed one)."""
    needed = list(dict.fromkeys(tabs))
    # Probing imports each framework (seconds each): do them side by side.
    with ThreadPoolExecutor(max(len(needed), 1)) as pool:
        return dict(zip(needed, pool.map(
            lambda tab: prepare_runtime(layout, tab, pythons.get(tab)), needed)))


def framework_infos(runtimes: dict[str, Runtime], gpus: list[Gpu]) -> dict[str, FrameworkInfo]:
    """Each framework's version, and, on a GPU machine, how many GPUs its build sees."""
    counts: dict[str, tuple[int | None, str]] = {tab: (None, "") for tab in runtimes}
    if gpus:
        with ThreadPoolExecutor(max(len(runtimes), 1)) as pool:
            counts = dict(zip(runtimes, pool.map(framework_gpus, runtimes.values())))
    return {tab: FrameworkInfo(r.framework_version, r.python_version, *counts[tab])
            for tab, r in runtimes.items()}


def requirements(config: Config, tabs: tuple[str, ...]) -> list[str]:
    """What executing `tabs` needs, for a command to check before it does any work: the
    library file of each tab that has one, which its notebooks import."""
    return [f"{CONFIG_FILE}:{library.line}: [library-{tab}] lib_file = {library.lib_file!r}: "
            f"no such file, and the {tab} notebooks import it — generate it with "
            "`python3 build.py lib`"
            for tab, library in config.library.tabs.items()
            if tab in tabs and not (config.root / library.lib_file).is_file()]


def plan_eval(layout: Layout, config: Config, pairs: list[tuple[Section, str]],
              options: EvalOptions, full: bool,
              split: Callable[[Section, str], nbformat.NotebookNode] = split_section) -> EvalPlan:
    """Decide what eval does with the (section, tab) `pairs`, in book order. `full`: the
    pairs are the whole book for their tabs (no --only, no --gpu-only); `split` makes a
    pair's notebook (`split_store.SplitStore.notebook` takes the kept ones)."""
    gpus = detect_gpus()
    sections = list({id(section): section for section, _ in pairs}.values())
    fewer = gpu_policy(sections, gpus, options.require_gpu)
    tasks = [Task(section, tab, split(section, tab)) for section, tab in pairs]
    cut = None
    if options.shard:
        tasks, cut = shard_tasks(layout, tasks, options.shard)
    runtimes = prepare_runtimes(layout, [t.tab for t in tasks], options.pythons)
    frameworks = framework_infos(runtimes, gpus)
    context = Context(
        layout, runtimes,
        {tab: library_source(config, tab) for tab in runtimes},
        gpu_class(gpus), options.force,
        # The GPU job must not run a framework that cannot use the GPUs: it would
        # only prove that the CPU works.
        frozenset(tab for tab, info in frameworks.items()
                  if options.require_gpu and info.gpus_seen == 0))
    pruned = tuple(dict.fromkeys(tab for _, tab in pairs)) if full and not cut else ()
    return EvalPlan(tuple(gpus), tuple(fewer), runtimes, frameworks,
                    plan_tasks(context, tasks), cut, pruned, options.jobs)


def evaluate(layout: Layout, config: Config, plan: EvalPlan, options: EvalOptions,
             on_event: Callable[[Event], None]) -> EvalResult:
    """Carry out `plan`: write the notebooks no kernel runs, run the others, report,
    freeze (--freeze), remove what removed sections left. Ctrl-C stops every kernel
    and raises KeyboardInterrupt."""
    language = config.project.language
    notebooks = WrittenNotebooks.load(layout, language)
    written = [write_planned(layout, planned, notebooks)
               for planned in plan.planned if not planned.runs]
    executor = Executor(layout, plan.runtimes, list(plan.gpus), plan.jobs,
                        config.execute.timeout, language, on_event)
    try:
        ran = executor.run(list(plan.queue))
    finally:   # what kernels wrote, or began to write, no entry vouches for
        notebooks.forget([p.task for p in plan.queue])
        notebooks.save()
    order = {id(p.task): number for number, p in enumerate(plan.planned)}
    executions = sorted([*written, *ran], key=lambda e: order[id(e.task)])
    problems, not_judged, notes = feature_problems(executions)
    report = build_report(executions, functools.partial(executed_notebook, layout),
                          list(plan.gpus), plan.frameworks, options.require_gpu, not_judged,
                          [*chain.from_iterable(notes.values())])
    _, markdown = write_report(report, layout.eval)
    frozen = None
    if options.freeze:
        # The GPU job freezes no section that may not have computed on a GPU.
        doubtful = {(row.section, row.framework) for row in report.doubtful}
        frozen = freeze(layout, [e for e in executions if not (
            options.require_gpu and (e.task.section.name, e.task.tab) in doubtful)],
            language)
    failed = bool(report.failed or (options.require_gpu and report.doubtful))
    removed = prune(layout, plan)
    notebooks.forget([], removed)
    notebooks.save()
    return EvalResult(tuple(executions), report, markdown, frozen,
                      removed, failed, problems, not_judged, output_problems(executions),
                      notes)


Found = Mapping[str, tuple[Problem, ...]]
"""Problems by feature key, sorted; no key without any."""


def feature_problems(executions: list[Execution]
                     ) -> tuple[Found, tuple[Problem, ...], Found]:
    """What the features find in the executed notebooks, at their .md line (see
    `run_problems`), every run's findings together: the problems, the roles frozen runs
    have not judged, and the notes that may come from noise (see `varying`)."""
    together = RunFindings()
    for execution in executions:
        record, task = execution.record, execution.task
        if execution.status.has_outputs and record is not None and task.annotations:
            found = run_problems(task.section, task.tab, code_cells(task.section, task.tab),
                                 record.computed, frozen=execution.status is Status.FROZEN)
            for key, items in found.problems.items():
                together.problems.setdefault(key, []).extend(items)
            for key, items in found.notes.items():
                together.notes.setdefault(key, []).extend(items)
            together.not_judged += found.not_judged
    return ({key: tuple(sorted(items)) for key, items in together.problems.items() if items},
            tuple(sorted(together.not_judged)),
            {key: tuple(sorted(kept)) for key, items in together.notes.items()
             if (kept := varying(items))})


def varying(notes: list[Problem]) -> list[Problem]:
    """The `notes` that may come from run-to-run noise: one worded the same in several
    tabs (a claim narrow by the same margin) comes from arithmetic that every framework
    does alike, and is left out."""
    tabs = Counter((note.path, note.line, note.message) for note in notes)
    return [note for note in notes if tabs[note.path, note.line, note.message] == 1]


def output_problems(executions: list[Execution]) -> tuple[Problem, ...]:
    """Each output of the executed notebooks too long to be published whole, at the line
    of its cell (the executed notebook keeps it whole; what is published is cut)."""
    problems = []
    for execution in executions:
        record, task = execution.record, execution.task
        if not execution.status.has_outputs or record is None:
            continue
        for cell in code_cells(task.section, task.tab).values():
            outputs = record.cells.get(cell.id, {}).get("outputs", [])
            problems += [Problem(
                task.section.display_path, cell.lines[0],
                f"an output of {shown.megabytes:.1f} MB (over {LIMIT} characters) is too long to "
                "be published whole: the pages, the PDF and the launch notebook show its "
                f"beginning and end, at most {KEPT} characters each (the executed notebook "
                "keeps it whole)",
                "print less (a summary, one line in a hundred), or write it to a file",
                task.tab, warning=True) for shown in long_outputs(outputs)]
    return tuple(sorted(problems))


def write_planned(layout: Layout, planned: Planned, notebooks: WrittenNotebooks) -> Execution:
    """The execution of a task no kernel runs: its executed notebook is written from
    the cache or the frozen store, unless it is already (a notebook without code, or one
    that only dropped expressions, gets its record cached); FAILED if that cannot be
    written."""
    record = planned.record

    def write() -> None:
        if planned.outcome in (Status.NO_CODE, Status.REEVALUATED) and read_cache(
                layout.cache_record(planned.task.tab, planned.task.section)) != record:
            write_cache(layout.cache_record(planned.task.tab, planned.task.section), record)
        if record is not None:
            notebooks.write(planned, record)
    return stored(planned, planned.outcome, record, write)


def executed_notebook(layout: Layout, task: Task) -> dict | None:
    """The executed notebook of `task` (its last good result), None if there is none or
    it cannot be read."""
    return read_executed_notebook(layout.executed(task.tab, task.section))


def prune(layout: Layout, plan: EvalPlan) -> tuple[Path, ...]:
    """On a full eval, remove the executed notebooks and cache records of the pruned
    tabs that no selected section has any more."""
    removed = []
    for tab in plan.pruned_tabs:
        sections = [p.task.section for p in plan.planned if p.task.tab == tab]
        # Only notebooks and records: the code may keep its data beside its notebook.
        for folder, pattern, path_of in (
                (layout.executed_notebooks(tab), "*.ipynb", layout.executed),
                (layout.cache_records(tab), "*.json", layout.cache_record)):
            kept = {path_of(tab, section) for section in sections}
            for path in sorted(folder.rglob(pattern)):
                if path not in kept:
                    path.unlink()
                    removed.append(path)
    return tuple(removed)
