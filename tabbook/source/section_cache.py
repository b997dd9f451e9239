"""The parse and the section-local checks of a source file, kept between commands.

A file's entry holds its `Section`, the problems met parsing it and what the check finds
in it alone (`check.SectionCheck`), under a key made of everything they come from: the
file's bytes and names, the config values the parser and the check read, the build's own
code and pinned tools, and Python's version. An unchanged file is thus neither parsed
nor checked again; the book-wide checks (references, labels, citations, add_to_class
order) still run on every call, on the model rebuilt from the entries. An entry that
cannot be read (missing, truncated, from other code) is made again, never an error.
"""
from __future__ import annotations

import copyreg
import dataclasses
import hashlib
import io
import pickle
import sys
from pathlib import Path

from markdown_it.token import Token

from ..bootstrap.records import atomic_write, fingerprint
from ..core.config import Config
from ..core.files import PACKAGE, tool_files
from ..core.layout import Layout
from ..core.model import Problem, Section
from .check import SectionCheck, check_section
from .parse import section_of


class SectionCache:
    """`read` parses and checks a source file, or takes both from its entry; `checks`
    holds the section checks of every file read, by display path, for `check_book`."""

    def __init__(self, config: Config, layout: Layout):
        self.config, self.layout = config, layout
        read_config = (config.build.tabs, config.build.default_tab, sorted(config.library.tabs))
        self.common = fingerprint(PACKAGE.parent, tool_files(), sys.version, repr(read_config))
        self.checks: dict[str, SectionCheck] = {}

    def read(self, file: Path, source_root: Path, project_root: Path,
             book_tabs: tuple[str, ...]) -> tuple[Section, list[Problem]]:
        """A `parse.SectionReader`."""
        data = file.read_bytes()
        relative = file.relative_to(source_root)
        source = file.relative_to(project_root).as_posix()
        key = hashlib.sha256("\0".join((self.common, relative.as_posix(), source, *book_tabs))
                             .encode() + b"\0" + data).hexdigest()
        entry = self.layout.parsed_section(relative)
        found = _load(entry, key)
        if found is None:
            section, problems = section_of(data, relative, source, book_tabs)
            found = section, problems, check_section(section, self.config)
            _store(entry, key, found)
        section, problems, self.checks[source] = found
        return section, problems


Entry = tuple[Section, list[Problem], SectionCheck]


def _load(path: Path, key: str) -> Entry | None:
    """The entry at `path` if it holds `key`; None if it does not or cannot be read."""
    try:
        stored_key, entry = pickle.loads(path.read_bytes())
    except Exception:   # missing, truncated, or pickled by other code: made again
        return None
    return entry if stored_key == key else None


def _store(path: Path, key: str, entry: Entry) -> None:
    """Write the entry atomically; a cache that cannot be written is only a slower build."""
    data = io.BytesIO()
    pickler = pickle.Pickler(data, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = {**copyreg.dispatch_table, Token: _token_reduced}
    pickler.dump((key, entry))
    try:
        atomic_write(path, data.getvalue())
    except OSError:
        pass


TOKEN_FIELDS = tuple(field.name for field in dataclasses.fields(Token))


def _token_reduced(token: Token) -> tuple:
    """A prose token pickled as a call of its constructor: loaded twice as fast as its
    slots set one by one (a book holds hundreds of thousands of tokens)."""
    return Token, tuple(getattr(token, name) for name in TOKEN_FIELDS)
