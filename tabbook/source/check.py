"""Check stage: everything that can be wrong in a parsed book, reported at once.

Each problem names the .md file and line, the tab when it matters, what is
wrong and how to fix it. The stage only reads the model.
"""
from __future__ import annotations

import dataclasses
import difflib
import posixpath
import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from markdown_it.token import Token

from ..core.config import Config
from ..core.model import (ALL_TABS, Book, Cell, CellKind, Image, Problem, Section,
                          project_path)
from ..features.registry import FEATURES
from ..features.registry import ROLES as FEATURE_ROLES
from .latex import to_mathml
from .magics import loads_extension, unknown_magics
from .pycode import Analysis, analyse, cell_code, compile_issue
from .roles import BLOCK_ROLES, INLINE_ROLES, SPHINX_ROLES, located_tokens
from .rst_blocks import unknown_modules
from .saving import SAVE_MARK, saved_definitions, unsaved_rest

EXTERNAL = ("http://", "https://", "//")
INLINE = "data:"
# A src attribute (<img>, <iframe>, <video>…) that points outside the book.
EXTERNAL_SOURCE = re.compile(r"""\bsrc\s*=\s*["']?((?:https?:)?//[^"'\s>]+)""", re.I)
LOCAL_COPY = "download it into img/ and use the local file"
# Math tokens of the prose -> whether they are shown as display math.
MATH = {"math_inline": False, "math_inline_double": True, "math_block": True}


@dataclass(frozen=True)
class SavedClass:
    """A class that a #@save cell saves for a tab (`line` 0), or that an add_to_class call
    at `line` needs saved before it: the book-wide check replays them in book order."""
    tab: str
    name: str
    line: int


@dataclass(frozen=True)
class SectionCheck:
    """What the check finds in one section alone (what the section cache keeps)."""
    problems: tuple[Problem, ...]
    saves: tuple[SavedClass, ...]


class _Findings:
    """The problems found in one section, each at its .md line."""

    def __init__(self, section: Section):
        self.section = section
        self.problems: list[Problem] = []

    def add(self, line: int, message: str, fix: str, tab: str = "",
            warning: bool = False) -> None:
        self.problems.append(Problem(self.section.display_path, line, message, fix, tab,
                                     warning))


def _tab_problems(section: Section, config: Config) -> list[Problem]:
    found = _Findings(section)
    book_tabs = config.build.tabs
    for tab in section.declared_tabs or ():
        if tab not in book_tabs:
            found.add(section.declaration_line, f"the section declares tab {tab!r}, which is "
                      f"not one of the book's tabs ({', '.join(book_tabs)})",
                      "remove it or add it to [build] tabs in config.ini")
    for cell in section.cells:
        if cell.tab_line is not None:
            _check_tab_names(found, cell, book_tabs)
    if section.declared_tabs is not None:
        _undeclared_tabs(found, config)
    return found.problems


def _check_tab_names(found: _Findings, cell: Cell, book_tabs: tuple[str, ...]) -> None:
    """The tabs a %%tab or :begin_tab: names are the book's."""
    what = "%%tab" if cell.kind is CellKind.CODE else ":begin_tab:"
    if cell.tabs == ("",):
        found.add(cell.tab_line, f"{what} names no tab", f"write e.g. {what} pytorch")
        return
    for name in cell.tabs:
        if name != ALL_TABS and name not in book_tabs:
            found.add(cell.tab_line, f"unknown tab {name!r} in {what}",
                      f"use one of: {', '.join((ALL_TABS,) + book_tabs)}")


def _undeclared_tabs(found: _Findings, config: Config) -> None:
    """The tabs that cells give a notebook though the section's tab.interact_select list
    leaves them out: d2lbook makes those notebooks (and their library code), and so does
    this build. One warning per tab, at the first cell that brings it."""
    section = found.section
    declared = section.declared_tabs or ()
    for tab in section.tabs:
        if tab in declared:
            continue
        cell = next(c for c in section.cells if _brings(c, tab, config.build.default_tab))
        library = f", and its #@save code goes into the {tab} library" \
            if tab in config.library.tabs else ""
        found.add(cell.line if cell.tab_line is None else cell.tab_line,
                  f"{_bringer(cell, tab)} gives the section a notebook for {tab}, though its "
                  f"tab.interact_select list ({', '.join(declared)}) leaves it out: as d2lbook "
                  f"does, the notebook is made{library}", f"add {tab!r} to the section's "
                  "tab.interact_select([...]), or change the cell's tabs", warning=True)


