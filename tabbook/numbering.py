"""Numbers of the book: chapters, sections, headings, figures, tables, equations.

Computed once over the whole book, so that a reference on one page can name
the number of a figure on another. Used by the HTML pages and by the launch
notebooks (which turn references into links to the published book).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from .bibliography import Entry, entries_by_page
from .model import Book, CellKind, Section
from .parse import HEADING, IMAGE, LABEL, strip_slide_marks

FIGURE_LINE = re.compile(r"^\s*" + IMAGE.pattern + r"\s*$")
# How a reference reads in French, by the kind of its target.
KIND_NAMES = {"chapter": "chapitre", "section": "section", "figure": "figure",
              "table": "tableau", "equation": "équation"}


def split_reference(written: str) -> tuple[str | None, str]:
    """``:numref:`texte <label>``` -> ("texte", "label"); ``:numref:`label``` -> (None, "label")."""
    custom = re.match(r"(.*?)\s*<([^>]+)>\s*$", written)
    return (custom.group(1), custom.group(2).strip()) if custom else (None, written.strip())


@dataclass(frozen=True)
class Target:
    """Where a label points: a page, an anchor in it, its number and title."""
    page: str          # section name, e.g. ``chapter_gpu/use-gpu``
    anchor: str
    kind: str
    number: str        # "" when unnumbered (the preface)
    title: str = ""

    def reference_text(self) -> str:
        """French text of a :numref: to this target, e.g. « figure 2.1 »."""
        if not self.number:
            return self.title
        return f"{KIND_NAMES.get(self.kind, self.kind)} {self.number}"


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
    works: dict[str, tuple[str, Entry]] = field(default_factory=dict)
    """Cited key -> (the page whose :bibliography: lists it, its entry), in citation order."""


def _prose_lines(section: Section):
    for cell in section.cells:
        if cell.kind is CellKind.PROSE:
            for offset, text in enumerate(cell.source.split("\n")):
                yield cell.line + offset, text


def number_book(book: Book) -> Numbers:
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
    _cited_works(book, numbers)
    return numbers


def _cited_works(book: Book, numbers: Numbers) -> None:
    entries = entries_by_page(book.source_root, book.pages())
    for page in book.pages():
        for cite in page.citations:
            if cite.target in entries:
                numbers.works.setdefault(cite.target, entries[cite.target])


def _number_section(section: Section, number: str, counters: dict | None, numbers: Numbers,
                    chapter: bool = False) -> None:
    """Number the headings, figures, tables and equations of one page; record its labels."""
    name = section.name
    prefix = number.split(".")[0]
    sub = [0, 0]
    last_line = ""
    pending_table = None
    for line, text in _prose_lines(section):
        stripped = text.strip()
        heading = HEADING.match(text)
        if heading and number and not chapter and len(heading.group(1)) in (2, 3):
            level = len(heading.group(1)) - 2
            sub[level] += 1
            if level == 0:
                sub[1] = 0
            numbers.headings[(name, line)] = ".".join([number, *map(str, sub[:level + 1])])
        if counters is not None and FIGURE_LINE.match(text):
            counters["figure"] += 1
            numbers.figures[(name, line)] = f"{prefix}.{counters['figure']}"
        if stripped.startswith("|") and not last_line.startswith("|"):
            pending_table = line
        for role, label in LABEL.findall(text):
            label = label.strip()
            kind = next(l.kind for l in section.labels if l.name == label)
            target_number, title = "", ""
            if kind == "section":
                kind = "chapter" if chapter else "section"
                target_number = numbers.headings.get((name, _heading_line(section, line)), number)
                title = _title_before(section, line)
            elif kind == "figure" and counters is not None:
                target_number = numbers.figures.get((name, _previous_line(section, line)), "")
                title = next(l.title for l in section.labels if l.name == label)
            elif kind == "table" and counters is not None and pending_table:
                counters["table"] += 1
                target_number = f"{prefix}.{counters['table']}"
                numbers.tables[(name, pending_table)] = target_number
            elif kind == "equation" and counters is not None and role == "eqlabel":
                counters["equation"] += 1
                target_number = f"{prefix}.{counters['equation']}"
                numbers.equations[(name, line)] = target_number
            numbers.targets[label] = Target(name, label, kind, target_number, title)
        if stripped:
            last_line = stripped


def _previous_line(section: Section, line: int) -> int:
    """The .md line of the last non-blank prose line before `line`."""
    before = [n for n, text in _prose_lines(section) if n < line and text.strip()]
    return before[-1] if before else line


def _heading_line(section: Section, line: int) -> int:
    """A label on a heading's own line or on the line after it."""
    for number, text in _prose_lines(section):
        if number == line and HEADING.match(text):
            return line
    return _previous_line(section, line)


def _title_before(section: Section, line: int) -> str:
    heading_line = _heading_line(section, line)
    for number, text in _prose_lines(section):
        if number == heading_line:
            heading = HEADING.match(text)
            if heading:
                return LABEL.sub("", strip_slide_marks(heading.group(2))).strip()
    return section.title
