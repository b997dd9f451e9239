"""What the steps of a command share (`Build`), and what a step is (`Step`): the
commands of `cli/main.py` are sequences of steps over one `Build`; what every command
starts with (the book read and checked, `load_checked_book`) and builds under (the build
lock, `build_lock`)."""
from __future__ import annotations

import contextlib
import fcntl
import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from ..core.config import Config, load_config
from ..core.layout import Layout
from ..core.model import Book, Section
from ..features.bibliography import keep_parsed
from ..source.check import check_book
from ..source.parse import parse_book, source_files
from ..source.section_cache import SectionCache
from ..source.numbering import Numbers, number_book
from .console import Console
from .selection import Selection

if TYPE_CHECKING:   # the notebook stages: loaded by the commands that run them
    import nbformat

    from ..execution.evaluate import EvalOptions


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
        from ..notebooks.split_store import SplitStore

        return SplitStore(self.layout, self.section_keys).notebook


@dataclass(frozen=True)
class Step:
    """One step of a command: what it runs, and what its stage needs of config.ini (the
    stage's `requirements`), which the command checks for all its steps before the first."""
    run: Callable[[Build], int]
    needs: Callable[[Build], list[str]] = lambda build: []


def load_checked_book(root: Path, strict: bool, console: Console,
                      save: bool = True) -> tuple | None:
    """Parse and check the whole book; print the problems, None if any stops the build.
    Without `save`, the parsed sections are left for the caller to save under the lock."""
    config = load_config(root)
    strict = strict or config.build.strict
    layout = Layout(root)
    keep_parsed(layout.parsed)
    sections = SectionCache(config, layout, prefill=source_files(config))
    book, problems = parse_book(config, sections.read)
    problems = sorted({*problems, *check_book(book, config, sections.checks),
                       *config.warnings})
    console.problems(problems, strict)
    if save:
        sections.save()
    if any(strict or not p.warning for p in problems):
        return None
    return config, book, sections


@contextlib.contextmanager
def build_lock(layout: Layout, console: Console):
    """One build at a time in a folder: a second one waits for the first."""
    layout.lock.parent.mkdir(parents=True, exist_ok=True)
    with open(layout.lock, "w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            console.waiting_for_lock()
            fcntl.flock(handle, fcntl.LOCK_EX)
        yield
