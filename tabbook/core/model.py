"""The book's data model: book -> chapters -> sections -> cells.

Every element remembers where it comes from (file and line in the .md) so that
each stage can report problems at the exact place a writer has to fix.
"""
from __future__ import annotations

import enum
import posixpath
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..bootstrap.errors import BookError

if TYPE_CHECKING:
    from markdown_it.token import Token

ALL_TABS = "all"
METADATA_KEY = "tabbook"
"""The key of this build's data in notebook and cell metadata (.md lines, cell ids,
provenance)."""


class CellKind(enum.Enum):
    CODE = "code"          # a ```{.python .input} cell: runs in the notebooks
    DISPLAY = "display"    # any other fence: shown, never run
    PROSE = "prose"        # Markdown text


@dataclass
class Cell:
    kind: CellKind
    source: str
    line: int
    """Line in the .md of the first line of `source` (1-based)."""
    tabs: tuple[str, ...]
    """Tabs this cell belongs to; (ALL_TABS,) for every tab of the section."""
    tab_line: int | None = None
    """Line of the `%%tab` / `:begin_tab:` marker that set `tabs`, if any."""
    fence: str = ""
    """For DISPLAY cells: the fence's info string (e.g. ``bash``)."""
    alt: str = ""
    """For CODE cells: the description of the figures it draws, written in its fence
    (```` ```{.python .input alt="…"} ````; see output/descriptions.py)."""
    condition: str = ""
    """For PROSE and DISPLAY cells in a ``:begin_if:`expression``` block: the expression,
    evaluated in each tab's kernel where the block starts; the tabs whose run makes it
    true show the cell (features/conditions.py)."""
    condition_line: int | None = None
    """Line of that `:begin_if:` marker."""
    tokens: tuple[Token, ...] = field(default=(), compare=False, repr=False)
    """For PROSE cells: the markdown-it tokens of `source` without its slide marks
    (`slide_marks.book_tokens`); their line maps count from `line`."""
    resolved: dict = field(default_factory=dict, compare=False, repr=False)
    """For CODE cells: tab -> the cell's code for that tab (a `source.branches.Resolved`),
    filled by `source.pycode.cell_code`. The check resolves every cell for every tab, so
    the section cache keeps the code with the parse and later commands resolve nothing."""

    def in_tab(self, tab: str) -> bool:
        return ALL_TABS in self.tabs or tab in self.tabs


@dataclass(frozen=True)
class Label:
    name: str
    kind: str          # section, figure, table, equation or other
    line: int
    title: str = ""    # heading text, figure caption...
    role: str = "label"   # label or eqlabel
    target_line: int = 0
    """The .md line of what it labels: the heading, the figure's image, the table's first
    line, the equation; its own line when it labels no block."""


@dataclass(frozen=True)
class Reference:
    role: str          # numref, ref or eqref
    target: str
    line: int


@dataclass(frozen=True)
class Image:
    path: str          # as written in the source
    alt: str
    line: int


@dataclass(frozen=True)
class TocEntry:
    target: str        # as written, e.g. ``chapter_gpu/index``
    line: int
    numbered: bool = False
    """The entry's toc block has ``:numbered:``: its pages get chapter numbers."""


@dataclass
class Section:
    """One .md file: a page of the book and one notebook per tab."""
    path: Path
    """Path relative to the chapters folder, e.g. ``chapter_gpu/use-gpu.md``."""
    display_path: str
    """The .md file as messages show it, relative to the project, e.g.
    ``chapters/chapter_gpu/use-gpu.md``."""
    title: str = ""
    cells: list[Cell] = field(default_factory=list)
    tabs: tuple[str, ...] = ()
    """The tabs this section produces a notebook for: the tabs its cells name (d2lbook's
    ``get_tab_notebook``, which reads no declaration), after its declared tabs if it has a
    declaration; without one and without code, every tab of the book."""
    declared_tabs: tuple[str, ...] | None = None
    """The tabs of `tab.interact_select([...])`, None if the section has none."""
    declaration_line: int = 0
    required_libs: tuple[str, ...] = ()
    gpus: int = 0
    labels: list[Label] = field(default_factory=list)
    references: list[Reference] = field(default_factory=list)
    images: list[Image] = field(default_factory=list)
    toc: list[TocEntry] = field(default_factory=list)
    citations: list[Reference] = field(default_factory=list)
    """Each key of d2lbook's ``:cite:`key1,key2```, with its line (features/citations.py)."""
    bibliography: Image | None = None
    """The .bib file of a ``:bibliography:`../refs.bib``` line: the page lists the cited works
    (features/citations.py)."""

    @property
    def name(self) -> str:
        """Section path without suffix, as written in TOCs and matched by --only."""
        return self.path.with_suffix("").as_posix()

    def code_cells(self) -> list[Cell]:
        return [c for c in self.cells if c.kind is CellKind.CODE]


def project_path(md_file: str, written: str) -> str:
    """A path written in `md_file` (relative to it), relative to the project as `md_file` is."""
    return posixpath.normpath(posixpath.join(posixpath.dirname(md_file), written))


@dataclass
class Chapter:
    index: Section
    sections: list[Section] = field(default_factory=list)
    numbered: bool = True
    """Listed in a ``:numbered:`` toc block; front and back matter are not."""

    def pages(self) -> list[Section]:
        return [self.index, *self.sections]


@dataclass
class Book:
    source_root: Path
    """The source folder ([build] source_dir); section paths are relative to it."""
    index: Section
    chapters: list[Chapter] = field(default_factory=list)
    orphans: list[Section] = field(default_factory=list)
    """Sections found on disk but in no TOC (a check error)."""

    def pages(self) -> list[Section]:
        """Every section in book order: preface, then each chapter's index and sections."""
        pages = [self.index]
        for chapter in self.chapters:
            pages.extend(chapter.pages())
        return pages


@dataclass(frozen=True)
class Problem:
    """Something wrong in the sources, reported as ``path:LINE: [tab] message — fix``.

    A warning is what d2lbook tolerates (it drops or guesses, and so does this
    build); it stops the build only when strict (``--strict``, ``warning_is_error``).
    Problems sort by file and line, a file's own faults first.
    """
    path: str
    line: int
    message: str
    fix: str
    tab: str = ""
    warning: bool = False
    file_fault: bool = False
    """The file as a whole cannot be read as meant (not UTF-8, empty): listed before all
    other problems, since they may follow from it."""

    def __lt__(self, other: Problem) -> bool:
        return self._order() < other._order()

    def _order(self) -> tuple:
        return (not self.file_fault, self.path, self.line, self.message, self.fix, self.tab,
                self.warning)

    def __str__(self) -> str:
        tab = f" [{self.tab}]" if self.tab else ""
        kind = " warning:" if self.warning else ""
        return f"{self.path}:{self.line}:{tab}{kind} {self.message} — {self.fix}"


class SourceError(BookError):
    """Raised by a stage when it meets problems; carries all of them."""

    def __init__(self, problems: list[Problem]):
        self.problems = sorted(problems)
        super().__init__("\n".join(str(p) for p in self.problems))
