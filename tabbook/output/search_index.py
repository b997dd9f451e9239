"""The site's search indexes: Pagefind's, one per part of the book and per framework,
which the reader's browser merges (``mergeIndex``).

A part is a top-level folder of pages (a chapter), or the pages at the top of the site.
On a site with tabs each framework has its own indexes (``pagefind/<tab>/<part>/``),
holding the prose and that framework's code and outputs only, so that results show the
reader's code; a site for one framework has ``pagefind/<part>/``. ``parts.json``, beside
the parts, lists them in book order with the hash of each page they index: a part whose
pages are the very files the previous site indexed, and whose index files are still the
ones written, is copied from there. A prose edit thus re-indexes one chapter, not the
book (Pagefind can neither update an index nor index part of a site into one).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from ..bootstrap.errors import BookError
from ..bootstrap.records import file_hash

FOLDER = "pagefind"
PARTS = "parts.json"
TOP = "_top"
"""The part of the pages at the top of the site (no chapter folder starts with "_")."""
TIMEOUT = 600
UNUSED = ("pagefind-ui.*", "pagefind-component-ui.*", "pagefind-modular-ui.*",
          "pagefind-highlight.js")
"""Pagefind's own search interfaces, which each index comes with and book.js replaces:
removed (half a megabyte per index)."""


class SearchIndexError(BookError):
    pass


@dataclass(frozen=True)
class Indexed:
    """What indexing a site did: how many indexes it has (parts × frameworks), and how
    many of them Pagefind built (the others were copied from the previous site)."""
    indexes: int
    built: int


def part_of(page: str) -> str:
    """The part of a page file (a POSIX path relative to the site)."""
    head, _, rest = page.partition("/")
    return head if rest else TOP


def index_search(staging: Path, previous: Path, previous_files: Mapping[str, str],
                 tabs: Sequence[str], pages: Sequence[str]) -> Indexed:
    """Index the `pages` of the site in `staging` for `tabs`, copying from the `previous`
    site (whose files had `previous_files`' hashes) the indexes still valid."""
    parts = {part: {file.relative_to(staging).as_posix(): file_hash(file)
                    for file in sorted(staging.glob(_glob(part)))}
             for part in dict.fromkeys(part_of(page) for page in pages)}
    bundles = {f"{FOLDER}/{tab}": tab for tab in tabs} if len(tabs) > 1 else {FOLDER: None}
    runs = []
    for bundle, tab in bundles.items():
        listed = _listed(previous / bundle / PARTS)
        for part, hashes in parts.items():
            target = f"{bundle}/{part}"
            if listed.get(part) == hashes and _intact(previous, target, previous_files):
                shutil.copytree(previous / target, staging / target)
            else:
                runs.append(_options(target, part, tab))
        (staging / bundle).mkdir(parents=True, exist_ok=True)
        (staging / bundle / PARTS).write_text(json.dumps(parts, indent=1) + "\n",
                                              encoding="utf-8")
    _run_pagefind(staging, runs)
    _remove_unused(staging, list(bundles))
    return Indexed(len(parts) * len(bundles), len(runs))


def _remove_unused(staging: Path, bundles: list[str]) -> None:
    for bundle in bundles:
        for pattern in UNUSED:
            for unused in (staging / bundle).glob(f"*/{pattern}"):
                unused.unlink()


def _listed(path: Path) -> dict:
    try:
        listed = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return listed if isinstance(listed, dict) else {}


def _intact(site: Path, folder: str, files: Mapping[str, str]) -> bool:
    """Whether `folder` of the previous `site` holds the files written there, unchanged."""
    found = [path for path in (site / folder).rglob("*") if path.is_file()] \
        if (site / folder).is_dir() else []
    return bool(found) and all(
        file_hash(path) == files.get(path.relative_to(site).as_posix()) for path in found)


def _glob(part: str) -> str:
    """The pages of `part` (Pagefind's --glob and pathlib's read it alike)."""
    return "*.html" if part == TOP else f"{part}/**/*.html"


def _options(target: str, part: str, tab: str | None) -> list[str]:
    """Pagefind's options to index `part` into `target` (for `tab` on a site with tabs)."""
    options = ["--output-subdir", target, "--glob", _glob(part)]
    if tab is not None:
        options += ["--exclude-selectors", f'[data-tab]:not([data-tab="{tab}"])']
    return options


def _run_pagefind(site: Path, runs: list[list[str]]) -> None:
    """One Pagefind per run of options, as many at once as the machine has cores."""
    from pagefind_bin import get_executable
    executable = str(get_executable())

    def run(options: list[str]) -> str:
        try:
            done = subprocess.run([executable, "--site", str(site), "--silent", *options],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                  timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            return f"pagefind did not finish in {TIMEOUT // 60} minutes"
        return f"pagefind failed: {done.stderr.strip()[-500:]}" if done.returncode else ""

    with ThreadPoolExecutor(max(1, min(len(runs), os.cpu_count() or 1))) as pool:
        failed = [error for error in pool.map(run, runs) if error]
    if failed:
        raise SearchIndexError(failed[0])
