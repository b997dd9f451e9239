"""The reference of the ``d2l`` package: every function and class the book saves with
``#@save`` in a tab's library, in book order, with its signature, its docstring and a link
to the code cell of the section that defines it (methods added with
``@d2l.add_to_class`` under their class, each with its own link).

Names and places come from the library stage (`notebooks/library.collect`), signatures
and docstrings from the generated library's source read with `ast`: nothing is imported
(the frameworks are not installed where the site is built). The HTML stage shows it on
a page of its own (« Le paquet d2l », after the last chapter, unnumbered, HTML only) and
in place of d2lbook's ``.. automodule:: d2l.<module>`` blocks.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from markupsafe import Markup

from ..bootstrap.errors import BookError
from ..core.config import Config
from ..core.model import Book, Section
from ..notebooks.library import Definition, Member, Place, collect, library_text
from ..source.rst_blocks import automodules
from .markup import PageContext
from .templating import MACROS
from .typography import typeset

PAGE_NAME = "d2l"
"""The reference page's name: ``d2l.html`` at the site's root."""
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True)
class Entry:
    """A function, class or method of the package, as the reference shows it."""
    name: str              # ``Trainer``, or ``Trainer.fit`` for a method
    kind: str              # function, class or method
    signature: str         # ``(self, model, data)``, with its return annotation
    doc: str
    place: Place | None    # where the book defines it; None for a class's own method
    members: tuple[Entry, ...] = ()


def _signature(node: ast.AST) -> str:
    if isinstance(node, ast.ClassDef):
        init = next((m for m in node.body if isinstance(m, FUNCTIONS)
                     and m.name == "__init__"), None)
        return _signature(init) if init else ""
    text = f"({ast.unparse(node.args)})"
    return text + (f" -> {ast.unparse(node.returns)}" if node.returns else "")


def _doc(node: ast.AST) -> str:
    return ast.get_docstring(node) or ""


def _methods(definition: Definition, node: ast.ClassDef) -> tuple[Entry, ...]:
    """The class's methods in the order of the library (its own, then those added), each
    added one with the place that adds it."""
    nodes = {m.name: m for m in node.body if isinstance(m, FUNCTIONS)}
    members: list[Member] = [m for m in definition.members or () if m.name in nodes
                             and m.name != "__init__"]
    return tuple(Entry(f"{node.name}.{m.name}", "method", _signature(nodes[m.name]),
                       _doc(nodes[m.name]), m.place) for m in members)


def package_entries(book: Book, config: Config, tab: str) -> tuple[Entry, ...]:
    """The reference of `tab`'s library: its functions and classes in book order."""
    library = collect(book, config, tab)
    nodes = {node.name: node for node in ast.parse(library_text(library)).body
             if isinstance(node, (*FUNCTIONS, ast.ClassDef))}
    entries = []
    for definition in library.entries:
        node = nodes.get(definition.name)
        if node is None:   # a statement (``d2l.DATA_HUB[…] = …``): not a function or class
            continue
        if isinstance(node, ast.ClassDef):
            entries.append(Entry(node.name, "class", _signature(node), _doc(node),
                                 definition.place, _methods(definition, node)))
        else:
            entries.append(Entry(node.name, "function", _signature(node), _doc(node),
                                 definition.place))
    return tuple(entries)


def package(book: Book, config: Config, tabs: tuple[str, ...]) -> dict[str, tuple[Entry, ...]]:
    """Tab -> its reference, for the tabs of `tabs` that have a library."""
    return {tab: package_entries(book, config, tab) for tab in tabs
            if tab in config.library.tabs}


def code_anchor(tab: str, cell_line: int) -> str:
    """The id of the code cell whose first line is `cell_line` of its page, in `tab`."""
    return f"code-{tab}-{cell_line}"


@dataclass(frozen=True)
class _Link:
    anchor: Markup         # the link to the code cell, named by its section's number
    file: str
    line: int


def render_reference(entries: tuple[Entry, ...], tab: str, ctx: PageContext,
                     titles: dict[str, str]) -> Markup:
    """One tab's reference, as HTML; `titles`: page name -> title, for the pages that have
    no number (their title names them)."""
    def link(place: Place) -> _Link:
        number = ctx.numbers.sections.get(place.page, "")
        text = number or typeset(titles.get(place.page, place.page), ctx.language)
        url = ctx.url(place.page, code_anchor(tab, place.cell_line))
        return _Link(Markup('<a href="{}">{}</a>').format(url, text), place.file, place.line)

    return MACROS.package_reference(entries, tab, link, ctx.language)


def reference_section(config: Config, book: Book, tabs: tuple[str, ...]) -> Section | None:
    """The reference page as the site lists it (after the last chapter, unnumbered), or
    None for a book without a library among `tabs`, or whose pages show the reference
    already (d2lbook's automodule blocks)."""
    tabs = tuple(tab for tab in tabs if tab in config.library.tabs)
    if not tabs or any(automodules(section) for section in book.pages()):
        return None
    clash = next((page for page in book.pages() if page.name == PAGE_NAME), None)
    if clash:
        raise BookError(f"{clash.display_path}: its page would be {PAGE_NAME}.html, the page "
                        "of the d2l package reference — rename the file")
    title = config.project.language.text("package_title")
    return Section(Path(PAGE_NAME + ".md"), "", title=title, tabs=tabs)
