"""The print layout of one framework's book, in parts that Chromium prints one at a time.

A PDF is the front (title page and table of contents) followed by one part per
chapter (the preface is one); `pdf_assembly` joins their prints. Each part is an HTML
document (``templates/print.html``) made by the HTML book's own renderers
(`markup.render_prose`, `render.page_parts`): the same numbers, references and
executed outputs, for this tab only, in the book's language. Chapters are <h1> and
their sections <h2>, so that Chromium's outline (the PDF's bookmarks) nests them.

A part's page numbers start where the previous part ends (``counter-reset``), so a part
whose document did not change need not be printed again: after a prose edit, only its
chapter is. References between parts cannot be links inside one document: they point
to `CROSS_PART` followed by the target's id, which the assembly turns into a link to
that named destination. Chromium names only the ids its document links to, so each
chapter ends with a block of links to the ids other parts point to (`DESTINATIONS`),
on pages of their own that the assembly drops.
"""
from __future__ import annotations

import dataclasses
import datetime
import json
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from markupsafe import Markup

from ..bootstrap.records import atomic_write
from ..core.config import Config
from ..core.language import Language
from ..core.layout import Layout
from ..core.model import Book, Section
from ..execution.provenance import describe
from ..source.numbering import Numbers
from ..source.roles import has_scheme
from .highlighting import keep_highlighted
from .markup import PageContext
from .page_parts import TabGroup, page_parts
from .print_fit import LANDSCAPE
from .render import executed_notebook, light_stylesheet
from .site_inputs import page_file, page_keys
from .templating import ASSETS, ENVIRONMENT
from .typography import typeset

STYLESHEET = "print.css"
CROSS_PART = "https://tabbook.invalid/dest/"
"""What a link to another part points to, before its id; never printed as such."""
DESTINATIONS = "tabbook-destinations"
"""The id of a chapter's closing block of links, which names its destinations."""
FRONT = "front"
HEAD_STYLE = 'font: 7.5pt "DejaVu Sans", sans-serif; color: #4f5866;'


@dataclass(frozen=True)
class Entry:
    """A line of the table of contents: a chapter (level 1) or a section (level 2)."""
    section: Section
    level: int
    number: str
    anchor: str
    """The id of the page in its part, which the entry links to."""


@dataclass(frozen=True)
class Part:
    """A document printed on its own: a chapter (its index page, then its sections)."""
    name: str
    """The chapter's page name (``chapter_gpu/index``)."""
    entries: tuple[Entry, ...]


@dataclass
class PrintContext(PageContext):
    """A page's context inside the print layout: a page of the same part is an anchor of
    its document, one of another part a `CROSS_PART` link; images are files beside the
    documents."""
    anchors: dict[str, str] = field(default_factory=dict)
    """Page name -> its id, for the pages this PDF holds."""
    parts: dict[str, str] = field(default_factory=dict)
    """Page name -> the name of its part."""
    targets: dict[str, set[str]] = field(default_factory=dict)
    """Part name -> the ids in it that other parts link to (filled while rendering)."""
    online: str = ""
    """The published HTML book (for a page this PDF lacks), or ""."""
    code_anchors: bool = False

    def url(self, page: str, anchor: str = "") -> str:
        if page not in self.anchors:
            return f"{self.online}{page}.html" + (f"#{anchor}" if anchor else "") \
                if self.online else ""
        target, part = anchor or self.anchors[page], self.parts[page]
        if part == self.parts.get(self.page):
            return "#" + target
        self.targets.setdefault(part, set()).add(target)
        return CROSS_PART + target

    def asset(self, site_path: str) -> str:
        return site_path

    def image(self, written: str) -> str:
        # The print folder is kept from one print to the next: an image of the project
        # is copied again when it changed (a page showing it is rendered again then).
        url = super().image(written)
        source, copy = self.project_root / url, self.site / url
        if not has_scheme(url) and source.is_file() and \
                copy.read_bytes() != (data := source.read_bytes()):
            atomic_write(copy, data)
        return url


def plain_name(name: str) -> str:
    """`name` (a page's, a part's) with only letters, digits, "_" and "-": an id, a file."""
    return re.sub(r"[^\w-]", "-", name)


