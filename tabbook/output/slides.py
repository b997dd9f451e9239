"""Slides stage: a slide notebook (RISE) per section with slide marks and per tab, made
as d2lbook's `_generate_slides` makes it, from that tab's executed notebook.

The executed notebook already is the tab's view of the section: the prose of its
`:begin_tab:` blocks and true `:begin_if:` variants only, and, in each Markdown cell's
``tabbook`` metadata, the text of its slide marks with the tab's inline values rendered
and its claims hidden (`notebooks/split.py`, `execution/record.py`). This stage only
arranges it into slides:

- each ``[`` mark of a Markdown cell opens a slide, and the ``(`` marks after it add to
  that slide; those before the cell's first ``[`` mark add to the current one (d2lbook
  makes one slide of a whole cell, however many ``[`` marks it holds: here a mark
  means what it says). A slide's texts are joined one per line, sentences starting with
  a capital letter, a dot or comma before a closing ``$$`` and trailing ``,. :`` gone,
  as d2lbook writes them; the cell's level-1 heading comes first. A Markdown cell with
  neither marks nor heading is dropped;
- every code cell is kept, with its outputs (figures included); code cells without
  outputs are merged into the next one of their run that has some (or the last);
  ``#@save`` marks are removed;
- Markdown is rendered as the published notebooks render it (references and citations
  as links to the published book, French typography), outputs too long are cut;
- a section without marks has no slide notebook.
"""
from __future__ import annotations

import copy
import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import nbformat

from ..core.config import Config
from ..core.files import read_notebook, write_notebook_if_changed
from ..core.layout import Layout
from ..core.model import METADATA_KEY, Cell, CellKind, Section
from ..source.numbering import Numbers
from ..source.slide_marks import SLIDES_KEY, valid_slide_marks
from .launch import published_markdown, published_outputs

SAVE_MARK = re.compile(r"[ \t]*#@save\b")
SENTENCE_ENDS = (".\n", ". ")   # not "." alone: `a.text()` is code


def slide_text(marks: list[list[str]]) -> str:
    """The text of a slide cell made of `marks` ([opener, text] each), as d2lbook writes
    it: one per line (a sentence may run over several marks), sentences capitalised."""
    text = "\n".join(mark_text for _, mark_text in marks)
    for end in SENTENCE_ENDS:
        text = end.join(sentence[:1].upper() + sentence[1:]
                        for sentence in (part.strip() for part in text.split(end)))
    return text.replace(".$$", "$$").replace(",$$", "$$").rstrip(",. \n:")


def _heading(markdown: str) -> str | None:
    """The cell's level-1 heading line, if it has one."""
    return next((line for line in markdown.splitlines() if line.strip().startswith("# ")),
                None)


def _mark_groups(marks: list[list[str]]) -> list[list[list[str]]]:
    """`marks` cut before each ``[`` mark: the first group (maybe empty) adds to the
    current slide, each other one opens a slide."""
    groups: list[list[list[str]]] = [[]]
    for mark in marks:
        if mark[0].startswith("["):
            groups.append([])
        groups[-1].append(mark)
    return groups


def _slide_cells(cell, config: Config, section: Section, numbers: Numbers) -> list:
    """The slide cells of a Markdown cell: none where it has neither marks nor heading."""
    groups = _mark_groups(cell.metadata.get(METADATA_KEY, {}).get(SLIDES_KEY, []))
    heading = _heading(cell.source)
    texts = [slide_text(group) for group in groups]
    if heading:   # the heading goes first, on the slide its cell's first text is on
        first = 0 if texts[0] or len(texts) == 1 else 1
        texts[first] = f"{heading}\n\n{texts[first]}".strip()
    # Plain dicts, as in the split: nbformat's constructors validate each cell, which
    # every HTML build would pay for every slide; writing validates anyway.
    return [nbformat.from_dict({
                "cell_type": "markdown", "id": "",   # numbered by `slide_notebook`
                "metadata": {"slideshow": {"slide_type": "-" if position == 0 else "slide"}},
                "source": published_markdown(text, config, section, numbers)})
            for position, text in enumerate(texts) if text]


def _code_cell(cell, config: Config):
    code = copy.deepcopy(cell)
    code.metadata.pop(METADATA_KEY, None)   # .md lines and timings: build-only data
    code.outputs = published_outputs(code.get("outputs", []), config.project.language)
    return code


def _without_save_marks(code: str) -> str:
    """`code` without its ``#@save`` marks (a line holding only one goes)."""
    lines = [SAVE_MARK.sub("", line) for line in code.split("\n")
             if line.strip() != "#@save"]
    return "\n".join(lines).strip()


def _merged_code(cells: list) -> list:
    """Code cells without outputs merged into the next code cell of their run that has
    some (or the last of the run); ``#@save`` removed."""
    merged, waiting = [], []
    for position, cell in enumerate(cells):
        if cell.cell_type != "code":
            merged.append(cell)
            continue
        waiting.append(cell.source)
        run_ends = position + 1 == len(cells) or cells[position + 1].cell_type != "code"
        if cell.outputs or run_ends:
            cell.source = _without_save_marks("\n\n".join(waiting))
            merged.append(cell)
            waiting = []
    return merged


