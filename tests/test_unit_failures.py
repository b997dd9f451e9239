"""Unit tests of execution/failures.py: why a notebook failed, at the .md line of the
failing cell; why its result could not be saved."""
from __future__ import annotations

import errno
import io
import os
from pathlib import Path

import nbformat
from jupyter_client.kernelspec import NoSuchKernel
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError
from zmq import ZMQError

from tabbook.core.model import METADATA_KEY, Section
from tabbook.execution.failures import (failure_message, kernel_errors, kernel_log,
                                        save_failure_message)
from tabbook.execution.tasks import Task

v4 = nbformat.v4
TRACEBACK = ["\x1b[0;31m---------\x1b[0m", "\x1b[0;31mZeroDivisionError\x1b[0m  Traceback",
             "Cell \x1b[0;32mIn[2], line 2\x1b[0m", "      1 x = 1", "----> 2 y = x / 0",
             "\x1b[0;31mZeroDivisionError\x1b[0m: division by zero"]


def code_cell(source: str, first_line: int, outputs=()) -> nbformat.NotebookNode:
    """A split notebook's code cell: each source line knows its .md line."""
    cell = v4.new_code_cell(source, outputs=list(outputs))
    count = len(source.split("\n"))
    cell.metadata[METADATA_KEY] = {"lines": list(range(first_line, first_line + count))}
    return cell


def task() -> Task:
    """A notebook: prose, a cell, an :eval: evaluating cell, the failing cell at .md line 20."""
    failing = code_cell("x = 1\ny = x / 0\nz = 2", 20, [v4.new_output(
        "error", ename="ZeroDivisionError", evalue="division by zero", traceback=TRACEBACK)])
    evaluating = v4.new_code_cell("print(x)", metadata={METADATA_KEY: {"inline": [0]}})
    notebook = v4.new_notebook(cells=[v4.new_markdown_cell("# T"), code_cell("x = 1", 10),
                                      evaluating, failing])
    return Task(Section(Path("chap/sec.md"), "chapters/chap/sec.md"), "pytorch", notebook)


def test_kernel_errors_are_those_of_code_and_kernels_only():
    errors = kernel_errors()
    for error in (CellExecutionError("", "E", "v"), CellTimeoutError("t"), DeadKernelError("d"),
                  NoSuchKernel("python3"), RuntimeError("r"), OSError("o"), ZMQError()):
        assert isinstance(error, errors)
    assert not isinstance(KeyError("bug"), errors)
    assert not isinstance(ValueError("bug"), errors)


def test_a_cells_error_is_said_at_the_md_line_of_its_traceback():
    work = task()
    message = failure_message(work, work.notebook, 3, CellExecutionError("", "", ""), 60, ["log"])
    # Cell 2: the evaluating cell is not counted; line 2 of the cell is .md line 21.
    assert message == (
        "  chapters/chap/sec.md:21 [pytorch] cell 2: ZeroDivisionError: division by zero\n"
        "    | ---------\n"
        "    | ZeroDivisionError  Traceback\n"
        "    | Cell In[2], line 2\n"
        "    |       1 x = 1\n"
        "    | ----> 2 y = x / 0\n"
        "    | ZeroDivisionError: division by zero")


def test_an_error_without_traceback_gives_its_name_and_stderr():
    work = task()
    work.notebook.cells[3].outputs = [v4.new_output("stream", name="stderr",
                                                    text="UsageError: bad magic\n")]
    error = CellExecutionError("", "UsageError", "Cell magic `%%tabs` not found.")
    assert failure_message(work, work.notebook, 3, error, 60, []) == (
        "  chapters/chap/sec.md:20 [pytorch] cell 2: UsageError: Cell magic `%%tabs` not "
        "found.\n    | UsageError: bad magic")


def test_a_timeout_and_a_dead_kernel_are_said_at_the_cells_first_line():
    work = task()
    assert failure_message(work, work.notebook, 1, CellTimeoutError("x"), 60, ["log"]) == (
        "  chapters/chap/sec.md:10 [pytorch] cell 1: the cell ran longer than the 60 s timeout "
        "([execute] timeout in config.ini)")
    assert failure_message(work, work.notebook, 3, DeadKernelError("x"), 60,
                           ["Killed", "oom"]) == (
        "  chapters/chap/sec.md:20 [pytorch] cell 2: the kernel died (crash, os._exit or out of "
        "memory)\n    | Killed\n    | oom")


def test_a_kernel_that_did_not_start_is_said_at_the_notebook():
    work = task()
    assert failure_message(work, work.notebook, None, NoSuchKernel("tabbook-pytorch"), 60,
                           ["no such kernel"]) == (
        "  chapters/chap/sec.md [pytorch]: NoSuchKernel: No such kernel named tabbook-pytorch\n"
        "    | no such kernel")


def test_kernel_log_gives_the_last_lines_written():
    log = io.StringIO()
    log.write("\n".join(f"line {i}" for i in range(10)) + "\n\n  \n")
    assert kernel_log(log) == [f"line {i}" for i in range(4, 10)]


def test_save_failure_message_says_how_to_fix_a_refusal():
    work = task()
    full = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), "/b/cache.json")
    assert save_failure_message(work, full) == (
        "  chapters/chap/sec.md [pytorch]: its result could not be saved: cannot write "
        "/b/cache.json: no space left on device — free some space on that disk (or build in "
        "a folder on another one), then run the command again")
    # A move names its source first: the file written is the second one.
    long = OSError(errno.ENAMETOOLONG, "File name too long", "/tmp/x", None, "/b/long.ipynb")
    assert save_failure_message(work, long) == (
        "  chapters/chap/sec.md [pytorch]: its result could not be saved: cannot write "
        "/b/long.ipynb: File name too long")
