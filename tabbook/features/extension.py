"""The build's extension points: what a feature of the source format (a role and what it
does) plugs into the stages, as MkDocs' plugin events or nbconvert's preprocessors.

A feature is one `Feature`: its role names and optional hooks. It sits low (above
`core` only) and sees no stage: each stage calls the hooks of the registered features
(`registry.FEATURES`) at its extension point and hands them what they need, already
located (a role's content and .md line, the code cell before it in a tab's notebook,
what a tab's run computed). A stage thus knows no role name, and a feature is tested
alone with plain values.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..core.language import Language
from ..core.model import Problem, Section

if TYPE_CHECKING:   # the prose parser imports the features: nbformat only where used
    import nbformat

Finding = tuple[int, str, str]
"""A problem a check hook finds: (.md line, what is wrong, how to fix it)."""


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
    """Where a role is rendered in a page: for each tab the page shows, the code cell
    before it (`after`) and what the feature's hooks collected from that tab's run
    (`results`, empty when nothing ran)."""
    after: Mapping[str, str]
    results: Mapping[str, Sequence[dict]]
    language: Language
    typeset: Callable[[str], str]
    """The prose's typography (French spacing for a French book)."""


@dataclass(frozen=True)
class Feature:
    """A feature and its extension points; every hook is optional."""
    key: str
    """Its name in the split notebook's metadata (with its annotation), hence in the
    cache and frozen keys."""
    roles: tuple[str, ...] = ()
    """Parse a role: the inline role names the prose parser reads as ``role`` tokens."""
    check: Callable[[str, int, bool], list[Finding]] | None = None
    """Check a role: (content, .md line, whether it is in a title) -> problems (errors)."""
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
    counted: tuple[str, str, str] = ("", "", "")
    """How the console counts `problems`: (one of what, what is wrong with them, what
    the pages do instead)."""
    render_html: Callable[[str, ShownRole], str] | None = None
    """Render the role in a page: (content, where it is shown) -> HTML."""
    render_markdown: Callable[[str, str, Sequence[dict], Language], str] | None = None
    """Render the role in an executed notebook's Markdown: (content, the code cell before
    it, what the tab's run computed, the book's language) -> Markdown."""
    ties_following_unit: bool = False
    """Its role stands for a number: in a French book, a unit written right after it is
    tied to it by a no-break space."""
