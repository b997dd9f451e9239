"""IPython's magics in code cells: a name IPython does not know is a typo to report.

An unknown cell magic (``%%tabs mxnet`` for ``%%tab mxnet``) makes the split
stage take the line for code, and the kernel stop the cell with "Cell magic not
found"; an unknown line magic stops it the same way. Extensions loaded with
``%load_ext`` may define magics of their own: in their sections an unknown name
is only a warning.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from .branches import TAB_MARK

# IPython 9's magics (``%lsmagic``) and those of ipykernel and its default extensions.
CELL_MAGICS = frozenset({
    "!", "HTML", "SVG", "bash", "capture", "code_wrap", "debug", "file", "html", "javascript",
    "js", "latex", "markdown", "perl", "prun", "pypy", "python", "python2", "python3", "ruby",
    "script", "sh", "svg", "sx", "system", "time", "timeit", "writefile"})
LINE_MAGICS = frozenset({
    "alias", "alias_magic", "autoawait", "autocall", "automagic", "autosave", "bookmark", "cat",
    "cd", "clear", "code_wrap", "colors", "conda", "config", "connect_info", "cp", "debug",
    "dhist", "dirs", "doctest_mode", "ed", "edit", "env", "gui", "hist", "history",
    "killbgscripts", "ldir", "less", "lf", "lk", "ll", "load", "load_ext", "loadpy", "logoff",
    "logon", "logstart", "logstate", "logstop", "ls", "lsmagic", "lx", "macro", "magic",
    "mamba", "man", "matplotlib", "micromamba", "mkdir", "more", "mv", "notebook", "page",
    "pastebin", "pdb", "pdef", "pdoc", "pfile", "pinfo", "pinfo2", "pip", "popd", "pprint",
    "precision", "prun", "psearch", "psource", "pushd", "pwd", "pycat", "pylab", "qtconsole",
    "quickref", "recall", "rehashx", "reload_ext", "rep", "rerun", "reset", "reset_selective",
    "rm", "rmdir", "run", "save", "sc", "set_env", "store", "sx", "system", "tb", "time",
    "timeit", "unalias", "unload_ext", "uv", "who", "who_ls", "whos", "xdel", "xmode"})
CELL_MAGIC = re.compile(r"%%(\S*)")
# A line magic starts its line (after an optional ``x =``); ``% y`` is the modulo operator.
LINE_MAGIC = re.compile(r"\s*(?:[\w.]+(?:\s*,\s*[\w.]+)*\s*=\s*)?%([A-Za-z_]\w*)")
LOAD_EXT = re.compile(r"^\s*%load_ext\s+(?!d2lbook\.tab\b)\S", re.M)


@dataclass(frozen=True)
class CellMagic:
    index: int
    """0-based line in the cell's source."""
    name: str
    """``bash`` for ``%%bash -e``; empty for a bare ``%%``."""
    line: str
    """The line, indentation aside."""


def cell_magic(lines: list[str]) -> CellMagic | None:
    """The cell magic of a cell's code, found as IPython finds it: on its first line that is
    not blank, indentation aside (IPython drops leading blank lines and dedents the first
    line). A tab mark counts as blank: the split removes it. The one detector of the build."""
    for index, line in enumerate(lines):
        text = line.strip()
        if text and not TAB_MARK.match(text):
            found = CELL_MAGIC.match(text)
            return CellMagic(index, found.group(1), text) if found else None
    return None


@dataclass(frozen=True)
class MagicIssue:
    index: int
    """0-based line in the cell's source."""
    message: str
    fix: str


def loads_extension(sources: list[str]) -> bool:
    """Whether code loads an IPython extension (other than d2lbook's tabs)."""
    return any(LOAD_EXT.search(source) for source in sources)


def unknown_magics(source: str) -> list[MagicIssue]:
    """The magics of a cell's code that IPython does not know, each with its fix."""
    lines = source.split("\n")
    cell = cell_magic(lines)
    if cell:   # the whole cell is the magic's: not Python, no line magics to read
        return [] if cell.name in CELL_MAGICS else [_cell_issue(cell.index, cell.line)]
    issues = []
    for index, line in enumerate(lines):
        found = LINE_MAGIC.match(line)
        if found and found.group(1) not in LINE_MAGICS:
            issues.append(MagicIssue(index, f"unknown line magic %{found.group(1)} (the kernel "
                                     "stops the cell: 'Line magic function not found')",
                                     _closest(found.group(1), LINE_MAGICS, "%")))
    return issues


def _cell_issue(index: int, line: str) -> MagicIssue:
    name, _, rest = line[2:].partition(" ")
    if difflib.get_close_matches(name.lower(), ["tab"], n=1, cutoff=0.6):
        fix = f"to mark the cell's tab, write %%tab {rest.strip() or '<tab>'}"
    else:
        fix = _closest(name, CELL_MAGICS, "%%")
    return MagicIssue(index, f"unknown cell magic %%{name} in {line!r} (the kernel stops the "
                      "cell: 'Cell magic not found')", fix)


def _closest(name: str, known: frozenset[str], prefix: str) -> str:
    close = difflib.get_close_matches(name, sorted(known), n=1)
    if close:
        return f"did you mean {prefix}{close[0]}?"
    return f"use one of IPython's magics (%lsmagic lists them), or remove the {prefix} line"
