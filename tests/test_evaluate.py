"""The eval stage without kernels: the plan, the execution record, damaged outputs, the
frozen key, pruning, the console's rendering of the executor's events.

Runtimes here are described, not probed: a plan needs only their versions and
packages, and a plan in which every notebook is cached or has no code starts
no kernel.
"""
from __future__ import annotations

import ast
import copy
import dataclasses
import errno
import io
import os
import signal
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from conftest import CONFIG, REPO, md, write_book
from tabbook.cli.console import Console
from tabbook.cli.main import main
from tabbook.core.config import load_config
from tabbook.core.layout import Layout
from tabbook.execution.devices import PROBE
from tabbook.execution.evaluate import EvalOptions, EvalPlan, evaluate
from tabbook.execution.execute import Executor
from tabbook.execution.frozen import KEY, frozen_key, major_version
from tabbook.execution.kernels import Runtime
from tabbook.execution.plan import Context, plan_tasks
from tabbook.execution.provenance import describe
from tabbook.execution.record import ExecutionRecord, provenance, read_cache, write_cache
from tabbook.execution.tasks import (Execution, Finished, Frozen, Planned, Running, Started,
                                     Status, Task)
from tabbook.notebooks.split import split_section
from tabbook.source.parse import parse_book

SECTION = md("""
    ```{.python .input}
    %load_ext d2lbook.tab
    tab.interact_select(['pytorch'])
    ```
    """, "# Titre", "Du texte.", "```{.python .input}\nx = 6 * 7\nprint(x)\n```")
ONE_TAB = (CONFIG.replace("tabs = pytorch, mxnet, tensorflow", "tabs = pytorch")
           .replace("[library-mxnet]\nlib_file = d2l/mxnet.py\n\n", "")
           .replace("[library-tensorflow]\nlib_file = d2l/tensorflow.py\n\n", ""))


def runtime(version: str = "2.13.0+cpu") -> Runtime:
    return Runtime("pytorch", Path(sys.executable), "tabbook-pytorch", "3.11.7",
                   (f"torch=={version}", "numpy==2.1.0"))


class Book:
    """A one-tab book written in a temporary folder, and the plan of its eval."""

    def __init__(self, root: Path, files: dict[str, str] | None = None, config: str = ONE_TAB):
        self.root = write_book(root, {"chap/sec.md": SECTION, **(files or {})}, config)
        (root / "d2l").mkdir(exist_ok=True)
        (root / "d2l" / "torch.py").write_text("# torch library\n")
        self.config = load_config(root)
        self.layout = Layout(root)

    def tasks(self) -> list[Task]:
        book, problems = parse_book(self.config)
        assert not problems, problems
        return [Task(section, "pytorch", split_section(section, "pytorch"))
                for section in book.pages()]

    def plan(self, version: str = "2.13.0+cpu", force: bool = False,
             full: bool = True) -> EvalPlan:
        context = Context(self.layout, {"pytorch": runtime(version)},
                          {"pytorch": "# torch library\n"}, "cpu", force, frozenset())
        return EvalPlan((), (), {"pytorch": runtime(version)}, {},
                        plan_tasks(context, self.tasks()), None,
                        ("pytorch",) if full else (), jobs=1)

    def evaluate(self, plan: EvalPlan, events: list | None = None):
        return evaluate(self.layout, self.config, plan, EvalOptions(1, False, {}, False),
                        (events if events is not None else []).append)

    def section(self, plan: EvalPlan, name: str = "chap/sec") -> Planned:
        return next(p for p in plan.planned if p.task.section.name == name)

    @property
    def record_path(self) -> Path:
        return self.root / "_build" / "cache" / "pytorch" / "chap" / "sec.json"

    @property
    def executed_path(self) -> Path:
        return self.root / "_build" / "eval" / "pytorch" / "chap" / "sec.ipynb"


def ran_record(planned: Planned, version: str = "2.13.0+cpu") -> ExecutionRecord:
    """The record a kernel would have left for `planned`: `x` printed 42."""
    (cell_id,) = [c.id for c in planned.task.notebook.cells if c.cell_type == "code"]
    return ExecutionRecord(planned.key, 1.5, {"kernelspec": {"name": "tabbook-pytorch"}},
                           provenance(runtime(version), [], {}, [1.5], 1.5),
                           {cell_id: {"execution_count": 1, "execution": {}, "seconds": 1.5,
                                      "outputs": [{"output_type": "stream", "name": "stdout",
                                                   "text": "42\n"}]}})


