"""The files an HTML file of a built site uses, which go with it when a build keeps it.

A page or a deck whose inputs did not change is copied from the previous site instead of
rendered again; the images it shows were written by its rendering (`PageContext.image`,
`PageContext.output_file`), so they are copied with it, or the new site would show it
without them.
"""
from __future__ import annotations

import re
from pathlib import Path

from ..core.files import link_or_copy

LINKED_FILE = re.compile(r'(?:src|href)="(?![a-z][a-z0-9+.-]*:)([^"#?]+)"')
"""A file a page shows or links to by a relative URL."""
SHOWN_FILE = re.compile(r'\bsrc="(?![a-z][a-z0-9+.-]*:)([^"#?]+)"')
"""A file a page shows by a relative URL (an image, a script)."""


def copy_kept(path: str, previous: Path, staging: Path, used: re.Pattern = LINKED_FILE) -> None:
    """Copy the file at `path` (relative to the site folders) from the `previous` site into
    `staging`, with the files of `previous` that it uses (`used` finds their URLs) and
    that `staging` lacks."""
    source, root = previous / path, previous.resolve()
    target = staging / path
    target.parent.mkdir(parents=True, exist_ok=True)
    link_or_copy(source, target)
    for link in used.findall(source.read_text(encoding="utf-8")):
        file = (source.parent / link).resolve()
        if file.is_relative_to(root) and file.is_file():
            copied = staging / file.relative_to(root)
            if not copied.exists():
                copied.parent.mkdir(parents=True, exist_ok=True)
                link_or_copy(file, copied)
