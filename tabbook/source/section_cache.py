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
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from markdown_it.token import Token

from ..bootstrap.records import atomic_write, fingerprint
from ..core.config import Config
from ..core.files import PACKAGE, tool_files
from ..core.layout import Layout
from ..core.model import Problem, Section
from ..core.parallel import forked_map
from .check import SectionCheck, check_section
from .parse import section_of


PARALLEL_FROM = 16
"""Fewer files to parse than this are parsed in the command's own process: starting the
workers would cost more than it saves."""


@dataclass(frozen=True)
class _Source:
    """A source file's bytes, its names and the key of its entry."""
    data: bytes
    relative: Path
    """Relative to the source folder."""
    display: str
    """As messages name it."""
    key: str


class SectionCache:
    """`read` parses and checks a source file, or takes both from its entry; `checks`
    holds the section checks of every file read, by display path, for `check_book`."""

    def __init__(self, config: Config, layout: Layout, prefill: Iterable[Path] = ()):
        self.config, self.layout = config, layout
        read_config = (config.build.tabs, config.build.default_tab, sorted(config.library.tabs))
        self.common = fingerprint(PACKAGE.parent, tool_files(), sys.version, repr(read_config))
        self.checks: dict[str, SectionCheck] = {}
        self.keys: dict[str, str] = {}
        """The key of each file read, by display path: its section's split notebooks are
        kept under it (`notebooks/split_store.py`)."""
        self.unsaved: dict[Path, bytes] = {}
        """Entries made by this command, written by `save`."""
        self.prefill(prefill)

    def read(self, file: Path, source_root: Path, project_root: Path,
             book_tabs: tuple[str, ...]) -> tuple[Section, list[Problem]]:
        """A `parse.SectionReader`."""
        source = self._source(file, source_root, project_root)
        path = self.layout.parsed_section(source.relative)
        found = _load(self.unsaved.get(path) or _read(path), source.key)
        if found is None:
            self.unsaved[path] = _pickled(source.key, self._made(source))
            found = _load(self.unsaved[path], source.key)
        section, problems, self.checks[source.display] = found
        self.keys[source.display] = source.key
        return section, problems

    def prefill(self, files: Iterable[Path]) -> None:
        """Make the missing or stale entries of `files` (absolute paths) on every core at
        once, when there are many (a first command, a new version of the build): `read`
        then finds them made, in any order."""
        source_root, project_root = self.config.source_root.resolve(), self.config.root.resolve()
        sources = (self._source(file, source_root, project_root) for file in sorted(files))
        stale = [source for source in sources
                 if not _holds(self.layout.parsed_section(source.relative), source.key)]
        made = forked_map(lambda index: _pickled(stale[index].key, self._made(stale[index])),
                          len(stale), PARALLEL_FROM)
        for source, entry in zip(stale, made, strict=True):   # strict: the workers end
            self.unsaved[self.layout.parsed_section(source.relative)] = entry

    def save(self) -> None:
        """Write the entries made by this command (a command that builds saves them under
        its lock): a `check` of a fresh book spares the next command its parse."""
        for path, entry in self.unsaved.items():
            _store(path, entry)
        self.unsaved.clear()

    def _source(self, file: Path, source_root: Path, project_root: Path) -> _Source:
        data = file.read_bytes()
        relative = file.relative_to(source_root)
        display = file.relative_to(project_root).as_posix()
        named = "\0".join((self.common, relative.as_posix(), display, *self.config.build.tabs))
        return _Source(data, relative, display,
                       hashlib.sha256(named.encode() + b"\0" + data).hexdigest())

    def _made(self, source: _Source) -> Entry:
        """Parse and check the file."""
        section, problems = section_of(source.data, source.relative, source.display,
                                       self.config.build.tabs)
        return section, problems, check_section(section, self.config)


Entry = tuple[Section, list[Problem], SectionCheck]


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""


def _holds(path: Path, key: str) -> bool:
    """Whether the entry at `path` is the one of `key` (read no further than the key)."""
    try:
        with path.open("rb") as entry:
            return entry.read(len(key) + 1) == key.encode() + b"\n"
    except OSError:
        return False


def _load(stored: bytes, key: str) -> Entry | None:
    """The entry `stored` if it holds `key`; None if it does not or cannot be read."""
    try:
        stored_key, _, pickled = stored.partition(b"\n")
        return pickle.loads(pickled) if stored_key == key.encode() else None
    except Exception:   # truncated, or pickled by other code: made again
        return None


def _pickled(key: str, entry: Entry) -> bytes:
    """The entry as stored: its key on the first line, then the pickled entry."""
    data = io.BytesIO()
    pickler = pickle.Pickler(data, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = {**copyreg.dispatch_table, Token: _token_reduced}
    data.write(key.encode() + b"\n")
    pickler.dump(entry)
    return data.getvalue()


def _store(path: Path, entry: bytes) -> None:
    """Write the entry atomically; a cache that cannot be written is only a slower build."""
    try:
        atomic_write(path, entry)
    except OSError:
        pass


TOKEN_FIELDS = tuple(field.name for field in dataclasses.fields(Token))


def _token_reduced(token: Token) -> tuple:
    """A prose token pickled as a call of its constructor: loaded twice as fast as its
    slots set one by one (a book holds hundreds of thousands of tokens)."""
    return Token, tuple(getattr(token, name) for name in TOKEN_FIELDS)
