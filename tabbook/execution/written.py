"""What each executed notebook was last written from, so that a prose edit rewrites only
the notebooks of the edited section.

An executed notebook written without a kernel (from the cache or the frozen store)
is a function of its split notebook, its record, its frozen note, the book's
language and the build's code. Merging and serialising it again only to find
the same bytes cost most of a prose edit's eval step; the hash of those inputs,
kept with the file's identity (inode, size, mtime) as written, tells it is
current without doing either. A notebook deleted, edited or written by a kernel
since no longer matches its entry, and is written again.
"""
from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field
from pathlib import Path

from ..bootstrap.records import fingerprint, key_of, read_record, write_record
from ..core.files import PACKAGE, tool_files
from ..core.language import Language
from ..core.layout import Layout
from .execute import write_executed
from .record import ExecutionRecord
from .tasks import Planned, Task


@functools.cache
def _code_fingerprint() -> str:
    """The build's code: a change to how notebooks are merged or written rewrites them."""
    return fingerprint(PACKAGE.parent, tool_files())


def _identity(path: Path) -> list[int] | None:
    """What changes whenever the file is replaced or edited; None if there is none."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return [stat.st_ino, stat.st_size, stat.st_mtime_ns]


@dataclass
class WrittenNotebooks:
    """The record of what each executed notebook was written from (loaded once per eval,
    saved once at its end)."""
    layout: Layout
    language: Language
    entries: dict[str, dict] = field(default_factory=dict)
    _loaded: dict[str, dict] = field(default_factory=dict)

    @classmethod
    def load(cls, layout: Layout, language: Language) -> WrittenNotebooks:
        entries = read_record(layout.executed_record) or {}
        return cls(layout, language, dict(entries), dict(entries))

    def _name(self, task: Task) -> str:
        return self.layout.executed(task.tab, task.section).relative_to(
            self.layout.eval).as_posix()

    def write(self, planned: Planned, record: ExecutionRecord) -> None:
        """Write the executed notebook of `planned` from `record`, unless it is, untouched,
        the one written from the same inputs."""
        task = planned.task
        path = self.layout.executed(task.tab, task.section)
        inputs = key_of({
            "notebook": task.notebook, "record": record.to_json(),
            "frozen": planned.frozen.metadata() if planned.frozen is not None else None,
            "language": [self.language.code, self.language.tag],
            "code": _code_fingerprint()})
        name = self._name(task)
        entry = self.entries.get(name)
        if entry and entry.get("inputs") == inputs and entry.get("file") == _identity(path):
            return
        self.entries.pop(name, None)   # should writing fail, no entry vouches for the file
        write_executed(self.layout, planned, record, self.language)
        self.entries[name] = {"inputs": inputs, "file": _identity(path)}

    def forget(self, tasks: list[Task], removed: tuple[Path, ...] = ()) -> None:
        """Drop the entries of notebooks written otherwise (by a kernel) or `removed`."""
        for task in tasks:
            self.entries.pop(self._name(task), None)
        for path in removed:
            if path.is_relative_to(self.layout.eval):
                self.entries.pop(path.relative_to(self.layout.eval).as_posix(), None)

    def save(self) -> None:
        if self.entries != self._loaded:
            write_record(self.layout.executed_record, self.entries)
            self._loaded = dict(self.entries)

