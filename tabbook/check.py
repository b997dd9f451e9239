"""Check stage: everything that can be wrong in a parsed book, reported at once.

Each problem names the .md file and line, the tab when it matters, what is
wrong and how to fix it. The stage only reads the model.
"""
from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from .bibliography import entries_by_page
from .config import Config
from .model import ALL_TABS, Book, CellKind, Problem, Section
from .pycode import analyse, compile_issue, saved_definitions, unsaved_rest

EXTERNAL = ("http://", "https://", "data:")


def _tab_problems(section: Section, config: Config) -> list[Problem]:
    problems = []
    book_tabs = config.build.tabs
    section_tabs = section.tabs

    def bad(line: int, message: str, fix: str, tab: str = "", warning: bool = False) -> None:
        problems.append(Problem(section.display_path, line, message, fix, tab, warning))

    for tab in section.declared_tabs or ():
        if tab not in book_tabs:
            bad(section.declaration_line, f"the section declares tab {tab!r}, which is not one "
                f"of the book's tabs ({', '.join(book_tabs)})",
                "remove it or add it to [build] tabs in config.ini")

    def check_names(names: tuple[str, ...], line: int, what: str) -> None:
        for name in names:
            if name == ALL_TABS:
                continue
            if name not in book_tabs:
                bad(line, f"unknown tab {name!r} in {what}",
                    f"use one of: {', '.join((ALL_TABS,) + book_tabs)}")
            elif name not in section_tabs:
                bad(line, f"tab {name!r} in {what} is not declared by this section "
                    f"({', '.join(section_tabs)}); no notebook shows it",
                    "add it to the section's tab.interact_select([...]) or change the tab",
                    warning=True)

    for cell in section.cells:
        if cell.kind is CellKind.CODE and cell.tab_line is None:
            if config.build.default_tab not in section_tabs:
                bad(cell.line, f"an untagged code cell belongs to the default tab "
                    f"{config.build.default_tab!r}, which this section does not declare",
                    "start the cell with %%tab <tab>")
            continue
        if cell.tab_line is None:
            continue
        if cell.tabs == ("",):
            what = "%%tab" if cell.kind is CellKind.CODE else ":begin_tab:"
            bad(cell.tab_line, f"{what} names no tab", f"write e.g. {what} pytorch")
            continue
        check_names(cell.tabs, cell.tab_line,
                    "%%tab" if cell.kind is CellKind.CODE else ":begin_tab:")
    return problems


def _code_problems(section: Section, config: Config,
                   saved_classes: dict[str, set[str]]) -> list[Problem]:
    """Compile every code cell for each of its tabs; check #@save and add_to_class."""
    problems = []
    book_tabs = config.build.tabs
    section_tabs = [t for t in section.tabs if t in book_tabs]

    def bad(line: int, message: str, fix: str, tab: str = "", warning: bool = False) -> None:
        problems.append(Problem(section.display_path, line, message, fix, tab, warning))

    for cell in section.code_cells():
        for offset, line in enumerate(cell.source.split("\n")):
            indentation = line[:len(line) - len(line.lstrip(" \t"))]
            if "\t" in indentation:
                bad(cell.line + offset, "tab character in the indentation of code",
                    "indent with spaces (4 per level)")
        analysis = analyse(cell.source)
        for issue in analysis.issues:
            bad(cell.line + issue.index, issue.message, issue.fix)
        for index, name in analysis.tab_names:
            if name not in book_tabs:
                bad(cell.line + index, f"unknown tab {name!r} in tab.selected",
                    f"use one of: {', '.join(book_tabs)}")
        for tab in section_tabs:
            if not cell.in_tab(tab):
                continue
            resolved = analysis.resolve(tab)
            issue = analysis.syntax_error or compile_issue(resolved)
            if issue:
                bad(cell.line + issue.index, issue.message, issue.fix, tab)
                continue
            saved, issues = saved_definitions(resolved)
            for issue in issues:
                bad(cell.line + issue.index, issue.message, issue.fix, tab)
            # An import cell whose #@save reads as "save this cell", cut by a blank line.
            rest = unsaved_rest(resolved) if all(item.kind == "import" for item in saved) \
                else None
            if rest is not None:
                bad(cell.line + rest, "this code is not saved: the #@save on the cell's first "
                    "line saves the imports up to the first blank line only (d2lbook's rule)",
                    "remove the blank line, or mark this code with its own #@save", tab,
                    warning=True)
            for definition in saved:
                line = cell.line + definition.index
                if definition.kind == "class":
                    saved_classes[tab].add(definition.name)
                elif definition.kind == "method" and \
                        definition.target_class not in saved_classes[tab]:
                    bad(line, f"add_to_class({definition.target_class}): class "
                        f"{definition.target_class!r} is not saved earlier in book order",
                        f"save `class {definition.target_class}` with #@save in an earlier "
                        "section or cell", tab)
    return problems


def _reference_problems(sections: list[Section], book: Book) -> list[Problem]:
    problems = []
    labels: dict[str, tuple[str, int]] = {}
    for section in sections:
        for label in section.labels:
            if label.name in labels:
                path, line = labels[label.name]
                problems.append(Problem(section.display_path, label.line,
                                        f"label {label.name!r} is already defined at "
                                        f"{path}:{line} (references go there)",
                                        "give this label another name", warning=True))
            else:
                labels[label.name] = (section.display_path, label.line)
    for section in sections:
        for ref in section.references:
            if ref.target not in labels:
                problems.append(Problem(section.display_path, ref.line,
                                        f":{ref.role}: refers to unknown label {ref.target!r} "
                                        "(shown as text)",
                                        "fix the name or add the :label: it refers to",
                                        warning=True))
        base = (book.source_root / section.path).parent
        if section.bibliography and not (base / section.bibliography.path).is_file():
            problems.append(Problem(section.display_path, section.bibliography.line,
                                    f"bibliography not found: {section.bibliography.path}",
                                    "fix the path (relative to this .md file)"))
        for image in section.images:
            if image.path.startswith(EXTERNAL):
                continue
            if not (base / image.path).is_file():
                problems.append(Problem(section.display_path, image.line,
                                        f"image not found: {image.path}",
                                        "fix the path (relative to this .md file) or add the file"))
    problems += _citation_problems(sections, book)
    return problems


def _citation_problems(sections: list[Section], book: Book) -> list[Problem]:
    """Citations of works that no bibliography of the book holds (shown as their key)."""
    known = entries_by_page(book.source_root, sections)
    return [Problem(section.display_path, cite.line, f":cite: of {cite.target!r}, which no "
                    ":bibliography: file of the book holds (shown as its key)",
                    "fix the key or add the entry to the .bib file", warning=True)
            for section in sections for cite in section.citations if cite.target not in known]


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
    tabs: dict[tuple, list[str]] = defaultdict(list)
    for p in problems:
        key = (p.path, p.line, p.message, p.fix, p.warning)
        if p.tab not in tabs[key]:
            tabs[key].append(p.tab)
    return sorted(Problem(*key[:4], tab=", ".join(t for t in found if t), warning=key[4])
                  for key, found in tabs.items())


def check_book(book: Book, config: Config) -> list[Problem]:
    """All problems of the book (the parser's are passed separately)."""
    sections = book.pages() + book.orphans
    problems = _orphan_problems(book)
    saved_classes: dict[str, set[str]] = defaultdict(set)
    for section in sections:
        problems += _tab_problems(section, config)
        problems += _code_problems(section, config, saved_classes)
    problems += _reference_problems(sections, book)
    return _merge_tabs(problems)
