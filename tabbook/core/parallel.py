"""Work spread over the machine's cores by forked workers, when there is enough of it.

A first command on a large book parses hundreds of files and writes hundreds of
notebooks: pure Python, one core each. Workers are forked, so that they inherit what
the work reads (the book, the config, the caches) instead of receiving it pickled;
only each item's index goes to them, and only its result comes back.
"""
from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from typing import TypeVar

Result = TypeVar("Result")

_WORK: Callable[[int], object] | None = None
"""What the forked workers run: set just before they are forked."""


def forked_map(work: Callable[[int], Result], count: int, minimum: int) -> Iterator[Result]:
    """`work(0)`, …, `work(count - 1)`, in order, on every core when there are at least
    `minimum` items; in this process when there are fewer (starting the workers would
    cost more than it saves), on one core, or while other threads run (a fork copies
    the locks they hold, not the threads that would release them)."""
    cores = len(os.sched_getaffinity(0))
    if count < minimum or cores < 2 or threading.active_count() > 1:
        yield from map(work, range(count))
        return
    global _WORK
    _WORK = work
    context = multiprocessing.get_context("fork")
    try:
        with ProcessPoolExecutor(max_workers=min(cores, count), mp_context=context) as pool:
            yield from pool.map(_run, range(count), chunksize=2)
    finally:
        _WORK = None


def _run(index: int):
    return _WORK(index)
