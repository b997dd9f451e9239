"""Numbers of the book: chapters, sections, headings, figures, tables, equations, and
what each feature numbers over the whole book (`Feature.number`).

Computed once over the whole book, so that a reference on one page can name
the number of a figure on another. Used by the HTML pages and by the launch
notebooks (which turn references into links to the published book).
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from markdown_it.token import Token

from ..core.language import Language
from ..core.model import Book, CellKind, Label, Section
from ..features.registry import FEATURES
from .roles import figure_image, top_level_blocks

KINDS = ("chapter", "section", "figure", "table", "equation")
"""The kinds of numbered targets; how a reference to each reads is the language's
``ref_<kind>`` string (core/language.py)."""


@dataclass(frozen=True)
class Target:
    """Where a label points: a page, an anchor in it, its number and title."""
    page: str          # section name, e.g. ``chapter_gpu/use-gpu``
    anchor: str
    kind: str
    number: str        # "" when unnumbered (the preface)
    title: str = ""

    def text(self, role: str, custom: str | None, language: Language) -> str:
        """How a reference to this target reads in `language`: `custom` if the writer gave
        one (`` :numref:`texte <label>` ``), « (2.1) » for an :eqref:, the title for a
        :ref:, « figure 2.1 », “Fig. 2.1”, 「图2.1」 for a :numref: (the title when
        unnumbered)."""
        if custom is not None:
            return custom
        if role == "eqref":
            return f"({self.number})"
        if role == "ref" or not self.number:
            return self.title
        if self.kind in KINDS:
            return language.text(f"ref_{self.kind}", number=self.number)
        return f"{self.kind} {self.number}"


@dataclass
class Numbers:
    sections: dict[str, str] = field(default_factory=dict)
    """Section name -> number ("2" for a chapter index, "2.3" for a section, "" for the preface)."""
    headings: dict[tuple[str, int], str] = field(default_factory=dict)
    """(section name, .md line of a ## or ### heading) -> its number, e.g. "2.3.1"."""
    figures: dict[tuple[str, int], str] = field(default_factory=dict)
    """(section name, .md line of a figure's image) -> its number, e.g. "2.1"."""
    tables: dict[tuple[str, int], str] = field(default_factory=dict)
    equations: dict[tuple[str, int], str] = field(default_factory=dict)
    """(section name, .md line of an equation's :eqlabel:) -> its number."""
    targets: dict[str, Target] = field(default_factory=dict)
    features: dict[str, object] = field(default_factory=dict)
    """Feature key -> what its `number` hook found in the whole book (the cited works…)."""


def _top_level_blocks(section: Section) -> Iterator[tuple[int, tuple[Token, ...], int]]:
    """(.md line, tokens, index) of the first token of each top-level prose block."""
    for cell in section.cells:
        if cell.kind is CellKind.PROSE:
            for start, _ in top_level_blocks(cell.tokens):
                yield cell.line + cell.tokens[start].map[0], cell.tokens, start


def number_book(book: Book) -> Numbers:
    """The numbers and reference targets of the whole book, read from its model (which it
    leaves as it is): compute them once per build and share them."""
    numbers = Numbers()
    numbers.sections[book.index.name] = ""
    _number_section(book.index, "", None, numbers)
    chapter_number = 0
    for chapter in book.chapters:
        if not chapter.numbered:   # front and back matter (a toc block without :numbered:)
            for page in chapter.pages():
                numbers.sections[page.name] = ""
                _number_section(page, "", None, numbers, chapter=page is chapter.index)
            continue
        chapter_number += 1
        counters = {"figure": 0, "table": 0, "equation": 0}
        numbers.sections[chapter.index.name] = str(chapter_number)
        _number_section(chapter.index, str(chapter_number), counters, numbers, chapter=True)
        for section_number, section in enumerate(chapter.sections, start=1):
            number = f"{chapter_number}.{section_number}"
            numbers.sections[section.name] = number
            _number_section(section, number, counters, numbers)
    numbers.features = {feature.key: feature.number(book.source_root, book.pages())
                        for feature in FEATURES if feature.number is not None}
    return numbers


def _number_section(section: Section, number: str, counters: dict | None, numbers: Numbers,
                    chapter: bool = False) -> None:
    """Number the headings, figures, tables and equations of one page; record its labels."""
    if number and not chapter:
        _number_headings(section, number, numbers)
    prefix = number.split(".")[0]
    if counters is not None:
        for line, tokens, index in _top_level_blocks(section):
            if figure_image(tokens, index):
                counters["figure"] += 1
                numbers.figures[(section.name, line)] = f"{prefix}.{counters['figure']}"
    for label in section.labels:
        numbers.targets[label.name] = _target(section, label, number, counters, numbers, chapter)


def _number_headings(section: Section, number: str, numbers: Numbers) -> None:
    """## and ### headings: 2.3.1, 2.3.1.1…"""
    sub = [0, 0]
    for line, tokens, index in _top_level_blocks(section):
        level = int(tokens[index].tag[1]) - 2 if tokens[index].type == "heading_open" else -1
        if level not in (0, 1):
            continue
        sub[level] += 1
        if level == 0:
            sub[1] = 0
        numbers.headings[(section.name, line)] = ".".join([number, *map(str, sub[:level + 1])])


def _target(section: Section, label: Label, number: str, counters: dict | None,
            numbers: Numbers, chapter: bool) -> Target:
    """Where `label` points; a labelled table or :eqlabel: equation gets its number."""
    name, kind = section.name, label.kind
    if kind == "section":
        return Target(name, label.name, "chapter" if chapter else "section",
                      numbers.headings.get((name, label.target_line), number), label.title)
    if counters is None:
        return Target(name, label.name, kind, "")
    if kind == "figure":
        return Target(name, label.name, kind, numbers.figures.get((name, label.target_line), ""),
                      label.title)
    numbered = {"table": (numbers.tables, label.target_line),
                "equation": (numbers.equations, label.line)}
    if kind not in numbered or (kind == "equation" and label.role != "eqlabel"):
        return Target(name, label.name, kind, "")
    counters[kind] += 1
    record, line = numbered[kind]
    record[(name, line)] = f"{number.split('.')[0]}.{counters[kind]}"
    return Target(name, label.name, kind, record[(name, line)])
