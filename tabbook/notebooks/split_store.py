"""The split notebooks kept between commands, so that an edit splits again only the
notebooks of the section it touched (splitting the whole book cost every build 0.3 s).

A section's notebook for a tab is a function of the section's entry in the section cache
alone (`split.split_section` reads the section and the tab; the entry's key covers the
source file, the config values the parser reads, the build's code and Python's version),
so it is kept under that key: `_build/split-notebooks/<tab>/<section>.pickle`, the key on
the first line. An entry that cannot be read, or holds another key, is split again.
"""
from __future__ import annotations

from collections.abc import Mapping

import nbformat

from ..bootstrap.records import kept_result
from ..core.layout import Layout
from ..core.model import Section
from .split import split_section


class SplitStore:
    """`notebook(section, tab)` is `split_section(section, tab)`, taken from the kept
    entry when the section's key is that of the entry."""

    def __init__(self, layout: Layout, keys: Mapping[str, str]):
        self.layout = layout
        self.keys = keys
        """The section cache's key of each section read, by display path."""

    def notebook(self, section: Section, tab: str) -> nbformat.NotebookNode:
        key = self.keys.get(section.display_path)
        if key is None:   # a section the cache did not read (made by a test, say)
            return split_section(section, tab)
        return kept_result(self.layout.kept_split(tab, section), f"{key}:{tab}",
                           lambda: split_section(section, tab))
