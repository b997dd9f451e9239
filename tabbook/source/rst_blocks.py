"""The two kinds of ``eval_rst`` blocks (reStructuredText for d2lbook's Sphinx) that this
build understands; any other one is left out of the HTML with a warning.

- ``.. automodule:: d2l.<module>`` (with options such as ``:members:``): the reference of
  that library module (`output/package_reference.py` renders it in place of the block);
- ``.. only:: html`` holding a title underlined with ``=`` (d2l-en's references page): the
  page's title, as Sphinx takes it, when the page has none before it.
"""
from __future__ import annotations

import re
from pathlib import PurePosixPath

from ..core.config import Config
from ..core.model import CellKind, Problem, Section

AUTOMODULE = re.compile(r"^\.\.\s+automodule::\s*(\S+)\s*$")
OPTION = re.compile(r"^\s+:[\w-]+:.*$")
ONLY_HTML = re.compile(r"^\.\.\s+only::\s*html\s*$")
UNDERLINE = re.compile(r"^([=\-~^\"'`#*+.:_])\1+$")


def _lines(body: str) -> list[str]:
    return [line for line in body.split("\n") if line.strip()]


def automodule(body: str) -> str:
    """The module of a block that is one ``automodule`` directive (its options aside),
    e.g. ``d2l.torch``; "" for any other block."""
    lines = _lines(body)
    match = AUTOMODULE.match(lines[0]) if lines else None
    if match and all(OPTION.match(line) for line in lines[1:]):
        return match.group(1)
    return ""


def html_title(body: str) -> str:
    """The title of a block that is one ``only:: html`` directive holding only a title and
    its underline (an overline too, if any); "" for any other block."""
    lines = _lines(body)
    if not lines or not ONLY_HTML.match(lines[0]):
        return ""
    inner = [line.strip() for line in lines[1:]]
    if not all(line.startswith((" ", "\t")) for line in lines[1:]):
        return ""
    if len(inner) == 3 and UNDERLINE.match(inner[0]) and inner[0] == inner[2]:
        inner = inner[1:]
    if len(inner) == 2 and UNDERLINE.match(inner[1]) and len(inner[1]) >= len(inner[0]):
        return inner[0]
    return ""


def automodules(section: Section) -> list[str]:
    """The modules of the section's automodule blocks."""
    return [module for cell in section.cells
            if cell.kind is CellKind.DISPLAY and cell.fence == "eval_rst"
            and (module := automodule(cell.source))]


def module_tabs(config: Config) -> dict[str, str]:
    """Python module -> its tab, for the tabs with a library (``d2l.torch`` -> pytorch)."""
    return {PurePosixPath(library.lib_file).with_suffix("").as_posix().replace("/", "."): tab
            for tab, library in config.library.tabs.items()}


def unknown_modules(sections: list[Section], config: Config) -> list[Problem]:
    """A warning for each automodule block naming a module no tab's library writes: it
    shows nothing."""
    known = module_tabs(config)
    return [Problem(section.display_path, cell.line - 1, f"automodule {module}: no "
                    "[library-<tab>] of config.ini writes that module, the block shows nothing",
                    f"name one of {', '.join(sorted(known)) or 'the libraries (none)'}",
                    warning=True)
            for section in sections for cell in section.cells
            if cell.kind is CellKind.DISPLAY and cell.fence == "eval_rst"
            and (module := automodule(cell.source)) and module not in known]