def test_a_record_reads_back_what_was_written_and_refuses_any_other_shape(tmp_path):
    book = Book(tmp_path)
    record = ran_record(book.section(book.plan()))
    write_cache(book.record_path, record)
    assert read_cache(book.record_path) == record
    good = record.to_json()
    for bad in ([], None, "text", {},
                {k: v for k, v in good.items() if k != "cells"}, {**good, "seconds": "1"},
                {**good, "cells": {"id": {"outputs": "not a list"}}}):
        assert ExecutionRecord.from_json(bad) is None, bad


@pytest.mark.parametrize("damage", [b"\xff\xfe not UTF-8", b"{not json", b"[]", b"null",
                                    b'{"key": "x"}', b""])
def test_a_damaged_cache_record_is_missing_and_made_again(tmp_path, damage):
    book = Book(tmp_path)
    planned = book.section(book.plan())
    write_cache(book.record_path, ran_record(planned))
    assert book.section(book.plan()).outcome is Status.CACHED
    book.record_path.write_bytes(damage)
    again = book.section(book.plan())
    assert again.runs and again.record is None and again.estimate == 0.0
    # A prose page's damaged record is rewritten, without a kernel.
    write_cache(book.record_path, ran_record(planned))
    book.evaluate(book.plan())
    prose = book.root / "_build" / "cache" / "pytorch" / "index.json"
    prose.write_bytes(damage)
    result = book.evaluate(book.plan())
    assert read_cache(prose) is not None
    assert [e.status for e in result.executions] == [Status.NO_CODE, Status.NO_CODE,
                                                     Status.CACHED]


@pytest.mark.parametrize("damage", [b"\xff\xfe not UTF-8", b"{not json", b"[]"])
def test_a_damaged_executed_notebook_is_written_again(tmp_path, damage):
    book = Book(tmp_path)
    write_cache(book.record_path, ran_record(book.section(book.plan())))
    book.evaluate(book.plan())
    good = book.executed_path.read_bytes()
    book.executed_path.write_bytes(damage)
    result = book.evaluate(book.plan())
    assert book.executed_path.read_bytes() == good
    assert result.count(Status.CACHED) == 1 and not result.failed
    row = next(r for r in result.report.rows if r.section == "chap/sec")
    assert row.verdict == "CPU section"


@pytest.mark.parametrize("lang, mark", [("en", "\\[value not computed: y + 1\\]"),
                                        ("fr", "\\[valeur non calculée : y + 1\\]")])
def test_a_value_not_computed_is_marked_in_the_book_s_language(tmp_path, lang, mark):
    """The executed notebook (which the launch notebooks copy) marks a value its run did
    not compute in the words of the book's ``[project] lang``."""
    section = SECTION + "\nIl vaut :eval:`y + 1`.\n"
    book = Book(tmp_path, {"chap/sec.md": section}, ONE_TAB.replace("lang = fr", f"lang = {lang}"))
    planned = book.section(book.plan())
    (cell_id,) = [c.id for c in planned.task.notebook.cells if c.cell_type == "code"]
    record = dataclasses.replace(ran_record(planned), computed={"values": (
        {"after": cell_id, "expression": "y + 1", "error": "NameError: name 'y' is not defined"},)})
    write_cache(book.record_path, record)
    assert book.evaluate(book.plan()).count(Status.CACHED) == 1
    executed = nbformat.read(book.executed_path, as_version=4)
    assert executed.cells[-1].source == f"Il vaut {mark}."


def test_the_plan_is_made_once_and_immutable(tmp_path):
    book = Book(tmp_path)
    plan = book.plan()
    planned = book.section(plan)
    assert planned.runs and len(planned.key) == len(planned.frozen_key) == 64
    with pytest.raises(AttributeError):
        planned.key = "changed"   # no stage fills in another's fields
    assert [p.outcome for p in plan.planned] == [Status.NO_CODE, Status.NO_CODE, None]
    assert plan.queue == (planned,) and plan.kernels == 1


