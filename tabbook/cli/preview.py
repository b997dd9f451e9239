"""What `build.py serve` does at an edit before it rebuilds: the drafts of the edited pages
(`output/draft.py`), for the open pages to show at once, and then whether the rebuild
changed anything else they show (if not, they are not reloaded a second time)."""
from __future__ import annotations

import io
import time
from dataclasses import dataclass
from pathlib import Path

from ..bootstrap.errors import BookError
from ..core.layout import Layout
from ..notebooks.split_store import SplitStore
from ..output.draft import draft_pages, shown_files
from ..source.numbering import number_book
from .console import Console
from .selection import selected_tabs
from .state import build_lock, load_checked_book


@dataclass(frozen=True)
class Draft:
    """The drafts written into the served site."""
    pages: list[str]
    seconds: float
    """From the start of the rebuild to the drafts written."""
    shown: dict[str, str] | None
    """The site's files with the drafts (`shown_files`)."""

    def outdated_by(self, site: Path) -> bool:
        """Whether the rebuilt site in `site` differs from the drafted one in a file an
        open page may show."""
        return self.shown is None or shown_files(site) != self.shown


def draft(root: Path, tabs: list[str] | None, strict: bool, changed: list[Path],
          console: Console) -> Draft | None:
    """Draft the pages of the `changed` sources where only prose was edited; None when
    nothing was drafted: a file other than a section changed, or the book has a problem
    that stops the build (the rebuild, which follows, reports it)."""
    started = time.monotonic()
    if not changed or any(path.suffix != ".md" for path in changed):
        return None
    try:
        loaded = load_checked_book(root, strict, Console(io.StringIO(), io.StringIO()),
                                   save=False)
        if loaded is None:
            return None
        config, book, sections = loaded
        layout, tabs_shown = Layout(root), selected_tabs(config, tabs)
        with build_lock(layout, console):
            sections.save()
            pages = draft_pages(book, config, number_book(book), tabs_shown, layout, changed,
                                SplitStore(layout, sections.keys).notebook)
            shown = shown_files(layout.site(tabs_shown, config.build.tabs), pages)
    except (BookError, OSError):   # the rebuild, which follows, reports it
        return None
    return Draft(pages, time.monotonic() - started, shown) if pages else None
