"""Citations: d2lbook's `` :cite:`a,b` `` in prose, `` :bibliography:`refs.bib` `` on a
line of its own.

A citation names works by their BibTeX key. The page whose ``:bibliography:`` file holds
a cited work lists it (the works cited anywhere in the book, in the alphabetical order of
their labels), and each citation links to its entry there, author and year, as d2lbook's
HTML shows them. Launch notebooks show them the same way, as Markdown whose links point
to the published book; the split, executed and frozen notebooks keep the roles as
written (nothing a reader opens: the pages and the PDF render them from the model).

The whole feature, plugged into the stages by `CITATIONS` (see extension.py): the keys
and the .bib file a page writes (kept in the model: `Section.citations`,
`Section.bibliography`), the checks (the file is there and BibTeX reads it, every cited
key is in a bibliography of the book), the works cited in the book and the page that
lists each, citations and reference lists in pages and launch notebooks, the .bib file
a page depends on.
The .bib files themselves are read by bibliography.py.
"""
from __future__ import annotations

import html
import os
from collections.abc import Callable, Sequence
from pathlib import Path

from ..core.model import Image, Problem, Reference, Section
from .bibliography import Entry, bibliography_errors, read_bibliography
from .extension import Feature, ShownRole, markdown_escaped, slug

ROLE = "cite"
BLOCK_ROLE = "bibliography"
KEY = "citations"

Works = dict[str, tuple[str, Entry]]
"""Cited key -> (the page whose :bibliography: lists it, its entry), in citation order."""


def citation_keys(content: str) -> list[str]:
    """The keys of `` :cite:`a, b` ``."""
    return [key.strip() for key in content.split(",") if key.strip()]


# -- the model -----------------------------------------------------------------------
def read(section: Section, role: str, content: str, line: int) -> None:
    """Keep a citation's keys, or the page's .bib file, in `section`."""
    if role == ROLE:
        section.citations += [Reference(ROLE, key, line) for key in citation_keys(content)]
    else:
        section.bibliography = Image(content, "", line)


def bibliography_file(section: Section) -> tuple[str, ...]:
    """The .bib file a page lists works from, as written (relative to its .md)."""
    return (section.bibliography.path,) if section.bibliography else ()


def entries_by_page(root: Path, sections: Sequence[Section]) -> Works:
    """Key -> (name of the page whose ``:bibliography:`` file holds it, the entry), for
    every bibliography of `sections` that exists (a missing one is a check error)."""
    entries: Works = {}
    for section in sections:
        if section.bibliography:
            file = (root / section.path).parent / section.bibliography.path
            if file.is_file():
                entries.update((key, (section.name, entry))
                               for key, entry in read_bibliography(file).items())
    return entries


# -- check -------------------------------------------------------------------------
def book_problems(root: Path, sections: Sequence[Section]) -> list[Problem]:
    """Each page's .bib file is there and BibTeX reads it as written; each cited work is
    in a bibliography of the book (else it is shown as its key)."""
    problems = [problem for section in sections
                for problem in _bibliography_problems(root, section)]
    known = entries_by_page(root, sections)
    return problems + [
        Problem(section.display_path, cite.line, f":{ROLE}: of {cite.target!r}, which no "
                f":{BLOCK_ROLE}: file of the book holds (shown as its key)",
                "fix the key or add the entry to the .bib file", warning=True)
        for section in sections for cite in section.citations if cite.target not in known]


def _bibliography_problems(root: Path, section: Section) -> list[Problem]:
    """The section's .bib file is there, and BibTeX reads it as written."""
    bibliography = section.bibliography
    if bibliography is None:
        return []
    base = (root / section.path).parent
    if not (base / bibliography.path).is_file():
        return [Problem(section.display_path, bibliography.line,
                        f"bibliography not found: {bibliography.path}",
                        "fix the path (relative to this .md file)")]
    shown = os.path.normpath(Path(section.display_path).parent / bibliography.path)
    return [Problem(shown, error.line, error.message, error.fix, warning=True)
            for error in bibliography_errors(base / bibliography.path)]


# -- numbering ---------------------------------------------------------------------
def cited_works(root: Path, pages: Sequence[Section]) -> Works:
    """The works the book's pages cite, each with the page that lists it."""
    entries, works = entries_by_page(root, pages), {}
    for page in pages:
        for cite in page.citations:
            if cite.target in entries:
                works.setdefault(cite.target, entries[cite.target])
    return works


# -- pages -------------------------------------------------------------------------
def _anchor(key: str) -> str:
    """The anchor of a work's entry in the page that lists it."""
    return "bib-" + slug(key)


def _citation(content: str, shown: ShownRole, link: Callable[[str, str], str],
              escaped: Callable[[str], str]) -> str:
    """:cite:`a,b` -> (Author, year ; Author, year), each a `link(label, url)` to its entry
    in the bibliography's page (author-year, as d2lbook's HTML shows them)."""
    works: Works = shown.numbered or {}
    links = []
    for key in citation_keys(content):
        if key in works:
            page, entry = works[key]
            links.append(link(shown.typeset(entry.label(shown.language)),
                              shown.url(page, _anchor(key))))
        else:   # the checks warned about it
            links.append(escaped(key))
    return f"({shown.language.text('citations').join(links)})"


def html_citation(content: str, shown: ShownRole) -> str:
    """A citation in a page: HTML links."""
    return _citation(content, shown, lambda label, url: (
        f'<a class="citation" href="{html.escape(url)}">{html.escape(label)}</a>'), html.escape)


def markdown_citation(content: str, shown: ShownRole) -> str:
    """A citation in a launch notebook: Markdown links to the published bibliography."""
    return _citation(content, shown, lambda label, url: f"[{markdown_escaped(label)}]({url})",
                     markdown_escaped)


def _listed(shown: ShownRole) -> list[tuple[str, Entry]]:
    """The works cited in the book whose entries this page's .bib file holds, in the
    alphabetical order of their labels."""
    works: Works = shown.numbered or {}
    return sorted(((key, entry) for key, (page, entry) in works.items() if page == shown.page),
                  key=lambda work: work[1].label(shown.language).casefold())


def html_bibliography(content: str, shown: ShownRole) -> str:
    """A page's list of works, each entry the anchor its citations link to."""
    items = "".join(f'<li id="{_anchor(key)}">'
                    f'{html.escape(shown.typeset(entry.text(shown.language)))}</li>'
                    for key, entry in _listed(shown))
    return f'<ol class="bibliography">{items}</ol>'


def markdown_bibliography(content: str, shown: ShownRole) -> str:
    """A page's list of works in a launch notebook: a numbered Markdown list (its lines,
    ending the block)."""
    return "".join(f"{number}. {markdown_escaped(shown.typeset(entry.text(shown.language)))}\n"
                   for number, (_, entry) in enumerate(_listed(shown), start=1))


CITATIONS = Feature(
    key=KEY, roles=(ROLE,), block_roles=(BLOCK_ROLE,), read=read, check_book=book_problems,
    number=cited_works, page_files=bibliography_file, render_html=html_citation,
    render_block_html=html_bibliography, render_launch_markdown=markdown_citation,
    render_block_launch_markdown=markdown_bibliography)