def freeze_from(book: Book, planned: Planned, version: str) -> None:
    """The frozen notebook a GPU node with `version` of the framework would commit."""
    notebook = ran_record(planned, version).merged_into(planned.task.notebook,
                                                          book.config.project.language)
    notebook.metadata["tabbook"][KEY] = frozen_key(planned.task, "# torch library\n", version)
    path = book.root / "frozen" / "pytorch" / "chap" / "sec.ipynb"
    path.parent.mkdir(parents=True)
    nbformat.write(notebook, path)


def test_the_frozen_key_holds_across_releases_of_one_major_version(tmp_path):
    assert major_version("2.11.0+cu130") == major_version("2.13.0") == "2"
    book = Book(tmp_path)
    task = book.section(book.plan()).task
    keys = {version: frozen_key(task, "# torch library\n", version)
            for version in ("2.11.0+cu130", "2.13.0", "2.13.0+cpu", "3.0.0")}
    assert keys["2.11.0+cu130"] == keys["2.13.0"] == keys["2.13.0+cpu"] != keys["3.0.0"]
    assert frozen_key(task, "# edited\n", "2.13.0") != keys["2.13.0"]

    # Frozen on a GPU node with PyTorch 2.11 (CUDA), used here with 2.13 (CPU)...
    freeze_from(book, book.section(book.plan()), "2.11.0+cu130")
    planned = book.section(book.plan("2.13.0+cpu"))
    assert planned.outcome is Status.FROZEN and planned.frozen.state is Frozen.USED
    result = book.evaluate(book.plan("2.13.0+cpu"))
    assert result.count(Status.FROZEN) == 1
    # ...and readers are told the exact release that computed the outputs.
    executed = nbformat.read(book.executed_path, as_version=4)
    assert "PyTorch 2.11.0+cu130" in describe("pytorch", executed, book.config.project.language)
    # A new major version: the result is out of date, the section runs here.
    stale = book.section(book.plan("3.0.0"))
    assert stale.runs and stale.frozen.state is Frozen.STALE
    assert stale.frozen.provenance["framework_version"] == "2.11.0+cu130"


def test_a_full_eval_removes_what_removed_sections_left_and_a_partial_one_keeps_it(tmp_path):
    book = Book(tmp_path)
    write_cache(book.record_path, ran_record(book.section(book.plan())))
    book.evaluate(book.plan())
    data = book.executed_path.parent / "data.json"   # what the code saved beside its notebook
    data.write_text("{}")
    (book.root / "chapters" / "chap" / "index.md").write_text("# Chapitre\n")
    (book.root / "chapters" / "chap" / "sec.md").unlink()
    assert not book.evaluate(book.plan(full=False)).removed
    assert book.executed_path.exists() and book.record_path.exists()
    result = book.evaluate(book.plan())
    assert set(result.removed) == {book.executed_path, book.record_path}
    assert not book.executed_path.exists() and not book.record_path.exists() and data.exists()
    assert (book.root / "_build" / "eval" / "pytorch" / "index.ipynb").exists()


def test_the_executor_events_are_rendered_by_the_console(tmp_path, monkeypatch):
    book = Book(tmp_path)
    planned = book.section(book.plan())
    out = io.StringIO()
    console = Console(out, io.StringIO())
    console.execution_event(Started(planned.task, (0, 1)))
    console.execution_event(Running((("chap/sec [pytorch]", 3.0),)))   # not every second
    console.execution_event(Finished(Execution(planned, Status.RAN, 2.5)))
    console.execution_event(Finished(Execution(planned, Status.FAILED, 1.0, "  sec.md:3 boom")))
    assert out.getvalue().split("\n") == [
        "start   chap/sec [pytorch] on GPU 0,1", "done    chap/sec [pytorch] in 2.5 s",
        "FAILED  chap/sec [pytorch] after 1.0 s", "  sec.md:3 boom", ""]
    monkeypatch.setattr(console, "_last_running", -1e9)
    console.execution_event(Running((("chap/sec [pytorch]", 31.0),)))
    assert out.getvalue().endswith("running: chap/sec [pytorch] 31 s\n")

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True
    live = Console(Terminal(), io.StringIO())
    live.execution_event(Running((("chap/sec [pytorch]", 3.0),)))
    assert live.out.getvalue() == "\r\x1b[Krunning: chap/sec [pytorch] 3 s"


