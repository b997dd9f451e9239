"""Why a notebook failed, said at the .md line of the failing cell.

``path:LINE [tab] cell N: reason``, with the last lines of the traceback, or of
the kernel's own output when the kernel died; ``path [tab]: …`` when its result
could not be saved.
"""
from __future__ import annotations

import re
from typing import IO

from ..bootstrap.errors import machine_error
from ..core.model import METADATA_KEY
from ..notebooks.features import added_cell
from .tasks import Task

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
TRACEBACK_LINE = re.compile(r"(?:Cell In\[\d+\]|<cell line: \d+>|input-\d+-\w+), line (\d+)")
SHOWN_LINES = 6


def strip_ansi(text: str) -> str:
    return ANSI.sub("", text)


def kernel_log(log: IO[str]) -> list[str]:
    """The last lines the kernel wrote to its log file."""
    log.flush()
    log.seek(0)
    return [line for line in log.read().split("\n") if line.strip()][-SHOWN_LINES:]


def kernel_errors() -> tuple[type[Exception], ...]:
    """What running a notebook raises when its code or its kernel fails: a cell's error, a
    timeout, a kernel that died, did not start or is not installed (the kernel manager's
    RuntimeError, OSError, NoSuchKernel), its sockets closed under it. Anything else comes
    from the build's own code: a bug, reported as one."""
    from jupyter_client.kernelspec import NoSuchKernel
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError
    from zmq import ZMQError

    return (CellExecutionError, CellTimeoutError, DeadKernelError, NoSuchKernel, RuntimeError,
            OSError, ZMQError)


def reason_of(error: Exception, timeout: int) -> tuple[str | None, bool]:
    """What the error says (None for a cell's own error, read from its outputs), and
    whether the kernel's log tells more (it died, or failed to start)."""
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

    if isinstance(error, CellTimeoutError):
        return (f"the cell ran longer than the {timeout} s timeout "
                "([execute] timeout in config.ini)"), False
    if isinstance(error, DeadKernelError):
        return "the kernel died (crash, os._exit or out of memory)", True
    if isinstance(error, CellExecutionError):
        return None, False
    return f"{type(error).__name__}: {error}", True


def failure_message(task: Task, notebook, index: int | None, error: Exception, timeout: int,
                    log: list[str]) -> str:
    """``path:LINE [tab] cell N: reason``, then the last lines of the traceback (a cell's
    error) or of the kernel's log (a kernel that died or did not start).

    `index` is the failing cell's (None when no cell started)."""
    cell = notebook.cells[index] if index is not None else None
    lines = (cell.metadata.get(METADATA_KEY, {}).get("lines") or [0]) if cell else [0]
    reason, logged = reason_of(error, timeout)
    line, details = lines[0], (log if logged else [])
    if reason is None:
        reason, line, details = _described_error(cell, lines, error)
    where = f"  {task.section.display_path}"
    if index is None:
        return f"{where} [{task.tab}]: {reason}" + "".join(f"\n    | {d}" for d in details)
    number = sum(1 for c in notebook.cells[:index + 1]
                 if c.cell_type == "code" and not added_cell(c))
    return (f"{where}:{line} [{task.tab}] cell {number}: {reason}"
            + "".join(f"\n    | {d}" for d in details))


def save_failure_message(task: Task, error: OSError) -> str:
    """``path [tab]: its result could not be saved: cannot write FILE: why``, with how to
    fix it when the machine refused (a full disk, a read-only folder)."""
    why = machine_error(error) or (f"cannot write {error.filename2 or error.filename}: "
                                   f"{error.strerror or error}")
    return f"  {task.section.display_path} [{task.tab}]: its result could not be saved: {why}"


def _described_error(cell, lines: list[int], error: Exception) -> tuple[str, int, list[str]]:
    """The error's name and value, the .md line it happened at, the traceback's last lines."""
    outputs = [o for o in (cell or {}).get("outputs", []) if o.get("output_type") == "error"]
    if not outputs:
        return _error_without_traceback(cell, error), lines[0], _stderr_lines(cell)
    traceback = strip_ansi("\n".join(outputs[-1].traceback)).strip().split("\n")
    return (f"{outputs[-1].ename}: {outputs[-1].evalue}", _traceback_line(traceback, lines),
            [text for text in traceback if text.strip()][-SHOWN_LINES:])


def _error_without_traceback(cell, error: Exception) -> str:
    """A cell error with no traceback in the cell (IPython's UsageError, for a magic it
    refuses, only writes to stderr): the error's own name and value."""
    if getattr(error, "ename", ""):
        return f"{error.ename}: {error.evalue}"
    return strip_ansi(str(error)).strip().split("\n")[-1]


def _stderr_lines(cell) -> list[str]:
    """The last lines the cell wrote to stderr."""
    written = "".join(strip_ansi(o.get("text", "")) for o in (cell or {}).get("outputs", [])
                      if o.get("name") == "stderr")
    return [line for line in written.split("\n") if line.strip()][-SHOWN_LINES:]


def _traceback_line(traceback: list[str], lines: list[int]) -> int:
    """The .md line of the innermost traceback line that is in the cell itself."""
    line = lines[0]
    for text in traceback:
        found = TRACEBACK_LINE.search(text)
        if found and int(found.group(1)) <= len(lines):
            line = lines[int(found.group(1)) - 1]
    return line
