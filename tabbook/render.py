"""HTML stage: the executed notebooks of every tab merged into one static site.

Per page, code and outputs that differ between frameworks form a tab group;
identical ones show once. One framework choice drives every group of every
page (stored in the browser, or ``?tab=`` in the URL). The site makes no
external request: styles, scripts, math (MathML) and search are all local.
A site built for one tab has no tab interface at all.
"""
from __future__ import annotations

import hashlib
import html
import json
import re
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import nbformat
from pygments.formatters import HtmlFormatter

from .config import Config
from .frameworks import display_name
from .launch import has_launch_notebook, launch_links
from .layout import Layout, published_path
from .markup import PageContext, highlight_code, render_outputs, render_prose
from .model import ALL_TABS, Book, CellKind, Section
from .numbering import Numbers, number_book
from .provenance import describe, provenance_of
from .split import code_cells

ASSETS = Path(__file__).parent / "assets"


class RenderError(Exception):
    """The site cannot be rendered (an executed notebook is missing)."""


@dataclass
class Site:
    """What every page shares."""
    config: Config
    book: Book
    numbers: Numbers
    tabs: tuple[str, ...]
    folder: Path
    layout: Layout

    @property
    def tabbed(self) -> bool:
        return len(self.tabs) > 1


# -- one page --------------------------------------------------------------------
def _executed(site: Site, section: Section, tab: str) -> nbformat.NotebookNode:
    path = site.layout.executed(tab, section)
    if not path.is_file():
        raise RenderError(f"{section.display_path} [{tab}]: no executed notebook in "
                          f"{site.layout.shown(path)} — run `python3 build.py eval`")
    return nbformat.read(path, as_version=4)


def _fence_language(info: str) -> str:
    word = info.strip().strip("{}").split()[0] if info.strip().strip("{}") else "text"
    return word.lstrip(".")


def _blocks(site: Site, section: Section, page_tabs: list[str], ctx: PageContext,
            notebooks: dict[str, nbformat.NotebookNode]) -> list[str | dict[str, str]]:
    """The page as a list of common HTML strings and {tab: HTML} fragments."""
    # A model cell's code for each tab, and its executed cell found by cell id.
    code = {tab: code_cells(section, tab) for tab in page_tabs}
    executed = {tab: {c.id: c for c in nb.cells if c.cell_type == "code"}
                for tab, nb in notebooks.items()}
    blocks: list[str | dict[str, str]] = []
    for position, cell in enumerate(section.cells):
        tabs = [t for t in page_tabs if cell.in_tab(t)]
        if not tabs:
            continue
        if cell.kind is CellKind.PROSE:
            fragment = render_prose(cell.source, cell.line, ctx)
            per_tab = {tab: fragment for tab in tabs}
        elif cell.kind is CellKind.DISPLAY and cell.fence == "eval_rst":
            continue   # Sphinx markup: the checks warned that the HTML leaves it out
        elif cell.kind is CellKind.DISPLAY:
            per_tab = {tab: highlight_code(cell.source, _fence_language(cell.fence))
                       for tab in tabs}
        else:
            per_tab = {}
            for tab in tabs:
                code_cell = code[tab].get(position)
                if code_cell is None:   # nothing left for this tab once tab.selected is resolved
                    continue
                run = executed[tab].get(code_cell.id)
                outputs = render_outputs(run.outputs, ctx) if run else ""
                per_tab[tab] = (f'<div class="cell">{highlight_code(code_cell.source)}'
                                f'{f"<div class=outputs>{outputs}</div>" if outputs else ""}</div>')
        if not per_tab:
            continue
        if cell.tabs == (ALL_TABS,) and len(set(per_tab.values())) == 1 and \
                len(per_tab) == len(page_tabs):
            blocks.append(next(iter(per_tab.values())))
        else:
            blocks.append(per_tab)
    return blocks


def _tab_group(site: Site, fragments: dict[str, list[str]]) -> str:
    if not site.tabbed:
        return "".join(part for parts in fragments.values() for part in parts)
    buttons = "".join(
        f'<button type="button" role="tab" data-tab-button="{tab}" '
        f'aria-selected="{"true" if tab == site.tabs[0] else "false"}">'
        f"{display_name(tab)}</button>" for tab in site.tabs if tab in fragments)
    panels = "".join(f'<div class="tab-panel" role="tabpanel" data-tab="{tab}" '
                     f'aria-label="{display_name(tab)}">{"".join(fragments[tab])}</div>'
                     for tab in site.tabs if tab in fragments)
    return (f'<div class="tab-group"><div class="tab-list" role="tablist" '
            f'aria-label="Framework">{buttons}</div>{panels}</div>')


