"""`build.py gather`, the GPU job's last step: the tasks' frozen results merged into the
book's frozen/, one summary naming the failed tasks and why.

The tasks here are folders written by hand in the shape a task leaves (its report.json
and report.md, frozen/, exit-status, slurm.log); tests/test_slurm.py gathers real ones.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO
from tabbook.core.layout import Layout
from tabbook.execution.gather import GatherError, gather, task_outcome


def row(section: str, tab: str, status: str = "ran", verdict: str = "GPU",
        error: str = "") -> dict:
    return {"section": section, "framework": tab, "status": status, "verdict": verdict,
            "error": error}


def task(root: Path, name: str, rows: list[dict] | None, frozen: dict[str, str] = {},
         status: int | None = 0, log: str = "") -> Path:
    """A task's folder: its report (None: none), frozen files, exit status and log."""
    folder = root / "tasks" / name
    folder.mkdir(parents=True)
    if rows is not None:
        (folder / "_build" / "eval").mkdir(parents=True)
        (folder / "_build" / "eval" / "report.json").write_text(json.dumps({"rows": rows}))
        (folder / "_build" / "eval" / "report.md").write_text(
            f"# GPU execution report\n\n## Sections\n\n{name}'s table\n")
    for path, text in frozen.items():
        (folder / "frozen" / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / "frozen" / path).write_text(text)
    if status is not None:
        (folder / "exit-status").write_text(f"{status}\n")
    if log:
        (folder / "slurm.log").write_text(log)
    return folder


def test_frozen_results_are_merged_and_failures_named(tmp_path):
    book = tmp_path / "book"
    (book / "frozen" / "pytorch" / "chap").mkdir(parents=True)
    (book / "frozen" / "pytorch" / "chap" / "old.ipynb").write_text("old")
    (book / "frozen" / "pytorch" / "chap" / "same.ipynb").write_text("same")
    good = task(tmp_path, "pytorch-1of2", [row("chap/a", "pytorch")],
                {"pytorch/chap/a.ipynb": "a", "pytorch/chap/same.ipynb": "same",
                 "pytorch/chap/old.ipynb": "new"})
    failed = task(tmp_path, "pytorch-2of2",
                  [row("chap/b", "pytorch"),
                   row("chap/boom", "pytorch", "failed", "failed",
                       "  chapters/chap/boom.md:12 [pytorch] cell 1: ZeroDivisionError\n"
                       "    | ----> 2 1 / 0")],
                  {"pytorch/chap/b.ipynb": "b"}, status=1)
    blind = task(tmp_path, "mxnet-1of2", [row("chap/a", "mxnet", "skipped",
                                              "framework sees no GPU")], status=1)
    crashed = task(tmp_path, "mxnet-2of2", None, status=None,
                   log="début\nModuleNotFoundError: No module named 'mxnet'\n")
    result = gather(Layout(book), [good, failed, blind, crashed, tmp_path / "tasks" / "tf-1of2"],
                    book / "summary.md")

    assert sorted(p.relative_to(book).as_posix() for p in result.written) == [
        "frozen/pytorch/chap/a.ipynb", "frozen/pytorch/chap/b.ipynb",
        "frozen/pytorch/chap/old.ipynb"]
    assert (book / "frozen" / "pytorch" / "chap" / "old.ipynb").read_text() == "new"
    assert [task.name for task in result.failed] == [
        "pytorch-2of2", "mxnet-1of2", "mxnet-2of2", "tf-1of2"]
    summary = (book / "summary.md").read_text()
    assert "5 tasks, 4 failed · 3 frozen notebooks written" in summary
    assert "| pytorch-1of2 | ok | 1 |" in summary and "| pytorch-2of2 | FAILED | 2 |" in summary
    assert ("- `chap/boom` [pytorch]: failed — chapters/chap/boom.md:12 [pytorch] cell 1: "
            "ZeroDivisionError\n\n  ```\n      | ----> 2 1 / 0\n  ```") in summary
    assert "- `chap/a` [mxnet]: framework sees no GPU" in summary
    assert ("- no report: its eval did not run to the end (no exit status)\n\n```\ndébut\n"
            "ModuleNotFoundError: No module named 'mxnet'\n```") in summary
    assert "### tf-1of2\n\n- never started: no report, exit status or log" in summary
    # Each report follows, its titles one level down.
    assert "## pytorch-1of2: GPU execution report\n\n### Sections\n\npytorch-1of2's table" \
        in summary


def test_an_eval_that_failed_after_a_good_report_quotes_its_log(tmp_path):
    folder = task(tmp_path, "pytorch-1of1", [row("chap/a", "pytorch")], status=1,
                  log="eval: long output warning is an error (--strict)\n")
    outcome = task_outcome(folder)
    assert outcome.problems == ("exit status 1 after its report",)
    assert outcome.log_tail == ("eval: long output warning is an error (--strict)",)


def test_two_tasks_with_one_file_otherwise_write_nothing(tmp_path):
    book = tmp_path / "book"
    book.mkdir()
    first = task(tmp_path, "pytorch-1of2", [], {"pytorch/chap/a.ipynb": "un"})
    second = task(tmp_path, "pytorch-2of2", [], {"pytorch/chap/a.ipynb": "deux",
                                                  "pytorch/chap/b.ipynb": "b"})
    with pytest.raises(GatherError, match=r"two different results for "
                                          r"frozen/pytorch/chap/a\.ipynb: the tasks overlap"):
        gather(Layout(book), [first, second], book / "summary.md")
    assert not (book / "frozen").exists() and not (book / "summary.md").exists()


def test_the_command_prints_the_failed_tasks_and_the_summary(tmp_path):
    book = tmp_path / "book"
    book.mkdir()
    folder = task(tmp_path, "pytorch-1of1", None, status=2)
    result = subprocess.run([sys.executable, str(REPO / "build.py"), "-C", str(book), "gather",
                             str(folder)], capture_output=True, text=True,
                            env=dict(os.environ, TABBOOK_USE_CURRENT_PYTHON="1"))
    # Gathered: status 0 even with failed tasks, which the summary and stderr name.
    assert result.returncode == 0, result.stderr
    assert "task pytorch-1of1 failed: no report: its eval did not run to the end " \
           "(exit status 2)" in result.stderr
    assert "gathered 1 task (1 failed): 0 frozen notebooks written; summary in " \
           "_build/gpu-job/summary.md" in result.stdout
    assert (book / "_build" / "gpu-job" / "summary.md").is_file()
