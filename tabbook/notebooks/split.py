"""Split stage: one notebook per section and framework tab.

A notebook holds what a student of that framework needs and nothing else: the
cells of its tab and of `all`, its prose, the tab.selected branches resolved,
no `%%tab` line, no tab declaration cell, no slide marks. Each code cell keeps
the .md lines it comes from, so later stages can point errors at the source.
A Markdown cell whose prose has slide marks keeps them, for the slides only, in its
``tabbook`` metadata (`SLIDES_KEY`: [opener, text] of each, in order).

Every cell gets an identity that survives prose edits (see `CellIds`), as its
nbformat id and, for code cells, in its ``tabbook`` metadata beside the lines:
the execution cache and the HTML find a cell's outputs by it, never by .md line.
"""
from __future__ import annotations

import collections
import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import nbformat

from ..core.files import write_notebook_if_changed
from ..core.layout import Layout
from ..core.model import METADATA_KEY, CellKind, Section
from ..core.parallel import forked_map
from ..source.pycode import cell_code
from ..source.slide_marks import SLIDES_KEY, book_text, valid_slide_marks
from ..features.conditions import CELL_KEY as CONDITION
from .features import annotations


class CellIds:
    """The cell ids of one notebook: ``<kind>-<hash of the text>-<occurrence>``.

    Derived from the text alone, a code cell's id changes only when its code
    does, so inserting prose moves no output; the occurrence number tells
    identical cells of a notebook apart.
    """

    def __init__(self) -> None:
        self._seen: collections.Counter = collections.Counter()

    def __call__(self, kind: str, text: str) -> str:
        digest = hashlib.sha256(text.encode()).hexdigest()[:12]
        self._seen[kind, digest] += 1
        return f"{kind}-{digest}-{self._seen[kind, digest]}"


@dataclass(frozen=True)
class CodeCell:
    """A code cell of one tab's notebook."""
    source: str
    """The code for the tab: tab.selected resolved, no %%tab line."""
    lines: list[int]
    """The .md line of each line of `source`."""
    id: str


def code_cells(section: Section, tab: str) -> dict[int, CodeCell]:
    """The code cells of `section`'s notebook for `tab`, by position in ``section.cells``.

    The one place code cell ids are given: the split writes them, the HTML
    looks the executed cells up with them.
    """
    ids = CellIds()
    cells = {}
    for position, cell in enumerate(section.cells):
        if cell.kind is not CellKind.CODE or not cell.in_tab(tab):
            continue
        resolved = cell_code(cell, tab)
        source = resolved.text.strip("\n")
        if not source.strip():
            continue
        first = next(i for i, line in enumerate(resolved.lines) if line.strip())
        lines = [cell.line + o for o in resolved.origins[first:]][:source.count("\n") + 1]
        cells[position] = CodeCell(source, lines, ids("code", source))
    return cells