def page_anchor(section: Section) -> str:
    return "page-" + plain_name(section.name)


def contents(book: Book, numbers: Numbers, tab: str) -> list[Entry]:
    """The pages of the book that `tab` has, in book order, as entries of the contents:
    the preface and chapter indexes at level 1, sections at level 2."""
    entries = []
    for chapter_pages in ([book.index], *(chapter.pages() for chapter in book.chapters)):
        for position, section in enumerate(chapter_pages):
            if tab in section.tabs:
                entries.append(Entry(section, 1 if position == 0 else 2,
                                     numbers.sections.get(section.name, ""),
                                     page_anchor(section)))
    return entries


def split_parts(entries: list[Entry]) -> list[Part]:
    """The chapters of `entries`: each level-1 entry with the sections that follow it."""
    groups: list[list[Entry]] = []
    for entry in entries:
        if entry.level == 1 or not groups:
            groups.append([])
        groups[-1].append(entry)
    return [Part(group[0].section.name, tuple(group)) for group in groups]


def _page_body(entry: Entry, tab: str, base: PrintContext, layout: Layout) -> Markup:
    """One page of the book for `tab`: its prose, code cells and outputs, then where
    they were produced."""
    section = entry.section
    ctx = dataclasses.replace(base, page=section.name, display_path=section.display_path,
                              outline=[], heading_offset=entry.level - 1)
    notebook = executed_notebook(layout, section, tab)
    parts = page_parts(section, [tab], ctx, {tab: notebook})
    # One tab: a tab group is that tab's fragments, shown bare.
    body = Markup("").join(Markup("").join(part.fragments[tab])
                           if isinstance(part, TabGroup) else part for part in parts)
    provenance = describe(tab, notebook, ctx.language)
    if provenance:
        body += Markup('<p class="provenance">{}</p>').format(provenance)
    return body


def local_files(html: str) -> list[str]:
    """The files beside the document that `html` shows (images), as it names them."""
    return sorted(set(re.findall(r'\bsrc="([^"#:]+)"', html)))


def _bodies(entries: list[Entry], tab: str, base: PrintContext, layout: Layout,
            keys: dict[str, str]) -> dict[str, Markup]:
    """Each entry's page, rendered or taken from the previous print layout's when its key
    (`site_inputs.page_keys`: sources, outputs, numbers, the build's code) is the same and
    its images are still beside it; the ids of other parts it links to are added to
    `base.targets` either way."""
    path = layout.print_bodies(tab)
    try:
        previous = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):   # none yet, or damaged: all rendered
        previous = {}
    if not isinstance(previous, dict):
        previous = {}
    bodies, kept = {}, {}
    for entry in entries:
        key, body = keys[page_file(entry.section)], previous.get(entry.anchor)
        if not _usable(body, key, base.site):
            ctx = dataclasses.replace(base, targets={})
            html = _page_body(entry, tab, ctx, layout)
            body = {"key": key, "html": str(html), "targets": sorted(
                [part, target] for part, targets in ctx.targets.items() for target in targets)}
        for part, target in body["targets"]:
            base.targets.setdefault(part, set()).add(target)
        bodies[entry.anchor], kept[entry.anchor] = Markup(body["html"]), body
    atomic_write(path, json.dumps(kept))
    return bodies


def _forget_unshown(folder: Path, bodies: dict[str, Markup]) -> None:
    """Delete the images of earlier print layouts that no page shows any more (the folder
    is kept from one print to the next)."""
    shown = {name for body in bodies.values() for name in local_files(body)}
    for path in folder.rglob("*"):
        name = path.relative_to(folder).as_posix()
        if path.is_file() and path.suffix != ".html" and name != STYLESHEET and \
                not name.startswith("fonts/") and name not in shown:
            path.unlink()


def _usable(body, key: str, folder: Path) -> bool:
    """Whether `body`, read from the previous print layout, is whole and still right."""
    return isinstance(body, dict) and body.get("key") == key and \
        isinstance(body.get("html"), str) and isinstance(body.get("targets"), list) and \
        all(isinstance(pair, list) and len(pair) == 2 for pair in body["targets"]) and \
        all((folder / name).is_file() for name in local_files(body["html"]))


