"""The site's search index: Pagefind, one index per framework, built from the book's pages
while the rest of the site is written."""
from __future__ import annotations

import contextlib
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

from ..bootstrap.errors import BookError

GLOB_SPECIAL = re.compile(r"[*?\[\]{},\\]")
"""Characters a Pagefind glob would read as a pattern."""
TIMEOUT = 600


class SearchIndexError(BookError):
    """Pagefind failed, or did not finish."""


def pagefind_runs(tabs: tuple[str, ...], pages: list[str]) -> list[list[str]]:
    """Pagefind's options, one list per index: on a site with tabs, one index per framework
    (``pagefind/<tab>/``) which holds the prose and that framework's code and outputs only,
    so that results show the reader's code. Each reads only the book's `pages` (site
    paths): the slide decks, nearly half the site's HTML, are not indexed, and parsing them
    cost each index 40 % of its time. Page paths a glob cannot name: the whole site."""
    only_pages = ["--glob", "{" + ",".join(pages) + "}"] if _globbable(pages) else []
    if len(tabs) == 1:
        return [only_pages]
    return [[*only_pages, "--output-subdir", f"pagefind/{tab}", "--exclude-selectors",
             f'[data-tab]:not([data-tab="{tab}"])'] for tab in tabs]


def _globbable(pages: list[str]) -> bool:
    """Whether a Pagefind glob can name every one of `pages`."""
    return not any(GLOB_SPECIAL.search(page) for page in pages)


@contextlib.contextmanager
def search_index(folder: Path, tabs: tuple[str, ...], pages: list[str]) -> Iterator[None]:
    """Build the search index of the site in `folder` (its stemming follows <html lang>)
    while the body of the ``with`` writes the rest of the site; the `pages` are written
    already. Where Pagefind must read the whole site, it starts once the body is done."""
    from pagefind_bin import get_executable

    runs = pagefind_runs(tabs, pages)
    with contextlib.ExitStack() as stack:
        def start() -> list[subprocess.Popen]:
            return [stack.enter_context(subprocess.Popen(
                [str(get_executable()), "--site", str(folder), "--silent", *options],
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True))
                for options in runs]
        concurrent = _globbable(pages)
        indexers = start() if concurrent else []
        try:
            yield
            indexers = indexers if concurrent else start()
            errors = _errors(indexers)
        except BaseException:   # a failure of the body, Ctrl-C, or Pagefind's time out
            for indexer in indexers:
                indexer.kill()
            raise
    failed = [error for indexer, error in zip(indexers, errors) if indexer.returncode != 0]
    if failed:
        raise SearchIndexError(f"pagefind failed: {failed[0].strip()[-500:]}")


def _errors(indexers: list[subprocess.Popen]) -> list[str]:
    """What each Pagefind wrote on stderr, once all have ended."""
    try:
        return [indexer.communicate(timeout=TIMEOUT)[1] for indexer in indexers]
    except subprocess.TimeoutExpired:
        raise SearchIndexError(f"pagefind did not finish in {TIMEOUT // 60} minutes") from None