def _brings(cell: Cell, tab: str, default_tab: str) -> bool:
    """Whether `cell` gives its section a notebook for `tab` (d2lbook's get_tab_notebook):
    it names the tab, or it is in the default tab."""
    if cell.tab_line is not None and tab in cell.tabs:
        return True
    return tab == default_tab and cell.in_tab(tab) and \
        (cell.kind is CellKind.CODE or cell.tab_line is not None)


def _bringer(cell: Cell, tab: str) -> str:
    """The cell that gives a section a tab's notebook, in words."""
    if cell.tab_line is None:
        return f"an untagged code cell (of the default tab, {tab})"
    what = "%%tab" if cell.kind is CellKind.CODE else ":begin_tab:"
    return f"{what} {', '.join(cell.tabs)}"


def _code_problems(section: Section, config: Config) -> tuple[list[Problem], list[SavedClass]]:
    """Compile every code cell for each of its tabs; check #@save. What add_to_class needs
    of earlier sections is returned, in order, for the book-wide check (`_unsaved_classes`)."""
    found = _Findings(section)
    saves: list[SavedClass] = []
    book_tabs = config.build.tabs
    extensions = loads_extension([cell.source for cell in section.code_cells()])
    for cell in section.code_cells():
        _check_indentation(found, cell)
        for magic in unknown_magics(cell.source):
            found.add(cell.line + magic.index, magic.message, magic.fix, warning=extensions)
        analysis = analyse(cell.source)
        for issue in analysis.issues:
            found.add(cell.line + issue.index, issue.located(cell.line), issue.fix)
        for index, name in analysis.tab_names:
            if name not in book_tabs:
                found.add(cell.line + index, f"unknown tab {name!r} in tab.selected",
                          f"use one of: {', '.join(book_tabs)}")
        for tab in section.tabs:
            if tab in book_tabs and cell.in_tab(tab):
                saves += _check_resolved(found, cell, tab, analysis)
    return found.problems, saves


def _marks_saved_nowhere(sections: list[Section], config: Config) -> list[Problem]:
    """A tab without a library (no ``[library-<tab>]``) saves nothing, as in d2lbook: one
    warning per such tab, at its first #@save mark in book order."""
    problems = []
    for tab in (t for t in config.build.tabs if t not in config.library.tabs):
        marks = ((section, cell.line + index) for section in sections if tab in section.tabs
                 for cell in section.code_cells() if cell.in_tab(tab)
                 for index, line in enumerate(cell.source.split("\n")) if SAVE_MARK.search(line))
        section, line = next(marks, (None, 0))
        if section is not None:
            problems.append(Problem(
                section.display_path, line, f"#@save: the book has no {tab} library (no "
                f"[library-{tab}] section in config.ini): as in d2lbook, the {tab} code "
                "marked #@save is saved nowhere", f"add [library-{tab}] with lib_file = the "
                "file to generate, or remove the marks", tab, warning=True))
    return problems


def _check_indentation(found: _Findings, cell: Cell) -> None:
    for offset, line in enumerate(cell.source.split("\n")):
        indentation = line[:len(line) - len(line.lstrip(" \t"))]
        if "\t" in indentation:
            found.add(cell.line + offset, "tab character in the indentation of code",
                      "indent with spaces (4 per level)")


def _check_resolved(found: _Findings, cell: Cell, tab: str,
                    analysis: Analysis) -> list[SavedClass]:
    """A cell's code for one tab: it compiles, and what #@save saves can be saved; the
    classes it saves and those its add_to_class calls need, in order."""
    resolved = cell_code(cell, tab)
    if resolved.note:   # d2lbook reads the branches otherwise than Python
        found.add(cell.line + resolved.note.index, resolved.note.located(cell.line),
                  resolved.note.fix, tab, warning=True)
    issue = analysis.syntax_error or compile_issue(resolved)
    if issue:
        found.add(cell.line + issue.index, issue.located(cell.line), issue.fix, tab)
        return []
    saved, issues = saved_definitions(resolved)
    for issue in issues:
        found.add(cell.line + issue.index, issue.located(cell.line), issue.fix, tab)
    # An import cell whose #@save reads as "save this cell", cut by a blank line.
    rest = unsaved_rest(resolved) if all(item.kind == "import" for item in saved) else None
    if rest is not None:
        found.add(cell.line + rest, "this code is not saved: the #@save on the cell's first "
                  "line saves the imports up to the first blank line only (d2lbook's rule)",
                  "remove the blank line, or mark this code with its own #@save", tab,
                  warning=True)
    return [SavedClass(tab, definition.name if definition.kind == "class"
                       else definition.target_class,
                       0 if definition.kind == "class" else cell.line + definition.index)
            for definition in saved if definition.kind in ("class", "method")]


