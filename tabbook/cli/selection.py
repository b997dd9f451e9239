"""What a command builds: the book's folder (-C), the tabs and sections its options
select, its eval options.

Bad option values are `UsageError`s, raised before anything is written.
"""
from __future__ import annotations

import argparse
import fnmatch
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..bootstrap.errors import BookError
from ..core.config import Config
from ..core.model import Book, Section
from ..execution.kernels import default_jobs, python_of

if TYPE_CHECKING:   # the execution stage: loaded by the commands that build
    from ..execution.evaluate import EvalOptions


class UsageError(BookError):
    """A bad option value (unknown tab, --only matching nothing, -j 0)."""


@dataclass(frozen=True)
class Selection:
    """The tabs and sections a command builds."""
    tabs: tuple[str, ...]
    sections: list[Section]
    partial: bool
    """Some sections only (--only, --gpu-only): the others' outputs stay as they are."""

    def pairs(self) -> list[tuple[Section, str]]:
        """The (section, tab) pairs that have a notebook, in book order."""
        return [(section, tab) for section in self.sections for tab in self.tabs
                if tab in section.tabs]


def selected_tabs(config: Config, requested: list[str] | None) -> tuple[str, ...]:
    if not requested:
        return config.build.tabs
    unknown = [t for t in requested if t not in config.build.tabs]
    if unknown:
        raise UsageError(f"--tab {unknown[0]}: not a tab of this book "
                         f"(config.ini [build] tabs: {', '.join(config.build.tabs)})")
    return tuple(dict.fromkeys(requested))


def selected_sections(book: Book, patterns: list[str] | None,
                      gpu_only: bool = False) -> list[Section]:
    pages = book.pages()
    if gpu_only:
        pages = [s for s in pages if s.gpus]
        if not pages:
            raise UsageError("--gpu-only: no section declares #gpus(N)")
    if not patterns:
        return pages
    chosen = {id(s) for pattern in patterns for s in _matching(pages, pattern, gpu_only)}
    return [s for s in pages if id(s) in chosen]   # book order


def _matching(pages: list[Section], pattern: str, gpu_only: bool) -> list[Section]:
    matches = [s for s in pages if any(fnmatch.fnmatch(name, pattern) for name in
                                       (s.name, s.path.as_posix(), s.display_path))]
    if not matches:
        raise UsageError(f"--only {pattern}: matches no section"
                         f"{' declaring #gpus(N)' if gpu_only else ''} "
                         "(patterns match e.g. 'chapter_gpu/use-gpu' or 'chapter_gpu/*')")
    return matches


def select(book: Book, config: Config, args: argparse.Namespace) -> Selection:
    return Selection(selected_tabs(config, args.tab),
                     selected_sections(book, args.only, args.gpu_only),
                     partial=bool(args.only or args.gpu_only))


def eval_options(config: Config, args: argparse.Namespace) -> EvalOptions:
    from ..execution.evaluate import EvalOptions

    pythons = dict(python_of(value) for value in args.python or [])
    selected_tabs(config, list(pythons))   # each one a tab of this book
    if args.jobs is not None and args.jobs < 1:
        raise UsageError(f"-j {args.jobs}: the number of kernels at once must be at least 1 "
                         "(leave -j out to let the build choose from the machine)")
    return EvalOptions(args.jobs or default_jobs(config.execute.jobs), args.force, pythons,
                       args.require_gpu, args.freeze, getattr(args, "shard", None))


def book_folder(args: argparse.Namespace, root: Path) -> Path:
    """The folder of the book to build: `root`, or the one of -C."""
    if args.directory is None:
        return root
    folder = args.directory.resolve()
    if not folder.is_dir():
        raise UsageError(f"-C {args.directory}: no such folder")
    return folder
