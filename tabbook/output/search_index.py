"""The site's search index: Pagefind, one index per framework, built from the book's pages
while the rest of the site is written."""
from __future__ import annotations

import contextlib
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

from ..bootstrap.errors import BookError
from ..core.files import remove

CODE_BLOCK = re.compile(r"(<pre\b[^>]*>)(.*?)(</pre>)", re.S)
SPAN_TAG = re.compile(r"</?span\b[^>]*>")
TIMEOUT = 600


class SearchIndexError(BookError):
    """Pagefind failed, or did not finish."""


def pagefind_runs(tabs: tuple[str, ...], output: Path) -> list[list[str]]:
    """Pagefind's options, one list per index written into `output` (the site): on a site
    with tabs, one index per framework (``pagefind/<tab>/``) which holds the prose and that
    framework's code and outputs only, so that results show the reader's code."""
    if len(tabs) == 1:
        return [["--output-path", str(output / "pagefind")]]
    return [["--output-path", str(output / "pagefind" / tab), "--exclude-selectors",
             f'[data-tab]:not([data-tab="{tab}"])'] for tab in tabs]


def searched_copy(page: str) -> str:
    """A page as Pagefind needs it: its code blocks without their highlighting, whose
    thousands of <span> per page Pagefind would parse for each index (40 % of its time)
    only to read the same text. A block whose spans tell Pagefind something is kept."""
    def plain(block: re.Match) -> str:
        if "data-pagefind" in block[2]:
            return block[0]
        return block[1] + SPAN_TAG.sub("", block[2]) + block[3]
    return CODE_BLOCK.sub(plain, page)


def write_searched_copies(folder: Path, pages: list[str], target: Path) -> None:
    """The searched copies of the `pages` (site paths) of the site in `folder`, at the same
    paths in `target`: Pagefind reads them alone, neither the slide decks (nearly half the
    site's HTML) nor the search page, and names each result by its path there."""
    for page in pages:
        copy = target / page
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_text(searched_copy((folder / page).read_text(encoding="utf-8")),
                        encoding="utf-8")


@contextlib.contextmanager
def search_index(folder: Path, tabs: tuple[str, ...], pages: list[str]) -> Iterator[None]:
    """Build the search index of the site in `folder` (its stemming follows <html lang>)
    from its `pages`, written already, while the body of the ``with`` writes the rest of
    the site."""
    from pagefind_bin import get_executable

    copies = folder.with_name(folder.name + ".searched")
    remove(copies)   # what a killed build left
    try:
        write_searched_copies(folder, pages, copies)
        with contextlib.ExitStack() as stack:
            indexers = [stack.enter_context(subprocess.Popen(
                [str(get_executable()), "--site", str(copies), "--silent", *options],
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True))
                for options in pagefind_runs(tabs, folder)]
            try:
                yield
                errors = _errors(indexers)
            except BaseException:   # a failure of the body, Ctrl-C, or Pagefind's time out
                for indexer in indexers:
                    indexer.kill()
                raise
    finally:
        remove(copies)
    failed = [error for indexer, error in zip(indexers, errors) if indexer.returncode != 0]
    if failed:
        raise SearchIndexError(f"pagefind failed: {failed[0].strip()[-500:]}")


def _errors(indexers: list[subprocess.Popen]) -> list[str]:
    """What each Pagefind wrote on stderr, once all have ended."""
    try:
        return [indexer.communicate(timeout=TIMEOUT)[1] for indexer in indexers]
    except subprocess.TimeoutExpired:
        raise SearchIndexError(f"pagefind did not finish in {TIMEOUT // 60} minutes") from None