def _unsaved_classes(section: Section, saves: Sequence[SavedClass],
                     saved_classes: dict[str, set[str]]) -> list[Problem]:
    """The add_to_class calls of `section` whose class is not saved earlier in book order;
    `saved_classes` (each tab's classes saved so far) grows with the section's."""
    found = _Findings(section)
    for save in saves:
        known = saved_classes[save.tab]
        if not save.line:
            known.add(save.name)
        elif save.name not in known:
            found.add(save.line, f"add_to_class({save.name}): class {save.name!r} is not "
                      "saved earlier in book order", f"save `class {save.name}` with #@save "
                      "in an earlier section or cell", save.tab)
    return found.problems


def _label_problems(sections: list[Section]) -> tuple[set[str], list[Problem]]:
    """The book's labels, and those defined twice."""
    problems = []
    labels: dict[str, tuple[str, int]] = {}
    for section in sections:
        for label in section.labels:
            if label.name not in labels:
                labels[label.name] = (section.display_path, label.line)
                continue
            path, line = labels[label.name]
            problems.append(Problem(section.display_path, label.line, f"label {label.name!r} is "
                                    f"already defined at {path}:{line} (references go there)",
                                    "give this label another name", warning=True))
    return set(labels), problems


def _reference_problems(sections: list[Section], book: Book) -> list[Problem]:
    labels, problems = _label_problems(sections)
    for section in sections:
        found = _Findings(section)
        for ref in section.references:
            if ref.target not in labels:
                found.add(ref.line, f":{ref.role}: refers to unknown label {ref.target!r} (shown "
                          "as text)", "fix the name or add the :label: it refers to", warning=True)
        base = (book.source_root / section.path).parent
        for image in section.images:
            _check_image(found, base, image)
        problems += found.problems
    return problems


def _check_image(found: _Findings, base: Path, image: Image) -> None:
    """An image is the book's own file: in the book's folder, which the site copies from."""
    if image.path.startswith(EXTERNAL):
        found.add(image.line, f"image loaded from outside the book: {image.path} (a page "
                  "loads nothing from outside)", LOCAL_COPY, warning=True)
    elif image.path.startswith(INLINE):
        return
    elif _outside_book(project_path(found.section.display_path, image.path)):
        found.add(image.line, f"image outside the book's folder: {image.path} (images must "
                  "live inside the book's folder, where config.ini is: the site copies nothing "
                  "from elsewhere)", "move the image into the book's folder (e.g. img/) and "
                  "write its path relative to this .md file")
    elif not (base / image.path).is_file():
        found.add(image.line, f"image not found: {image.path}",
                  "fix the path (relative to this .md file) or add the file")


def _outside_book(path: str) -> bool:
    """Whether `path`, relative to the book's folder (`project_path`), leaves it."""
    return posixpath.isabs(path) or path == ".." or path.startswith("../")


def _prose_problems(section: Section) -> list[Problem]:
    """Math that MathML cannot show as written, and HTML that loads from outside the book."""
    found = _Findings(section)
    for cell in section.cells:
        if cell.kind is not CellKind.PROSE:
            continue
        _check_feature_roles(found, cell)
        for token, line in located_tokens(cell.tokens, cell.line):
            if token.type in MATH:
                _check_math(found, token, line)
            elif token.type in ("html_block", "html_inline"):
                for match in EXTERNAL_SOURCE.finditer(token.content):
                    found.add(line + token.content.count("\n", 0, match.start()),
                              f"HTML loads {match.group(1)} from outside the book (a page "
                              "loads nothing from outside)", LOCAL_COPY, warning=True)
            elif token.type == "unknown_role":
                _check_unknown_role(found, token, line)
    return found.problems