def _merge(site: Site, blocks: list[str | dict[str, str]]) -> str:
    """Consecutive per-tab fragments form one tab group; common HTML breaks groups."""
    parts: list[str] = []
    group: dict[str, list[str]] = {}
    for block in blocks:
        if isinstance(block, str):
            if group:
                parts.append(_tab_group(site, group))
                group = {}
            parts.append(block)
        else:
            for tab, fragment in block.items():
                group.setdefault(tab, []).append(fragment)
    if group:
        parts.append(_tab_group(site, group))
    return "\n".join(parts)


def _launch_buttons(site: Site, section: Section, tab: str, ctx: PageContext) -> str:
    if not has_launch_notebook(section, tab):
        return ""
    links = launch_links(site.config, tab, section)
    download = ctx.asset("notebooks/" + published_path(tab, section))
    attribute = f' data-tab="{tab}"' if site.tabbed else ""
    name = display_name(tab)
    return (f'<div class="launch"{attribute}>'
            f'<a class="button" href="{html.escape(links.colab)}" rel="noopener">'
            f'Ouvrir dans Colab <span class="visually-hidden">({name})</span></a>'
            f'<a class="button" href="{html.escape(links.kaggle)}" rel="noopener">'
            f'Ouvrir dans Kaggle <span class="visually-hidden">({name})</span></a>'
            f'<a class="button" href="{download}" download>Télécharger le carnet '
            f'{name} (.ipynb)</a></div>')


def _toc(site: Site, ctx: PageContext) -> str:
    def item(section: Section) -> str:
        number = site.numbers.sections.get(section.name, "")
        current = ' aria-current="page"' if section.name == ctx.page else ""
        shown = f'<span class="number">{number}</span> ' if number else ""
        return (f'<a href="{ctx.url(section.name)}"{current}>{shown}'
                f'{html.escape(section.title)}</a>')

    chapters = "".join(
        f"<li>{item(chapter.index)}<ol>"
        + "".join(f"<li>{item(s)}</li>" for s in chapter.sections) + "</ol></li>"
        for chapter in site.book.chapters)
    return f'<ol class="toc"><li>{item(site.book.index)}</li>{chapters}</ol>'


def _outline(ctx: PageContext) -> str:
    if not ctx.outline:
        return ""
    items = "".join(f'<li class="level-{level}"><a href="#{anchor}">{html.escape(text)}</a></li>'
                    for level, anchor, text in ctx.outline)
    return (f'<aside class="outline" aria-labelledby="outline-title"><h2 id="outline-title">'
            f"Sur cette page</h2><ol>{items}</ol></aside>")


def _pager(site: Site, pages: list[Section], position: int, ctx: PageContext) -> str:
    links = []
    for offset, rel, word in ((-1, "prev", "Précédent"), (1, "next", "Suivant")):
        if 0 <= position + offset < len(pages):
            other = pages[position + offset]
            number = site.numbers.sections.get(other.name, "")
            links.append(f'<a class="{rel}" rel="{rel}" href="{ctx.url(other.name)}">'
                         f'<span class="pager-word">{word}</span> '
                         f'{(number + " ") if number else ""}{html.escape(other.title)}</a>')
    return f'<nav class="pager" aria-label="Pages voisines">{"".join(links)}</nav>'


def render_page(site: Site, pages: list[Section], position: int) -> str:
    section = pages[position]
    page_tabs = [t for t in site.tabs if t in section.tabs]
    ctx = PageContext(section.name, section.display_path, site.numbers, site.folder,
                      site.config.root)
    notebooks = {tab: _executed(site, section, tab) for tab in page_tabs}
    content = _merge(site, _blocks(site, section, page_tabs, ctx, notebooks))
    has_code = any(has_launch_notebook(section, tab) for tab in page_tabs)
    launch = "".join(_launch_buttons(site, section, tab, ctx) for tab in page_tabs)
    provenance = "".join(
        f'<p{f" data-tab={chr(34)}{tab}{chr(34)}" if site.tabbed else ""}>{text}</p>'
        for tab in page_tabs if (text := describe(tab, provenance_of(notebooks[tab]))))
    missing = ""
    if site.tabbed and has_code:
        missing = ('<p class="notice" id="missing-tab" hidden>Cette section n\'existe pas en '
                   '<span data-missing-name></span> ; elle est montrée en '
                   f'{display_name(page_tabs[0])}.</p>')
    number = site.numbers.sections.get(section.name, "")
    title = f"{number} {section.title}".strip()
    return _page_template(site, ctx, title, f"""
{missing}{launch}
<article>
{content}
</article>
{_pager(site, pages, position, ctx)}""", _outline(ctx), provenance or
        "<p>Cette page ne contient pas de code exécuté.</p>",
        page_tabs=page_tabs if has_code else [])