@dataclass
class PrintLayout:
    """The documents a PDF is printed from, but for the page numbers."""
    entries: list[Entry]
    parts: list[Part]
    bodies: dict[str, Markup]
    """Page anchor -> the page's HTML."""
    targets: dict[str, set[str]]
    """Part name -> the ids in it that other parts link to."""
    heads: dict[str, Markup]
    """Part name -> the @page rules of its pages (running heads, landscape pages)."""
    page_names: dict[str, str]
    """Part name -> the named page of its pages, which shows its running head."""
    values: dict
    """What else every document shows (title, language, style sheet)."""
    stylesheet: str
    """The text of the style sheet beside the documents."""

    def front(self, pages: dict[str, int]) -> str:
        """The title page and contents, with `pages` (entry anchor -> page number)."""
        return self._document(1, front=True, entries=self.entries, pages=pages,
                              heads=self.heads[FRONT])

    def chapter(self, part: Part, first_page: int) -> str:
        """The document of `part`, its pages numbered from `first_page`."""
        ids = {entry.anchor for entry in part.entries} | self.targets.get(part.name, set())
        return self._document(first_page, front=False, entries=part.entries,
                              bodies=self.bodies, destinations=sorted(ids),
                              heads=self.heads[part.name], page_name=self.page_names[part.name])

    def _document(self, first_page: int, **values) -> str:
        return ENVIRONMENT.get_template("print.html").render(
            first_page=first_page, cross_part=CROSS_PART, destinations_id=DESTINATIONS,
            **values, **self.values)


def print_layout(book: Book, config: Config, numbers: Numbers, tab: str, layout: Layout,
                 today: datetime.date) -> PrintLayout:
    """Render the print layout of `tab` into its folder (images beside the documents)."""
    folder = layout.print_folder(tab)
    keep_highlighted(layout.highlighted)
    entries = contents(book, numbers, tab)
    parts = split_parts(entries)
    online = config.launch_settings.site_url if config.launch_settings else ""
    language = config.project.language
    base = PrintContext("", "", numbers, folder, config.root, language,
                        anchors={e.section.name: e.anchor for e in entries},
                        parts={e.section.name: part.name for part in parts
                               for e in part.entries}, online=online)
    bodies = _bodies(entries, tab, base, layout,
                     page_keys(config, book, numbers, (tab,), layout, pdfs={}))
    _forget_unshown(folder, bodies)
    # The math font, beside the sheet.
    shutil.copytree(ASSETS / "fonts", folder / "fonts", dirs_exist_ok=True)
    stylesheet = light_stylesheet() + "\n" + (ASSETS / STYLESHEET).read_text(encoding="utf-8")
    atomic_write(folder / STYLESHEET, stylesheet)
    return PrintLayout(entries, parts, bodies, base.targets, page_rules(parts, language),
                       {part.name: page_name(position) for position, part in enumerate(parts)},
                       {"project": config.project, "ui": language, "tab": tab,
                        "date": language.date(today), "stylesheet": STYLESHEET}, stylesheet)


def _css_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'


def page_name(position: int) -> str:
    return f"chapter-{position}"


def page_rules(parts: list[Part], language: Language) -> dict[str, Markup]:
    """The @page rules of each part: landscape pages (``wide``) and, for a chapter, its
    named page, portrait and landscape (``<name>-wide``), whose top margin shows the
    chapter's number and title."""
    wide = f"@page wide {{ {LANDSCAPE} }}"
    rules = {FRONT: Markup(wide)}
    for position, part in enumerate(parts):
        entry, name = part.entries[0], page_name(position)
        title = f"{entry.number} {entry.section.title}".strip()
        head = f"@top-center {{ content: {_css_string(typeset(title, language))}; {HEAD_STYLE} }}"
        rules[part.name] = Markup("\n".join(
            [wide, f"@page {name} {{ {head} }}", f"@page {name}-wide {{ {LANDSCAPE} {head} }}"]))
    return rules
