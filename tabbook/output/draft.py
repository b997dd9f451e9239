"""Draft pages for the live preview: the page of a section whose prose only was edited,
rendered into the served site at once, before the rebuild that makes the whole site again.

A draft is the page that rebuild will write, only sooner: it is made when the notebooks the
site shows for the section ran exactly what its new source asks (the same code, the same
expressions of the features: inline values, claims, conditions), so its outputs and values
hold; any other edit waits for the rebuild. What the edit changes elsewhere (a number, a
title in the table of contents, the search index) comes with the rebuild, which reloads the
open pages again only if it changed a file besides the drafts (`shown_files`).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

import nbformat

from ..bootstrap.records import FINGERPRINT, atomic_write, file_hash, read_record
from ..core.config import Config
from ..core.files import read_notebook
from ..core.layout import Layout
from ..core.model import Book, Section
from ..execution.tasks import Task
from ..source.numbering import Numbers
from .render import prepared_site, render_site_page
from .site_inputs import INPUTS_STAMP, page_file

NOT_SHOWN = ("pagefind/", "notebooks/", "pdf/")
"""The site's folders no open page shows: the search index, and the downloads (launch
notebooks and PDFs), which a click fetches anew (the preview server forbids caching)."""


def draft_pages(book: Book, config: Config, numbers: Numbers, tabs: tuple[str, ...],
                layout: Layout, edited: Iterable[Path],
                split: Callable[[Section, str], nbformat.NotebookNode]) -> list[str]:
    """Render into the site of `tabs` the pages of the sections among the `edited` files
    whose prose only changed (`split` makes a section's notebook for a tab); the site paths
    written. Nothing when the site was never built."""
    final = layout.site(tabs, config.build.tabs)
    if not (final / INPUTS_STAMP).is_file():
        return []
    source_root, files = config.source_root.resolve(), {path.resolve() for path in edited}
    drafts = [section for section in book.pages()
              if source_root / section.path in files and (final / page_file(section)).is_file()
              and _ran_as_written(section, tabs, layout, split)]
    if not drafts:
        return []
    site, _ = prepared_site(book, config, numbers, tabs, layout, final)
    pages = site.pages()
    for section in drafts:   # each page replaced whole: a reader never gets half of one
        atomic_write(final / page_file(section), render_site_page(site, pages,
                                                                  pages.index(section)))
    return [page_file(section) for section in drafts]


def _ran_as_written(section: Section, tabs: tuple[str, ...], layout: Layout,
                    split: Callable[[Section, str], nbformat.NotebookNode]) -> bool:
    """Whether the notebook the site shows for each tab of `section` ran the code and the
    features' expressions of its source as it is now."""
    for tab in (tab for tab in tabs if tab in section.tabs):
        shown = layout.shown_notebook(tab, section)
        if not shown.is_file():
            return False
        now, ran = Task(section, tab, split(section, tab)), Task(section, tab, read_notebook(shown))
        if now.code != ran.code or now.annotations.keys() != ran.annotations.keys() or \
                not all(_asked(now.annotations[key], ran.annotations[key])
                        for key in now.annotations):
            return False
    return True


def _asked(asked: list[dict], ran: list[dict]) -> bool:
    """Whether a run's entries of a feature are those `asked` (it adds what it found to
    each: a value, a verdict)."""
    return len(asked) == len(ran) and all(
        isinstance(found, dict) and entry == {name: found.get(name) for name in entry}
        for entry, found in zip(asked, ran))


def shown_files(site: Path, drafts: Iterable[str] = ()) -> dict[str, str] | None:
    """The site's files as its stamp records them, with the `drafts` as they are now: what
    the open pages may show (`NOT_SHOWN` aside). None without a readable stamp."""
    record = read_record(site / INPUTS_STAMP, {FINGERPRINT: str, "files": dict})
    if record is None:
        return None
    files = {**record["files"], **{name: file_hash(site / name) for name in drafts}}
    return {name: digest for name, digest in files.items() if not name.startswith(NOT_SHOWN)}