def _page_template(site: Site, ctx: PageContext, title: str, main: str, outline: str,
                   footer: str, page_tabs: list[str]) -> str:
    config = site.config
    static = ctx.asset("_static")
    tabs_json = html.escape(json.dumps(list(site.tabs)))
    chooser = ""
    if site.tabbed:
        chooser = ('<label class="framework">Framework <select id="framework-select">'
                   + "".join(f'<option value="{t}">{display_name(t)}</option>' for t in site.tabs)
                   + "</select></label>")
    return f"""<!DOCTYPE html>
<html lang="{config.project.lang}" data-tab="{site.tabs[0]}" data-theme="auto">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>{html.escape(title)} — {html.escape(config.project.title)}</title>
<script>
/* Before the first paint: the reader's framework and theme, no flash of the default. */
(function () {{
  var d = document.documentElement, tabs = {json.dumps(list(site.tabs))};
  try {{
    var asked = new URLSearchParams(location.search).get("tab");
    if (asked && tabs.indexOf(asked) >= 0) localStorage.setItem("tabbook-tab", asked);
    var tab = localStorage.getItem("tabbook-tab");
    if (tab && tabs.indexOf(tab) >= 0) d.dataset.tab = tab;
    d.dataset.theme = localStorage.getItem("tabbook-theme") || "auto";
  }} catch (e) {{}}
  var dark = matchMedia("(prefers-color-scheme: dark)").matches;
  d.dataset.scheme = d.dataset.theme === "auto" ? (dark ? "dark" : "light") : d.dataset.theme;
}})();
</script>
<link rel="stylesheet" href="{static}/book.css">
<script defer src="{static}/book.js"></script>
</head>
<body data-book-tabs="{tabs_json}" data-page-tabs="{html.escape(' '.join(page_tabs))}">
<a class="skip" href="#content">Aller au contenu</a>
<header class="top">
<button type="button" class="menu" aria-controls="sidebar" aria-expanded="false">Sommaire</button>
<a class="book-title" href="{ctx.url(site.book.index.name)}">{html.escape(config.project.title)}</a>
<form class="search" role="search" action="{ctx.asset('search.html')}">
<label class="visually-hidden" for="q">Rechercher dans le livre</label>
<input id="q" name="q" type="search" placeholder="Rechercher…">
</form>
{chooser}
<button type="button" class="theme" aria-label="Thème : automatique">◐</button>
</header>
<div class="layout">
<nav id="sidebar" class="sidebar" aria-label="Sommaire du livre">
{_toc(site, ctx)}
</nav>
<main id="content" data-pagefind-body>
{main}
</main>
{outline}
</div>
<footer class="provenance">
{footer}
<p>{html.escape(config.project.title)}, version {config.project.release}.</p>
</footer>
</body>
</html>
"""


# -- the whole site ------------------------------------------------------------
def _stylesheet(site: Site) -> str:
    base = (ASSETS / "book.css").read_text(encoding="utf-8")
    light = HtmlFormatter(style="default").get_style_defs(".highlight")
    dark = HtmlFormatter(style="github-dark").get_style_defs(".highlight")
    # data-scheme is the theme in effect ("auto" resolved), set before the first paint.
    dark_scoped = "\n".join(f"html[data-scheme=dark] {rule}" for rule in dark.splitlines()
                            if rule.startswith(".highlight"))
    # Every framework-specific element is hidden unless its tab is the chosen one.
    tab_rules = "\n".join(f'html[data-tab="{tab}"] [data-tab]:not([data-tab="{tab}"]) '
                          "{ display: none; }" for tab in site.tabs)
    return _minify(f"{base}\n{light}\n{dark_scoped}\n{tab_rules}\n")


def _minify(css: str) -> str:
    """Comments and spacing out: every page loads this sheet (budget 200 KB a page)."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    css = re.sub(r"\s+", " ", css)
    css = re.sub(r":\s+", ":", css)   # no selector of the sheet has ": "
    return re.sub(r"\s*([{};,>])\s*", r"\1", css).strip() + "\n"


def _search_page(site: Site) -> str:
    ctx = PageContext("search", "search.md", site.numbers, site.folder, site.config.root)
    main = f"""<h1>Recherche</h1>