def has_slide_marks(notebook: nbformat.NotebookNode) -> bool:
    """Whether the prose of a tab's `notebook` has slide marks (it then has slides)."""
    return any(cell.cell_type == "markdown" and cell.metadata.get(METADATA_KEY, {}).get(SLIDES_KEY)
               for cell in notebook.cells)


def slide_notebook(notebook: nbformat.NotebookNode, config: Config, section: Section,
                   numbers: Numbers) -> nbformat.NotebookNode | None:
    """The slide notebook of a tab's executed `notebook` of `section` (or its split one,
    without outputs); None if its prose has no slide marks."""
    if not has_slide_marks(notebook):
        return None
    cells = []
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cells.append(_code_cell(cell, config))
        elif cell.cell_type == "markdown":
            cells.extend(_slide_cells(cell, config, section, numbers))
    slides = config.slides
    overlay = (f"<div class='my-top-right'>{slides.top_right}</div>"
               f"<div class='my-top-left'>{slides.top_left}</div>")
    result = nbformat.from_dict({
        "nbformat": nbformat.v4.nbformat, "nbformat_minor": nbformat.v4.nbformat_minor,
        "cells": _merged_code(cells),
        "metadata": {
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
            "language_info": {"name": "python"},
            "celltoolbar": "Slideshow",
            "rise": {"autolaunch": True, "enable_chalkboard": True, "overlay": overlay},
            METADATA_KEY: {"tab": notebook.metadata.get(METADATA_KEY, {}).get("tab"),
                           "source": section.display_path, "title": section.title},
        }})
    for position, cell in enumerate(result.cells):   # stable ids: unchanged slides, same file
        cell.id = f"slide-{position}"
    return result


def slide_makers(config: Config, numbers: Numbers, layout: Layout, sections: list[Section],
                 tabs: tuple[str, ...]
                 ) -> dict[tuple[str, str], Callable[[], nbformat.NotebookNode]]:
    """What makes each slide notebook of `sections` (a command's selection: --only
    applied) for `tabs`, keyed by (tab, section name), in the order of `sections`;
    sections without slide marks have none. Each is made from the tab's executed
    notebook, or its split one where there is no executed one (a book that is not
    executed, or not yet): then without outputs. Made only when called: a site copies
    the decks of the pages it keeps, and the prose of slides is costly to render."""
    makers = {}
    for section in sections:
        marked = [cell for cell in section.cells
                  if cell.kind is CellKind.PROSE and valid_slide_marks(cell.source)]
        for tab in (t for t in tabs if t in section.tabs):
            source = _slides_source(layout, section, tab,
                                    [cell for cell in marked if cell.in_tab(tab)])
            if source is not None:
                makers[tab, section.name] = functools.partial(
                    _slide_notebook_of, source, config, section, numbers)
    return makers


def _slides_source(layout: Layout, section: Section, tab: str,
                   marked: list[Cell]) -> Path | None:
    """The notebook a tab's slides of `section` are made from; None if it has no slides.
    `marked`: the tab's prose cells with slide marks. A mark outside `:begin_if:` blocks is
    in the notebook, which is read only when its deck is made; marks in such blocks only
    are there if a block holds: the notebook says."""
    if not marked:
        return None
    source = next((path for path in (layout.shown_notebook(tab, section),
                                     layout.notebook(tab, section)) if path.is_file()), None)
    if source is None:
        return None
    if all(cell.condition for cell in marked) and not has_slide_marks(read_notebook(source)):
        return None
    return source


def _slide_notebook_of(path: Path, config: Config, section: Section,
                       numbers: Numbers) -> nbformat.NotebookNode:
    return slide_notebook(read_notebook(path), config, section, numbers)


@dataclass
class SlidesResult:
    written: list[Path]
    unchanged: list[Path]
    per_tab: dict[str, int]
    """How many slide notebooks each tab has (sections with marks)."""
    without_outputs: list[tuple[str, str]]
    """(tab, section name) of the slide notebooks made from a split notebook."""
    made: dict[tuple[str, str], nbformat.NotebookNode]
    """The slide notebooks, keyed as `slide_makers` keys them."""

    def makers(self) -> dict[tuple[str, str], Callable[[], nbformat.NotebookNode]]:
        """`made` as `slide_makers` gives it, for `decks.book_decks`."""
        return {key: (lambda notebook=notebook: notebook) for key, notebook in self.made.items()}


def write_slide_notebooks(config: Config, numbers: Numbers, layout: Layout,
                          sections: list[Section], tabs: tuple[str, ...],
                          progress=None) -> SlidesResult:
    """Write the slide notebooks of `slide_makers` where `layout` puts them (atomically,
    only if changed); `progress(tab, section, path, has outputs?)` after each."""
    made = {key: make() for key, make in
            slide_makers(config, numbers, layout, sections, tabs).items()}
    result = SlidesResult([], [], dict.fromkeys(tabs, 0), [], made)
    by_name = {section.name: section for section in sections}
    for (tab, name), notebook in made.items():
        section = by_name[name]
        outputs = layout.shown_notebook(tab, section).is_file()
        if not outputs:
            result.without_outputs.append((tab, name))
        path = layout.slide_notebook(tab, section)
        (result.written if write_notebook_if_changed(path, notebook)
         else result.unchanged).append(path)
        result.per_tab[tab] += 1
        if progress:
            progress(tab, section, path, outputs)
    return result
