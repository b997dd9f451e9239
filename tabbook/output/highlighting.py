"""Code highlighted by Pygments, kept between commands.

Highlighting is the largest part of rendering a page or a slide deck (a tenth of
`build.py html` after a sentence edit): a prose edit re-renders its page and its decks,
whose code has not changed. Each highlighted block is kept in a file of the build's cache
named by a hash of its language and source, in a folder per version of Pygments and of
this module; files are written atomically, so that concurrent builds and forked workers
share the folder safely. A folder grown past `KEPT_AT_MOST` blocks (edits of code add
blocks, none is removed) is emptied: the next render highlights again.
"""
from __future__ import annotations

import functools
import hashlib
import os
import shutil
from pathlib import Path

import pygments
from markupsafe import Markup
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import TextLexer, get_lexer_by_name
from pygments.util import ClassNotFound

from ..bootstrap.records import atomic_write
from .search_terms import index_attributes

# One formatter for every block: building one computes its whole style sheet.
CODE_FORMATTER = HtmlFormatter(nowrap=True)
KEPT_AT_MOST = 20_000
"""Blocks kept (about 2 KB each); the book's own code is about 2 000."""
VERSION = hashlib.sha256(pygments.__version__.encode()
                         + Path(__file__).read_bytes()).hexdigest()[:16]

_kept_in: Path | None = None


def keep_highlighted(cache: Path) -> None:
    """Keep the blocks highlighted from now on in `cache` (a folder of the build's), and
    take those already there; the folders of other versions are removed."""
    global _kept_in
    folder = cache / VERSION
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for other in cache.iterdir():
            if other.name != VERSION:
                shutil.rmtree(other, ignore_errors=True)
        if sum(1 for _ in os.scandir(folder)) > KEPT_AT_MOST:
            shutil.rmtree(folder)
            folder.mkdir()
    except OSError:   # a build folder that cannot be written: highlighted each time
        return
    _kept_in = folder


@functools.lru_cache(maxsize=None)   # finding a lexer by name is slow; using one is pure
def _lexer(language: str) -> Lexer:
    try:
        return get_lexer_by_name(language or "text")
    except ClassNotFound:
        return TextLexer()


def _highlighted(source: str, language: str) -> str:
    """Pygments' HTML for `source` (escaped by Pygments), from the cache when it is there."""
    if _kept_in is None:
        return pygments.highlight(source, _lexer(language), CODE_FORMATTER)
    entry = _kept_in / hashlib.sha256(f"{language}\0{source}".encode()).hexdigest()
    try:
        return entry.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        html = pygments.highlight(source, _lexer(language), CODE_FORMATTER)
        try:
            atomic_write(entry, html)
        except OSError:
            pass
        return html


@functools.lru_cache(maxsize=None)   # a cell common to the tabs is shown once per tab
def highlight_code(source: str, language: str = "python") -> Markup:
    body = Markup(_highlighted(source, language))
    return Markup('<pre class="code highlight" data-lang="{}"{}><code>{}</code></pre>').format(
        language, index_attributes(source), body)