def _fence(info: str, body: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    marker = "`" * max(3, longest + 1)
    return f"{marker}{info}\n{body}\n{marker}"


def split_section(section: Section, tab: str) -> nbformat.NotebookNode:
    """The notebook of `section` for `tab` (the caller checks the section has that tab)."""
    code = code_cells(section, tab)
    ids = CellIds()
    cells = []
    markdown: list[str] = []
    marks: list[list[str]] = []   # the slide marks of the prose in `markdown`
    condition = ""   # of the prose in `markdown`: a conditional block gets cells of its own

    # Cells are built as plain dicts: nbformat's constructors validate each cell,
    # which the no-op build would pay for every notebook; writing validates anyway.
    def flush_markdown() -> None:
        if markdown:
            text = "\n\n".join(markdown)
            metadata = {CONDITION: condition} if condition else {}
            if marks:
                metadata[SLIDES_KEY] = list(marks)
            cells.append({"cell_type": "markdown", "id": ids("md", text), "source": text,
                          "metadata": {METADATA_KEY: metadata} if metadata else {}})
            markdown.clear()
            marks.clear()

    for position, cell in enumerate(section.cells):
        if not cell.in_tab(tab):
            continue
        if cell.kind is not CellKind.CODE and cell.condition != condition:
            flush_markdown()
            condition = cell.condition
        if cell.kind is CellKind.PROSE:
            markdown.append(book_text(cell.source)[0])
            marks.extend([mark.opener, mark.text] for mark in valid_slide_marks(cell.source))
        elif cell.kind is CellKind.DISPLAY:
            markdown.append(_fence(cell.fence, cell.source))
        elif position in code:
            flush_markdown()
            code_cell = code[position]
            cells.append({"cell_type": "code", "id": code_cell.id, "execution_count": None,
                          "metadata": {METADATA_KEY: {"id": code_cell.id,
                                                      "lines": code_cell.lines}},
                          "outputs": [], "source": code_cell.source})
    flush_markdown()
    return nbformat.from_dict({
        "nbformat": nbformat.v4.nbformat, "nbformat_minor": nbformat.v4.nbformat_minor,
        "cells": cells,
        "metadata": {
            "kernelspec": {"name": "python3", "display_name": "Python 3 (ipykernel)",
                           "language": "python"},
            "language_info": {"name": "python"},
            METADATA_KEY: {"tab": tab, "source": section.display_path, "title": section.title,
                           "required_libs": list(section.required_libs),
                           "gpus": section.gpus,
                           **annotations(section, tab, code)},
        }})


PARALLEL_FROM = 32
"""Fewer sections than this are written in the command's own process: starting the
workers would cost more than it saves."""


@dataclass
class SplitResult:
    written: list[Path]
    unchanged: list[Path]
    missing_tabs: list[tuple[Section, str]]
    removed: list[Path]


def _write_section(section: Section, tabs: tuple[str, ...], layout: Layout,
                   split: Callable[[Section, str], nbformat.NotebookNode]
                   ) -> list[tuple[str, Path, bool]]:
    """Each notebook of the section among `tabs`, and whether it was written."""
    return [(tab, path, write_notebook_if_changed(path, split(section, tab)))
            for tab in tabs if tab in section.tabs
            for path in [layout.notebook(tab, section)]]


def write_notebooks(sections: list[Section], tabs: tuple[str, ...],
                    layout: Layout, progress=None, prune: bool = False,
                    split: Callable[[Section, str], nbformat.NotebookNode] = split_section
                    ) -> SplitResult:
    """Write the notebooks of `sections` for `tabs` where `layout` puts them; `split`
    makes them (`split_section` by default; the kept ones: `split_store`).

    With `prune`, notebooks of sections or tabs that no longer exist are removed.
    """
    result = SplitResult([], [], [], [])
    made_by_section = forked_map(
        lambda index: _write_section(sections[index], tabs, layout, split),
        len(sections), PARALLEL_FROM)
    # strict: made_by_section is read to its end, which ends the workers
    for number, (section, made) in enumerate(zip(sections, made_by_section, strict=True),
                                             start=1):
        for _, path, changed in made:
            (result.written if changed else result.unchanged).append(path)
        missing = [tab for tab in tabs if tab not in section.tabs]
        result.missing_tabs += [(section, tab) for tab in missing]
        if progress:
            progress(number, len(sections), section, [tab for tab, _, _ in made], missing)
    if prune:
        result.removed = _prune(layout, tabs, set(result.written + result.unchanged))
    return result


def _prune(layout: Layout, tabs: tuple[str, ...], kept: set[Path]) -> list[Path]:
    """Remove the notebooks of `tabs` not in `kept` (of sections or tabs that no longer
    exist); the paths removed."""
    removed = []
    for tab in tabs:
        for path in sorted(layout.notebooks(tab).rglob("*.ipynb")):
            if path not in kept:
                path.unlink()
                removed.append(path)
    return removed