def test_the_execution_layer_prints_nothing():
    """Stages return results or emit events; the console alone writes to the terminal."""
    printing = []
    for path in sorted((REPO / "tabbook" / "execution").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Name) and node.id == "print" or isinstance(
                    node, ast.Attribute) and node.attr in ("stdout", "stderr") and isinstance(
                    node.value, ast.Name) and node.value.id == "sys":
                printing.append(f"{path.name}:{node.lineno}")
    assert not printing


@pytest.mark.parametrize("jobs", ["0", "-1"])
def test_fewer_than_one_kernel_is_a_usage_error(tmp_path, capsys, jobs):
    book = Book(tmp_path)
    assert main(["eval", "-j", jobs], book.root) == 1
    assert f"error: -j {jobs}: the number of kernels at once must be at least 1" in \
        capsys.readouterr().err
    assert not (book.root / "_build").exists()


def refusing(real, refused: Path):
    """`real` (an atomic writer), except that writing `refused` finds the disk full."""
    def write(path: Path, data) -> None:
        if path == refused:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        real(path, data)
    return write


def test_a_result_the_disk_refuses_fails_that_notebook_at_its_file(tmp_path, monkeypatch):
    """A full disk while saving a result fails that notebook, naming the file and how to
    fix it; it keeps its previous result, and the other notebooks are written."""
    import tabbook.bootstrap.records as records
    import tabbook.core.files as files

    book = Book(tmp_path)
    planned = book.section(book.plan())
    # A kernel's result: its cache record cannot be written, nor then its notebook.
    monkeypatch.setattr(records, "atomic_write", refusing(records.atomic_write,
                                                          book.record_path))
    notebook = copy.deepcopy(planned.task.notebook)   # as the kernel ran it: the probe last
    notebook.cells.append(nbformat.v4.new_code_cell(PROBE))
    executor = Executor(book.layout, {"pytorch": runtime()}, [], jobs=1, timeout=10,
                        language=book.config.project.language)
    execution = executor._saved(planned, notebook, [], 1.5)
    assert execution.status is Status.FAILED and execution.record is None
    assert execution.message == (
        f"  chapters/chap/sec.md [pytorch]: its result could not be saved: cannot write "
        f"{book.record_path}: no space left on device — free some space on that disk (or "
        "build in a folder on another one), then run the command again")
    assert not book.record_path.exists() and not book.executed_path.exists()
    monkeypatch.undo()

    # A cached result: its executed notebook cannot be written.
    write_cache(book.record_path, ran_record(planned))
    monkeypatch.setattr(files, "atomic_write", refusing(files.atomic_write,
                                                        book.executed_path))
    result = book.evaluate(book.plan())
    assert [e.status for e in result.executions] == [Status.NO_CODE, Status.NO_CODE,
                                                     Status.FAILED]
    assert result.failed and f"cannot write {book.executed_path}: no space left on device" \
        in result.executions[-1].message
    assert (book.root / "_build" / "eval" / "pytorch" / "index.ipynb").exists()
    row = next(r for r in result.report.rows if r.section == "chap/sec")
    assert row.status is Status.FAILED


def test_a_bug_in_the_executor_is_raised_not_swallowed(tmp_path, monkeypatch):
    """An unexpected error in a worker thread ends the eval with its traceback (a bug of
    the build), instead of dropping its notebooks and passing."""
    book = Book(tmp_path)
    planned = book.section(book.plan())
    executor = Executor(book.layout, {"pytorch": runtime()}, [], jobs=1, timeout=10,
                        language=book.config.project.language)

    def broken(*_):
        raise RuntimeError("a bug")
    monkeypatch.setattr(executor, "_execute", broken)
    with pytest.raises(RuntimeError, match="a bug"):
        executor.run([planned, planned])


def test_a_process_left_behind_by_a_kernel_is_found_by_its_mark_and_killed():
    from tabbook.execution.leftovers import MARKER, Leftover, end_leftovers

    mark = "test-" + os.urandom(8).hex()
    child = subprocess.Popen(["sleep", "600"], start_new_session=True,
                             env=dict(os.environ, **{MARKER: mark}))
    other = subprocess.Popen(["sleep", "600"], env=dict(os.environ, **{MARKER: mark + "0"}))
    try:
        assert end_leftovers(mark) == (Leftover(child.pid, "sleep 600", killed=True),)
        assert child.wait(timeout=10) == -signal.SIGKILL
        assert other.poll() is None and end_leftovers(mark) == ()
    finally:
        child.kill()
        other.kill()
