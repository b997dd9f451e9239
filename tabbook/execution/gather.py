"""Gathering the GPU job: the tasks' frozen results merged into the book's ``frozen/``,
and one summary (Markdown) that says which tasks failed and why.

A task is one (framework, shard) of the GPU job, and what it left is a book folder
after its ``eval --freeze --shard K/N``: ``frozen/`` and ``_build/eval/report.json``
(and ``report.md``). Both GPU jobs hand their tasks over so: the GitHub workflow as
one artifact per task, the Slurm array as one copy of the book per task
(``slurm/``). Two files may come beside them: ``exit-status`` (what ``build.py eval``
returned) and ``slurm.log`` (everything the task printed), whose end the summary
quotes when the report alone cannot say why the task failed.

Each shard freezes its own sections, so a frozen notebook that differs from the
book's comes from one task only; two tasks bringing different versions of one file
is an error, found before anything is written.
"""
from __future__ import annotations

import json
import textwrap
from dataclasses import dataclass
from pathlib import Path

from ..bootstrap.errors import BookError
from ..bootstrap.records import atomic_write
from ..core.layout import Layout
from .report import REPORT_NAME, Verdict
from .tasks import Status

EXIT_STATUS = "exit-status"
"""In a task's folder: the status `build.py eval` exited with."""
TASK_LOG = "slurm.log"
"""In a task's folder: what the task printed (Slurm's output file)."""
LOG_LINES = 30   # of a task's log, quoted when its report cannot say why it failed


class GatherError(BookError):
    """The tasks' results cannot be merged."""


@dataclass(frozen=True)
class TaskOutcome:
    name: str
    """The task's folder name, e.g. ``pytorch-1of2``."""
    folder: Path
    exit_status: int | None
    """What its eval returned; None where no `exit-status` says it."""
    report: dict | None
    """Its report.json; None if it wrote none."""
    problems: tuple[str, ...]
    """Why it failed, one line per section or cause; empty when it succeeded."""
    log_tail: tuple[str, ...] = ()
    """The end of its log, when its report cannot say why it failed."""

    @property
    def failed(self) -> bool:
        return bool(self.problems)


@dataclass(frozen=True)
class GatherResult:
    tasks: tuple[TaskOutcome, ...]
    written: tuple[Path, ...]
    """Frozen notebooks copied into the book (new or changed)."""
    summary: Path

    @property
    def failed(self) -> list[TaskOutcome]:
        return [task for task in self.tasks if task.failed]


def _report(folder: Path, suffix: str) -> Path:
    """The report a task's eval wrote (report.json or report.md)."""
    return Layout(folder).eval / f"{REPORT_NAME}{suffix}"


def _report_of(folder: Path) -> dict | None:
    path = _report(folder, ".json")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _exit_status(folder: Path) -> int | None:
    try:
        return int((folder / EXIT_STATUS).read_text().strip())
    except (OSError, ValueError):
        return None


def _log_tail(folder: Path) -> tuple[str, ...]:
    try:
        lines = (folder / TASK_LOG).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ()
    return tuple(lines[-LOG_LINES:])


def _row_problem(row: dict) -> str:
    where = f"`{row['section']}` [{row['framework']}]"
    if row["status"] == Status.FAILED:
        first, *rest = (row.get("error") or "no message").strip().splitlines()
        trace = ["", "```", *rest, "```"] if rest else []
        return "\n".join([f"{where}: failed — {first}", *trace])
    return f"{where}: {row['verdict']}"


def task_outcome(folder: Path) -> TaskOutcome:
    """What the task that left `folder` did, and why it failed if it did."""
    status, report = _exit_status(folder), _report_of(folder)
    if report is None:
        tail = _log_tail(folder)
        if status is None and not tail:
            why = "never started: no report, exit status or log (cancelled, or stopped " \
                  "before it began)"
        else:
            said = f"exit status {status}" if status is not None else "no exit status"
            why = f"no report: its eval did not run to the end ({said})"
        return TaskOutcome(folder.name, folder, status, None, (why,), tail)
    problems = tuple(_row_problem(row) for row in report["rows"]
                     if not Verdict(row["verdict"]).ok)
    if status and not problems:   # the report is fine but eval failed: a check after it
        return TaskOutcome(folder.name, folder, status, report,
                           (f"exit status {status} after its report",),
                           _log_tail(folder))
    return TaskOutcome(folder.name, folder, status, report, problems)


def frozen_changes(layout: Layout, folders: list[Path]) -> dict[Path, bytes]:
    """The frozen notebooks the tasks bring that the book lacks or has otherwise, by
    their path in the book; a file two tasks bring differently is an error."""
    changes: dict[Path, tuple[Path, bytes]] = {}
    for folder in folders:
        store = Layout(folder).frozen_store
        for path in sorted(p for p in store.rglob("*") if p.is_file()) if store.is_dir() else ():
            target = layout.frozen_store / path.relative_to(store)
            content = path.read_bytes()
            if target.is_file() and target.read_bytes() == content:
                continue
            if target in changes and changes[target][1] != content:
                raise GatherError(
                    f"{changes[target][0]} and {path} are two different results for "
                    f"{layout.shown(target)}: the tasks overlap (was one shard run twice, "
                    "or with another shard count?); keep one and gather again")
            changes[target] = (path, content)
    return {target: content for target, (_, content) in changes.items()}


def gather(layout: Layout, folders: list[Path], summary: Path) -> GatherResult:
    """Merge the frozen results of the task `folders` into the book's ``frozen/`` and
    write the summary to `summary`."""
    tasks = tuple(task_outcome(folder) for folder in folders)
    changes = frozen_changes(layout, [task.folder for task in tasks if task.folder.is_dir()])
    for target, content in changes.items():
        atomic_write(target, content)
    result = GatherResult(tasks, tuple(changes), summary)
    atomic_write(summary, summary_markdown(result, layout))
    return result


def summary_markdown(result: GatherResult, layout: Layout) -> str:
    """The GPU job's summary: one line per task, why the failed ones failed, the frozen
    files written, then every task's report (its titles one level down)."""
    lines = ["# GPU job", "",
             f"{len(result.tasks)} tasks, {len(result.failed)} failed · "
             f"{len(result.written)} frozen notebooks written", "",
             "| task | result | sections |", "| --- | --- | --- |",
             *(f"| {task.name} | {'FAILED' if task.failed else 'ok'} | "
               f"{len(task.report['rows']) if task.report else 0} |" for task in result.tasks)]
    if result.failed:
        lines += ["", "## Failed tasks", *(line for task in result.failed
                                           for line in _failure_lines(task))]
    if result.written:
        lines += ["", "## Frozen notebooks written", "",
                  *(f"- `{layout.shown(path)}`" for path in result.written)]
    for task in result.tasks:
        lines += _report_lines(task)
    return "\n".join(lines) + "\n"


def _failure_lines(task: TaskOutcome) -> list[str]:
    lines = ["", f"### {task.name}", "",
             *("- " + textwrap.indent(problem, "  ").lstrip() for problem in task.problems)]
    return lines + (["", "```", *task.log_tail, "```"] if task.log_tail else [])


def _report_lines(task: TaskOutcome) -> list[str]:
    """The task's report.md, under a title that names the task."""
    report = _report(task.folder, ".md")
    if not report.is_file():
        return []
    title, *body = report.read_text(encoding="utf-8").splitlines()
    return ["", f"## {task.name}: {title.lstrip('# ')}",
            *("#" + line if line.startswith("#") else line for line in body)]
