"""The processes a notebook's code leaves running after its kernel is gone.

A cell may start a process that outlives the kernel: a server, or any child
started in a session of its own (``start_new_session=True``), which the
kernel's shutdown does not reach. Each kernel gets a mark in its environment,
which every process it starts inherits; once the kernel is shut down, a process
that still carries the mark was left behind, and is killed. Found in /proc
(Linux; elsewhere none is found); a process that clears its environment escapes.
"""
from __future__ import annotations

import os
import signal
from dataclasses import dataclass
from pathlib import Path

MARKER = "TABBOOK_KERNEL_RUN"
"""The variable whose value marks the processes of one kernel run."""
PROC = Path("/proc")


@dataclass(frozen=True)
class Leftover:
    pid: int
    command: str
    killed: bool
    """False if the build may not kill it (it changed user)."""


def marked_processes(mark: str) -> list[tuple[int, str]]:
    """The processes whose environment has ``MARKER=mark``: (pid, command line)."""
    wanted = f"{MARKER}={mark}".encode()
    found = []
    for entry in PROC.glob("[0-9]*"):
        try:
            environment = (entry / "environ").read_bytes()
            command = (entry / "cmdline").read_bytes()
        except OSError:   # ended meanwhile, or another user's
            continue
        if wanted in environment.split(b"\0"):
            found.append((int(entry.name),
                          command.replace(b"\0", b" ").decode(errors="replace").strip()))
    return found


def end_leftovers(mark: str) -> tuple[Leftover, ...]:
    """Kill every process still marked with `mark`; what they were."""
    ended = []
    for pid, command in marked_processes(mark):
        try:
            os.kill(pid, signal.SIGKILL)
            killed = True
        except ProcessLookupError:   # it ended by itself meanwhile
            continue
        except PermissionError:
            killed = False
        ended.append(Leftover(pid, command, killed))
    return tuple(ended)
