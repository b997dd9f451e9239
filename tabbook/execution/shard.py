"""Sharding: the K-th of N balanced parts of the notebooks to execute (a CI matrix).

Every runner of a matrix must cut the same parts from the same commit, so the
cut depends only on what is committed: the selected notebooks, in book order,
and the durations their frozen notebooks recorded. A notebook with none is
estimated from its code cells at the mean recorded time per cell. Parts are
filled longest first, each notebook going to the part with the least work so
far (the LPT rule), ties to the lowest part.
"""
from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Callable, Sequence, TypeVar

Item = TypeVar("Item")
DEFAULT_CELL_SECONDS = 1.0   # per code cell, when nothing was ever recorded


@dataclass(frozen=True)
class Shard:
    index: int
    """K, from 1."""
    count: int
    """N."""

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def parse_shard(text: str) -> Shard:
    """``K/N`` with 1 ≤ K ≤ N (for argparse's ``type``)."""
    index, slash, count = text.partition("/")
    if not (slash and index.isdigit() and count.isdigit()):
        raise argparse.ArgumentTypeError(f"{text!r} is not K/N, e.g. 1/2")
    shard = Shard(int(index), int(count))
    if not 1 <= shard.index <= shard.count:
        raise argparse.ArgumentTypeError(f"{text}: K must be between 1 and N, e.g. 1/{count}")
    return shard


def estimates(recorded: Sequence[float | None], code_cells: Sequence[int]) -> list[float]:
    """Seconds per notebook: its recorded duration, else its code cells at the mean
    recorded seconds per cell."""
    known = [(seconds, cells) for seconds, cells in zip(recorded, code_cells)
             if seconds is not None and cells]
    per_cell = (sum(s for s, _ in known) / sum(c for _, c in known)) if known \
        else DEFAULT_CELL_SECONDS
    return [seconds if seconds is not None else cells * per_cell
            for seconds, cells in zip(recorded, code_cells)]


def partition(items: Sequence[Item], seconds: Sequence[float], count: int) -> list[list[Item]]:
    """`count` parts of `items` with balanced total `seconds`, each in the items' order."""
    loads = [0.0] * count
    parts: list[list[int]] = [[] for _ in range(count)]
    # Longest first; among equals, book order: the same cut on every machine.
    for position in sorted(range(len(items)), key=lambda i: (-seconds[i], i)):
        lightest = min(range(count), key=lambda k: (loads[k], k))
        parts[lightest].append(position)
        loads[lightest] += seconds[position]
    return [[items[i] for i in sorted(part)] for part in parts]


def shard_items(items: Sequence[Item], shard: Shard, recorded: Callable[[Item], float | None],
                code_cells: Callable[[Item], int]) -> tuple[list[Item], list[float]]:
    """The items of `shard`, and the estimated seconds of every part."""
    seconds = estimates([recorded(item) for item in items], [code_cells(i) for i in items])
    parts = partition(items, seconds, shard.count)
    position = {id(item): i for i, item in enumerate(items)}
    loads = [sum(seconds[position[id(item)]] for item in part) for part in parts]
    return parts[shard.index - 1], loads
