"""forked_map: the same results as map, in order, from forked workers only when it pays."""
from __future__ import annotations

import os
import threading

import pytest

from tabbook.core import parallel
from tabbook.core.parallel import forked_map


@pytest.fixture
def two_cores(monkeypatch):
    monkeypatch.setattr(parallel.os, "sched_getaffinity", lambda pid: {0, 1})


def test_many_items_are_computed_by_forked_workers_in_order(two_cores):
    squares = [n * n for n in range(40)]   # what the workers read: inherited, not sent
    results = list(forked_map(lambda index: (squares[index], os.getpid()), 40, minimum=8))
    assert [value for value, _ in results] == squares
    workers = {pid for _, pid in results}
    assert os.getpid() not in workers and 1 <= len(workers) <= 2


def test_few_items_are_computed_in_this_process(two_cores):
    seen = []
    results = list(forked_map(lambda index: seen.append(index) or index * 2, 5, minimum=8))
    assert results == [0, 2, 4, 6, 8] and seen == [0, 1, 2, 3, 4]


def test_one_core_computes_in_this_process(monkeypatch):
    monkeypatch.setattr(parallel.os, "sched_getaffinity", lambda pid: {0})
    assert {pid for pid in forked_map(lambda index: os.getpid(), 40, minimum=8)} == {os.getpid()}


def test_no_fork_while_another_thread_runs(two_cores):
    """A fork would copy the locks the other thread holds, and never release them."""
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        pids = set(forked_map(lambda index: os.getpid(), 40, minimum=8))
    finally:
        stop.set()
        other.join()
    assert pids == {os.getpid()}


def test_a_worker_error_reaches_the_caller(two_cores):
    def work(index: int) -> int:
        if index == 17:
            raise ValueError("item 17 is wrong")
        return index

    with pytest.raises(ValueError, match="item 17 is wrong"):
        list(forked_map(work, 40, minimum=8))
    assert parallel._WORK is None   # nothing left for a later call's workers
