"""The build's extension points: what a feature of the source format (a role and what it
does) plugs into the stages, as MkDocs' plugin events or nbconvert's preprocessors.

A feature is one `Feature`: its role names and optional hooks. It sits low (above
`core` only) and sees no stage: each stage calls the hooks of the registered features
(`registry.FEATURES`) at its extension point and hands them what they need, already
located (a role's content and .md line, the code cell before it in a tab's notebook,
what a tab's run computed, the book's sections). A stage thus knows no role name, and a
feature is tested alone with plain values.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.language import Language
from ..core.model import Cell, Problem, Section

if TYPE_CHECKING:   # the prose parser imports the features: nbformat only where used
    import nbformat

Finding = tuple[int, str, str]
"""A problem a check hook finds: (.md line, what is wrong, how to fix it)."""


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>#|$~])")


def markdown_escaped(text: str) -> str:
    """`text` escaped so that a notebook's Markdown shows it as it is (no emphasis, code,
    link, math or raw HTML read in it)."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)


def slug(text: str) -> str:
    """An anchor made of a text, as a page's headings and a feature's targets get theirs."""
    kept = "".join(char if char.isalnum() or char == "_" else " " for char in text.lower())
    return "-".join(kept.split()) or "partie"


@dataclass(frozen=True)
class PlacedRole:
    """One role as a tab's notebook holds it."""
    after: str
    """The id of the code cell before it in that notebook ("" before any)."""
    content: str
    """What is written between its backticks."""
    line: int
    """Its .md line."""


@dataclass(frozen=True)
class ShownRole:
    """Where a role is rendered in a page (or a launch notebook): for each tab the page
    shows, the code cell before it (`after`) and what the feature's hooks collected from
    that tab's run (`results`, empty when nothing ran)."""
    after: Mapping[str, str]
    results: Mapping[str, Sequence[dict]]
    language: Language
    typeset: Callable[[str], str]
    """The prose's typography (French spacing for a French book)."""
    page: str = ""
    """The name of the page it is rendered in."""
    url: Callable[[str, str], str] = lambda page, anchor: ""
    """(page, anchor) -> the URL of that place from the page (the document's own anchor
    in a PDF, "" for a page it leaves out; the published book's URL in a launch
    notebook)."""
    numbered: object = None
    """What the feature's `number` hook found in the whole book."""


@dataclass(frozen=True)
class Feature:
    """A feature and its extension points; every hook is optional."""
    key: str
    """Its name in the split notebook's metadata (with its annotation), hence in the
    cache and frozen keys."""
    roles: tuple[str, ...] = ()
    """Parse a role: the inline role names the prose parser reads as ``role`` tokens."""
    block_roles: tuple[str, ...] = ()
    """Parse a block role: the names of the roles written on a line of their own, which
    the prose parser reads as ``role_block`` tokens."""
    cell_roles: Callable[[Cell], list[tuple[str, int]]] | None = None
    """What a cell carries for the feature outside its prose (a conditional block's
    condition): (content, .md line) each, placed after the code cell before it as a role
    in its prose is."""
    read: Callable[[Section, str, str, int], None] | None = None
    """Put a role into the model: (section, role name, content, .md line) -> what the
    feature keeps of it, written into its own fields of the section."""
    check: Callable[[str, int, bool], list[Finding]] | None = None
    """Check a role: (content, .md line, whether it is in a title) -> problems (errors)."""
    check_book: Callable[[Path, Sequence[Section]], list[Problem]] | None = None
    """Check the whole book: (its source folder, its sections, orphans included) ->
    problems, located."""
    number: Callable[[Path, Sequence[Section]], object] | None = None
    """Number the whole book: (its source folder, its pages in book order) -> what every
    page needs to render the feature's roles (`ShownRole.numbered`), computed once."""
    page_files: Callable[[Section], Iterable[str]] = lambda section: ()
    """Page dependencies: the files a page shows for the feature, relative to its .md
    (a page is rendered again when one changes)."""
    annotate: Callable[[Sequence[PlacedRole]], list[dict]] | None = None
    """Annotate the split notebook: its roles in a tab's notebook -> what a kernel must
    compute for them, kept in the notebook's metadata under `key` (nothing if empty);
    a notebook with an annotation runs a kernel even without code."""
    prepare: Callable[[nbformat.NotebookNode], nbformat.NotebookNode] = lambda notebook: notebook
    """Hook execution, before: the copy of a split notebook to execute -> the notebook
    the kernel runs (cells added for the feature, marked by `added_cell`)."""
    collect: Callable[[nbformat.NotebookNode], list[dict]] | None = None
    """Hook execution, after: the executed notebook -> what the added cells computed,
    those cells removed; recorded with the outputs under `results_key`."""
    added_cell: Callable[[Mapping], bool] = lambda cell: False
    """Whether a cell of a notebook being executed is one `prepare` added (not counted
    when a failure names its cell)."""
    results_key: str = ""
    """Where the execution record and the executed notebook's metadata keep what
    `collect` returned."""
    is_result: Callable[[object], bool] = lambda item: False
    """Whether a recorded item read back (cache, frozen store) is one `collect` makes
    (needed with `collect`: a record holding anything else is no record, run again)."""
    problems: Callable[[Section, str, Sequence[PlacedRole], Sequence[dict]],
                       list[Problem]] | None = None
    """After execution: (section, tab, its roles in that tab's notebook, what the run
    computed) -> what the pages cannot show (warnings, located)."""
    notes: Callable[[Section, str, Sequence[PlacedRole], Sequence[dict]],
                    list[Problem]] | None = None
    """After execution, as `problems`: what is worth knowing of a run that computed what
    the pages show (claims that hold narrowly); listed in the report, never an error."""
    noted: tuple[str, str, str] = ("", "", "")
    """How the console counts `notes`: (one of what, what about them, why it matters)."""
    in_frozen_key: bool = True
    """Whether its annotation is part of the frozen key. False for roles that may change
    without discarding a GPU run (claims): a frozen run that predates one of them has not
    computed it, and it is listed as such (`judged`) without stopping the build."""
    judged: Callable[[PlacedRole, Sequence[dict]], bool] = lambda role, results: True
    """Whether a run's results hold what the role asked for (with `in_frozen_key` False)."""
    counted: tuple[str, str, str] = ("", "", "")
    """How the console counts `problems`: (one of what, what is wrong with them, what
    the pages do instead)."""
    render_html: Callable[[str, ShownRole], str] | None = None
    """Render the role in a page: (content, where it is shown) -> HTML."""
    render_block_html: Callable[[str, ShownRole], str] | None = None
    """Render a block role in a page: (content, where it is shown) -> HTML."""
    render_markdown: Callable[[str, str, Sequence[dict], Language], str] | None = None
    """Render the role in an executed notebook's Markdown: (content, the code cell before
    it, what the tab's run computed, the book's language) -> Markdown."""
    render_launch_markdown: Callable[[str, ShownRole], str] | None = None
    """Render the role in a launch notebook's Markdown: (content, where it is shown, whose
    `url` points into the published book) -> Markdown (else it stays as written)."""
    render_block_launch_markdown: Callable[[str, ShownRole], str] | None = None
    """Render a block role in a launch notebook's Markdown, as `render_launch_markdown`."""
    ties_following_unit: bool = False
    """Its role stands for a number: in a French book, a unit written right after it is
    tied to it by a no-break space."""
