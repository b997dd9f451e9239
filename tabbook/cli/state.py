"""What the steps of a command share (`Build`), and what a step is (`Step`): the
commands of `cli/main.py` are sequences of steps over one `Build`."""
from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import nbformat

from ..core.config import Config
from ..core.layout import Layout
from ..core.model import Book, Section
from ..execution.evaluate import EvalOptions
from ..notebooks.split_store import SplitStore
from ..source.numbering import Numbers, number_book
from .console import Console
from .selection import Selection


@dataclass
class Build:
    """What the steps of a command share: the book, its config, the output layout, the
    selection and options, the console."""
    book: Book
    config: Config
    layout: Layout
    selection: Selection
    options: EvalOptions
    console: Console
    strict: bool
    """Warnings are errors (--strict, or the book's warning_is_error)."""
    out: Path | None = None
    """--out: where to copy the launch notebooks or the site."""
    split: bool = False
    """The notebooks step ran (a book that is not executed needs it once)."""
    section_keys: Mapping[str, str] = field(default_factory=dict)
    """The section cache's key of each section, by display path."""

    @functools.cached_property
    def numbers(self) -> Numbers:
        """The book's numbers, computed once for the launch and HTML steps."""
        return number_book(self.book)

    @functools.cached_property
    def split_notebook(self) -> Callable[[Section, str], nbformat.NotebookNode]:
        """`split_section`, taken from the notebooks kept by section key where it can."""
        return SplitStore(self.layout, self.section_keys).notebook


@dataclass(frozen=True)
class Step:
    """One step of a command: what it runs, and what its stage needs of config.ini (the
    stage's `requirements`), which the command checks for all its steps before the first."""
    run: Callable[[Build], int]
    needs: Callable[[Build], list[str]] = lambda build: []