<p class="notice" id="search-file" hidden>La recherche a besoin d'un serveur web : lancez
<code>python3 -m http.server -d {site.folder.name}</code> dans <code>_build</code>, puis ouvrez
<code>http://localhost:8000/search.html</code>.</p>
<p id="search-status" role="status"></p>
<ol id="search-results" class="search-results"></ol>"""
    return _page_template(site, ctx, "Recherche", main, "",
                          "<p>La recherche fonctionne sans réseau : l'index est dans le site.</p>",
                          [])


def _index_search(folder: Path) -> None:
    """Pagefind builds the search index (French stemming from <html lang="fr">)."""
    from pagefind_bin import get_executable

    result = subprocess.run([str(get_executable()), "--site", str(folder), "--silent"],
                            capture_output=True, text=True, timeout=600)
    if result.returncode != 0:
        raise RenderError(f"pagefind failed: {result.stderr.strip()[-500:]}")


@dataclass
class RenderResult:
    folder: Path
    pages: int
    rendered: bool = True
    """False when the site was already made from the same inputs and was kept."""


INPUTS_STAMP = ".inputs"   # in the site folder: the fingerprint of what it was made from


def _inputs_fingerprint(book: Book, config: Config, tabs: tuple[str, ...],
                        layout: Layout) -> str:
    """A hash of everything a site is made from: this renderer's code and assets, the
    config, every page's source and the files it shows, the executed and launch notebooks."""
    root = config.root.resolve()
    files = set(Path(__file__).parent.rglob("*.py")) | set(ASSETS.rglob("*")) | \
        {root / "config.ini", Path(__file__).parents[1] / "requirements" / "tools.txt"}
    for section in book.pages():
        base = (book.source_root / section.path).parent
        files.add(book.source_root / section.path)
        files.update(base / image.path for image in section.images)
        if section.bibliography:
            files.add(base / section.bibliography.path)
    for tab in tabs:
        files.update((layout.eval / tab).rglob("*.ipynb"))
        files.update((layout.launch / tab).rglob("*.ipynb"))
    digest = hashlib.sha256(repr(tabs).encode())
    for file in sorted(f.resolve() for f in files if f.is_file()):
        digest.update(str(file).encode() + b"\0" + file.read_bytes())
    return digest.hexdigest()


def render_site(book: Book, config: Config, tabs: tuple[str, ...], layout: Layout,
                progress=None) -> RenderResult:
    """Render the book for `tabs` into its site folder; the old site stays until done.

    A site made from the very same inputs is kept as it is (`RenderResult.rendered` False).
    """
    final = layout.site(tabs, config.build.tabs)
    fingerprint = _inputs_fingerprint(book, config, tabs, layout)
    stamp = final / INPUTS_STAMP
    if stamp.is_file() and stamp.read_text() == fingerprint:
        return RenderResult(final, len(book.pages()), rendered=False)
    staging = final.with_name(final.name + ".new")
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir(parents=True)
    site = Site(config, book, number_book(book), tabs, staging, layout)
    pages = book.pages()
    timings = {}
    for position, section in enumerate(pages):
        started = time.monotonic()
        text = render_page(site, pages, position)
        path = staging / section.path.with_suffix(".html")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        timings[section.name] = time.monotonic() - started
        if progress:
            progress(position + 1, len(pages), section, timings[section.name])
    (staging / "search.html").write_text(_search_page(site), encoding="utf-8")
    static = staging / "_static"
    static.mkdir()
    (static / "book.css").write_text(_stylesheet(site), encoding="utf-8")
    shutil.copy(ASSETS / "book.js", static / "book.js")
    for tab in tabs:   # downloadable notebooks, from the launch stage
        source = layout.launch / tab
        if source.is_dir():
            shutil.copytree(source, staging / "notebooks" / tab)
    (staging / ".nojekyll").write_text("")   # GitHub Pages: serve _static and _images as is
    _index_search(staging)
    (staging / INPUTS_STAMP).write_text(fingerprint)
    # Swap in the new site only now: a failure above leaves the previous one intact.
    if final.exists():
        old = final.with_name(final.name + ".old")
        if old.exists():
            shutil.rmtree(old)
        final.rename(old)
        staging.rename(final)
        shutil.rmtree(old)
    else:
        staging.rename(final)
    return RenderResult(final, len(pages))