def _check_unknown_role(found: _Findings, token: Token, line: int) -> None:
    """A role this build cannot read is shown as written (as Sphinx shows what it cannot
    read): a misspelt role, one of Sphinx's, or an attribute role inside a line."""
    role, written = token.meta["role"], token.markup
    if role in BLOCK_ROLES:
        found.add(line, f"{written} inside a line of text (shown as written): d2lbook reads "
                  f":{role}: on a line of its own only", "put it on a line of its own, under "
                  "the block it belongs to", warning=True)
    elif role in SPHINX_ROLES:
        found.add(line, f"{written}: Sphinx's role :{role}: is not rendered by this build "
                  "(shown as written)", "write the math as $…$" if role in ("math", "eq")
                  else "write it in Markdown", warning=True)
    else:
        close = difflib.get_close_matches(role, INLINE_ROLES + BLOCK_ROLES, n=1)
        found.add(line, f"unknown role :{role}: in {written} (shown as written; d2lbook's "
                  "Sphinx warns 'Unknown interpreted text role')",
                  f"did you mean :{close[0]}:?" if close else "use one of the roles "
                  + ", ".join(f":{name}:" for name in sorted(INLINE_ROLES)), warning=True)


def _check_feature_roles(found: _Findings, cell: Cell) -> None:
    """The roles the features add, each checked by its feature, told whether it is in a
    title."""
    in_title = False
    for token, line in located_tokens(cell.tokens, cell.line):
        in_title = token.type != "heading_close" and (in_title or token.type == "heading_open")
        feature = FEATURE_ROLES.get(token.meta["role"]) if token.type == "role" else None
        if feature is not None and feature.check is not None:
            for at, message, fix in feature.check(token.meta["content"], line, in_title):
                found.add(at, message, fix)


def _check_math(found: _Findings, token: Token, line: int) -> None:
    _, problem = to_mathml(token.content, MATH[token.type])
    if problem:
        written = " ".join(token.content.split())
        shown = written if len(written) <= 40 else written[:37] + "..."
        found.add(line, f"math {token.markup}{shown}{token.markup}: {problem}",
                  "fix the LaTeX (pages show math as MathML made by latex2mathml)", warning=True)


def _orphan_problems(book: Book) -> list[Problem]:
    problems = []
    for orphan in book.orphans:
        owner = orphan.path.parent / "index.md"
        if not (book.source_root / owner).is_file() or orphan.path == owner:
            owner = book.index.path
        entry = orphan.path.relative_to(owner.parent).with_suffix("").as_posix()
        owner_source = Path(book.index.display_path).parent / owner
        problems.append(Problem(orphan.display_path, 1, "this section is in no TOC: it is in no "
                                "page, numbering or library",
                                f"add '{entry}' to the toc block of {owner_source.as_posix()}, "
                                "or list the file in [build] exclusions", warning=True))
    return problems


def _merge_tabs(problems: list[Problem]) -> list[Problem]:
    """One problem found in several tabs is reported once, naming them all."""
    tabs: dict[Problem, list[str]] = defaultdict(list)
    for p in problems:
        key = dataclasses.replace(p, tab="")
        if p.tab not in tabs[key]:
            tabs[key].append(p.tab)
    return sorted(dataclasses.replace(key, tab=", ".join(t for t in found if t))
                  for key, found in tabs.items())


def check_section(section: Section, config: Config) -> SectionCheck:
    """What can be wrong in `section` whatever the rest of the book holds."""
    code, saves = _code_problems(section, config)
    return SectionCheck((*_tab_problems(section, config), *code, *_prose_problems(section)),
                        tuple(saves))


def check_book(book: Book, config: Config,
               checked: Mapping[str, SectionCheck] = {}) -> list[Problem]:
    """All problems of the book (the parser's are passed separately). `checked` holds the
    sections already checked alone (`check_section`), by display path."""
    sections = book.pages() + book.orphans
    problems = _orphan_problems(book)
    saved_classes: dict[str, set[str]] = defaultdict(set)
    for section in sections:
        alone = checked.get(section.display_path) or check_section(section, config)
        problems += alone.problems
        problems += _unsaved_classes(section, alone.saves, saved_classes)
    problems += _reference_problems(sections, book)
    for feature in FEATURES:
        if feature.check_book is not None:
            problems += feature.check_book(book.source_root, sections)
    problems += _marks_saved_nowhere(book.pages(), config)
    problems += unknown_modules(book.pages(), config)
    return _merge_tabs(problems)
