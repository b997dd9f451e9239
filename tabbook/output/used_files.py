"""The files an HTML file of a built site uses, which go with it when a build keeps it.

A page or a deck whose inputs did not change is copied from the previous site instead of
rendered again; the images it shows were written by its rendering (`PageContext.image`,
`PageContext.output_file`), so they are copied with it, or the new site would show it
without them.
"""
from __future__ import annotations

import posixpath
import re
from pathlib import Path

from ..core.files import link_or_copy

# Both start with the literal `="`, which `re` searches fast (12 times faster on a page
# than the same patterns written `src="…`), then look behind for the attribute's name.
LINKED_FILE = re.compile(r'="(?:(?<=src=")|(?<=href="))(?![a-z][a-z0-9+.-]*:)([^"#?]+)"')
"""A file a page shows or links to by a relative URL."""
SHOWN_FILE = re.compile(r'="(?<=\bsrc=")(?![a-z][a-z0-9+.-]*:)([^"#?]+)"')
"""A file a page shows by a relative URL (an image, a script)."""


def copy_kept(path: str, previous: Path, staging: Path, used: re.Pattern = LINKED_FILE) -> None:
    """Give `staging` the file at `path` (relative to the site folders) of the `previous`
    site, with the files of `previous` that it uses (`used` finds their URLs) and that
    `staging` lacks."""
    target = staging / path
    target.parent.mkdir(parents=True, exist_ok=True)
    link_or_copy(previous / path, target)
    folder = posixpath.dirname(path)
    for link in used.findall((previous / path).read_text(encoding="utf-8")):
        # A URL the site's own pages wrote: no symbolic link under it, so names alone
        # tell where it points (no path resolved per URL, which cost a tenth of a second).
        name = posixpath.normpath(posixpath.join(folder, link))
        copied = staging / name
        outside = name == ".." or name.startswith(("../", "/"))
        if outside or copied.exists() or not (previous / name).is_file():
            continue
        copied.parent.mkdir(parents=True, exist_ok=True)
        link_or_copy(previous / name, copied)
