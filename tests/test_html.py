"""The HTML book, built from a copy of this repository and read in Debian's Chromium.

The site is served on 127.0.0.1 (and opened from the file system): every
request that would leave the machine is recorded and refused.
"""
from __future__ import annotations

import datetime
import errno
import os
import re
import shutil
import subprocess
import tempfile
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

import nbformat
import pytest

from conftest import (CONFIG, DECLARE, FRAMEWORK_TABS, REPO, raising_on_call, served,
                      site_pages, write_book, write_executed)
from tabbook.cli.console import Console
from tabbook.cli.main import reporting
from tabbook.core.config import load_config
from tabbook.bootstrap.environments import ensure_axe_core
from tabbook.core.layout import Layout
from tabbook.output import render
from tabbook.output.launch import launch_links
from tabbook.source.numbering import number_book
from tabbook.source.parse import parse_book
from tabbook.output.render import INPUTS_STAMP, render_page, render_site
from tabbook.notebooks.split import split_section
from test_markup import PNG
from test_spelling import unknown_words

TABS = FRAMEWORK_TABS
SCREENSHOTS = REPO / "_build" / "screenshots"


@pytest.fixture(scope="module")
def book(built_repository):
    """A copy of the repository with its full site and a PyTorch-only site built."""
    return built_repository


@pytest.fixture(scope="module")
def server(book):
    with served(book / "_build") as address:
        yield address


# -- the site as files -----------------------------------------------------------
class Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[tuple[str, str, str]] = []   # tag, attribute, value

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        for attribute in ("href", "src"):
            if attrs.get(attribute):
                self.links.append((tag, attribute, attrs[attribute]))


def parse_page(path: Path) -> Links:
    parser = Links()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


@pytest.mark.parametrize("site_name", ["html", "html-pytorch"])
@pytest.mark.kernels
def test_every_internal_link_and_anchor_resolves(book, site_name):
    site = book / "_build" / site_name
    parsed = {page: parse_page(site / page) for page in site_pages(site)}
    assert "index.html" in parsed and "chapter_gpu/use-gpu.html" in parsed
    checked = 0
    for page, links in parsed.items():
        for tag, attribute, value in links.links:
            parts = urlsplit(value)
            if parts.scheme in ("http", "https"):
                # Only links a reader follows may leave the site, never a resource.
                assert tag == "a", f"{page}: <{tag} {attribute}={value}> loads from outside"
                continue
            if parts.scheme == "data":   # the empty favicon: no request at all
                continue
            assert not parts.scheme, f"{page}: unexpected URL {value}"
            target = (site / page).parent / unquote(parts.path) if parts.path else site / page
            target = target.resolve()
            assert target.is_file(), f"{page}: {value} -> {target} does not exist"
            if parts.fragment:
                relative = target.relative_to(site.resolve()).as_posix()
                ids = parsed[relative].ids if relative in parsed else set()
                assert parts.fragment in ids, f"{page}: {value}: no anchor #{parts.fragment}"
            checked += 1
    assert checked > 50   # the check did look at the site


def _explained_in(source: str, text: str) -> bool:
    """Whether the section's `source` quotes the message of warning `text` (its words after
    « Warning: », up to the first period): a warning the prose explains is part of the
    lesson, as when a GPU run frozen with another release of a library printed one."""
    message = re.search(r"Warning: (?:Warning: )?([^.\n]{20,})", text)
    return bool(message) and f"`{message.group(1).strip()}" in source


@pytest.mark.kernels
def test_the_executed_book_prints_no_warning_and_no_log_noise(book):
    noisy = []
    notebooks = sorted((book / "_build" / "eval").rglob("*.ipynb"))
    for path in notebooks:
        tab, *section = path.relative_to(book / "_build" / "eval").with_suffix("").parts
        source = (book / "chapters" / Path(*section).with_suffix(".md")).read_text()
        notebook = nbformat.read(path, as_version=4)
        for number, cell in enumerate(c for c in notebook.cells if c.cell_type == "code"):
            for output in cell.get("outputs", []):
                text = output.get("text", "") or str(output.get("data", {}).get("text/plain", ""))
                if (output.get("name") == "stderr" or re.search(r"Warning\b|WARNING", text)) \
                        and not _explained_in(source, text):
                    noisy.append(f"{path.relative_to(book)} cell {number + 1}: {text[:200]!r}")
    assert len(notebooks) > 30 and not noisy, "\n".join(noisy)


@pytest.mark.kernels
def test_references_numbers_and_math(book):
    page = (book / "_build" / "html" / "chapter_gpu" / "use-gpu.html").read_text()
    # The GPU chapter's place in the book's TOC gives its number.
    toc = (REPO / "chapters" / "index.md").read_text().split("```toc")[1].split("```")[0]
    chapters = [line for line in toc.split("\n") if line.endswith("/index")]
    number = f"{chapters.index('chapter_gpu/index') + 1}.1"
    assert f'<a class="reference" href="#fig_copyto">figure {number}</a>' in page
    assert '<figure id="fig_copyto">' in page and f"Figure {number}</span>" in page
    assert f'<h1 id="sec_use_gpu"><span class="number">{number}</span>' in page
    training = (book / "_build" / "html" / "chapter_foundations" / "training-api.html").read_text()
    assert "<math" in training and "$" not in re.sub(r"<pre.*?</pre>", "", training, flags=re.S)
    assert "Code PyTorch exécuté le" in training and "sur le processeur" in training


@pytest.mark.kernels
def test_single_framework_site_has_no_tabs_and_only_its_code(book):
    site = book / "_build" / "html-pytorch"
    page = (site / "chapter_gpu" / "use-gpu.html").read_text()
    assert "tab-list" not in page and "framework-select" not in page
    text = re.sub(r"<[^>]+>", "", page)
    assert "import torch" in text
    assert "from mxnet" not in text and "import tensorflow" not in text
    assert not (site / "notebooks" / "mxnet").exists()
    published = book / "public"   # --out: the tree a publish step uploads
    assert (published / "index.html").read_text() == (site / "index.html").read_text()
    assert (published / "pagefind" / "pagefind.js").is_file()


# -- in the browser --------------------------------------------------------------
@pytest.mark.browser
@pytest.mark.kernels
def test_a_tab_click_switches_every_group_and_persists(server, visitor):
    browse = visitor()
    page = browse.page
    page.goto(f"{server}/html/chapter_gpu/use-gpu.html")
    assert set(browse.visible_panels()) == {"pytorch"}
    groups = page.locator(".tab-group").count()
    assert groups >= 3
    page.locator(".tab-group").nth(1).locator("[data-tab-button=mxnet]").click()
    assert browse.visible_panels() == ["mxnet"] * groups
    launch = page.eval_on_selector_all(".launch", "els => els.filter(e => e.offsetParent "
                                                  "!== null).map(e => e.dataset.tab)")
    assert launch == ["mxnet"]
    page.locator("a[rel=prev]").click()
    page.wait_for_load_state()
    assert page.url.endswith("chapter_gpu/index.html")
    page.goto(f"{server}/html/chapter_foundations/training-api.html")
    assert set(browse.visible_panels()) == {"mxnet"}
    assert page.eval_on_selector("#framework-select", "s => s.value") == "mxnet"
    assert not browse.errors and not browse.outside


@pytest.mark.browser
@pytest.mark.kernels
def test_the_tab_query_parameter_chooses_the_framework(server, visitor):
    browse = visitor()
    browse.page.goto(f"{server}/html/chapter_gpu/use-gpu.html?tab=tensorflow")
    assert set(browse.visible_panels()) == {"tensorflow"}
    browse.page.goto(f"{server}/html/chapter_foundations/training-api.html")
    assert set(browse.visible_panels()) == {"tensorflow"}


@pytest.mark.browser
@pytest.mark.kernels
def test_search_finds_a_french_word(server, visitor):
    browse = visitor()
    # "périphériques" is written in the GPU chapter; the query uses the singular.
    browse.page.goto(f"{server}/html/search.html?q=p%C3%A9riph%C3%A9rique")
    results = browse.page.locator("#search-results a")
    results.first.wait_for(timeout=15000)
    hrefs = results.evaluate_all("els => els.map(e => e.getAttribute('href'))")
    assert any("chapter_gpu/use-gpu" in href for href in hrefs), hrefs
    assert browse.page.locator("#search-results mark").count() > 0
    results.first.click()   # relative links: the site is served from a sub-folder here
    browse.page.wait_for_load_state()
    assert "/html/chapter_" in browse.page.url
    assert not browse.errors and not browse.outside


@pytest.mark.browser
@pytest.mark.kernels
def test_no_console_error_and_no_request_leaves_the_machine(book, server, visitor):
    browse = visitor()
    for site_name in ("html", "html-pytorch"):
        for name in site_pages(book / "_build" / site_name):
            browse.page.goto(f"{server}/{site_name}/{name}")
            browse.page.wait_for_load_state("networkidle")
            for button in browse.page.locator("[data-tab-button=tensorflow]").all()[:1]:
                button.click()
    file_page = book / "_build" / "html" / "chapter_foundations" / "training-api.html"
    browse.page.goto(file_page.as_uri())
    assert browse.page.locator(".code-block > pre.code + .copy").count() > 3
    assert browse.errors == []
    assert browse.outside == []


@pytest.mark.browser
@pytest.mark.kernels
def test_launch_buttons_point_at_the_published_notebooks(book, server, visitor):
    config = load_config(book)
    section = next(s for s in parse_book(config)[0].pages() if s.name == "chapter_gpu/use-gpu")
    browse = visitor()
    browse.page.goto(f"{server}/html/chapter_gpu/use-gpu.html")
    for tab in TABS:
        links = launch_links(config, tab, section)
        box = browse.page.locator(f".launch[data-tab={tab}] a.button")
        hrefs = box.evaluate_all("els => els.map(e => e.getAttribute('href'))")
        if tab == "mxnet":   # Colab and Kaggle cannot run it: the download only, and where
            assert len(hrefs) == 1 and "Python 3.11" in browse.page.locator(
                ".launch[data-tab=mxnet] .launch-note").text_content()
        else:
            assert hrefs[:2] == [links.colab, links.kaggle]
            assert re.fullmatch(r"https://colab\.research\.google\.com/github/[\w.-]+/"
                                r"[\w.-]+/blob/[\w./-]+\.ipynb", hrefs[0])
        download = (book / "_build" / "html" / "chapter_gpu" / hrefs[-1]).resolve()
        nbformat.validate(nbformat.read(download, as_version=4))
        assert download.as_posix().endswith(f"notebooks/{tab}/chapter_gpu/use-gpu.ipynb")
        # Saved under a name that says its framework.
        assert box.last.get_attribute("download") == f"use-gpu-{tab}.ipynb"


@pytest.mark.browser
@pytest.mark.kernels
def test_screenshots_and_no_sideways_scroll_on_phones(book, server, visitor):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    backgrounds = {}
    for scheme in ("light", "dark"):
        browse = visitor(color_scheme=scheme, viewport={"width": 1280, "height": 900})
        browse.page.goto(f"{server}/html/chapter_gpu/use-gpu.html")
        path = SCREENSHOTS / f"use-gpu-{scheme}.png"
        browse.page.screenshot(path=str(path), full_page=True)
        assert path.stat().st_size > 20_000
        backgrounds[scheme] = browse.page.evaluate(
            "getComputedStyle(document.body).backgroundColor")
    assert backgrounds == {"light": "rgb(255, 255, 255)", "dark": "rgb(21, 24, 29)"}
    phone = visitor(viewport={"width": 390, "height": 844}, is_mobile=True)
    phone.page.goto(f"{server}/html/chapter_gpu/use-gpu.html")
    phone.page.screenshot(path=str(SCREENSHOTS / "use-gpu-phone.png"))
    wide = []
    for name in site_pages(book / "_build" / "html"):   # tables, formulas, long identifiers
        phone.page.goto(f"{server}/html/{name}")
        width = phone.page.evaluate("document.documentElement.scrollWidth")
        if width > 390:
            wide.append(f"{name} ({width} px)")
    assert not wide, f"these pages scroll sideways on a phone: {wide}"


@pytest.mark.browser
@pytest.mark.kernels
def test_a_theme_toggle_overrides_the_system(server, visitor):
    browse = visitor(color_scheme="light")
    browse.page.goto(f"{server}/html/index.html")
    toggle = browse.page.locator("button.theme")
    toggle.click()   # auto -> light
    toggle.click()   # light -> dark
    assert browse.page.evaluate("document.documentElement.dataset.theme") == "dark"
    browse.page.goto(f"{server}/html/chapter_gpu/index.html")
    assert browse.page.evaluate("getComputedStyle(document.body).backgroundColor") == \
        "rgb(21, 24, 29)"


# -- a section lacking a framework (rendered from unexecuted notebooks: no kernel) ----
PARTIAL = DECLARE.replace("'mxnet', 'tensorflow'", "'mxnet'") + """
# Deux frameworks seulement

```{.python .input}
%%tab pytorch
import torch
```

```{.python .input}
%%tab mxnet
from mxnet import np
```
"""


def render_unexecuted(root: Path) -> Path:
    """Render the book in `root` from its split, unexecuted notebooks; its site folder."""
    shutil.copy(REPO / "pyproject.toml", root / "pyproject.toml")
    config, book_model, layout = write_executed(root, split_section)
    return render_site(book_model, config, number_book(book_model), config.build.tabs,
                       layout).folder


@pytest.mark.browser
def test_a_section_without_the_chosen_framework_says_so(tmp_path, visitor):
    site = render_unexecuted(write_book(tmp_path, {"chap/sec.md": PARTIAL}))
    browse = visitor()
    browse.page.goto((site / "chap" / "sec.html").as_uri() + "?tab=tensorflow")
    notice = browse.page.locator("#missing-tab")
    assert notice.is_visible()
    assert "TensorFlow" in notice.inner_text() and "PyTorch" in notice.inner_text()
    assert set(browse.visible_panels()) == {"pytorch"}
    assert browse.errors == []


class Head(HTMLParser):
    """The <title> text, the meta author and every tag name of a page."""

    def __init__(self):
        super().__init__()
        self.title, self.author, self.tags, self.in_title = "", None, set(), False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.add(tag)
        self.in_title = tag == "title"
        if tag == "meta" and attrs.get("name") == "author":
            self.author = attrs["content"]

    def handle_endtag(self, tag):
        self.in_title = False

    def handle_data(self, data):
        if self.in_title:
            self.title += data


def test_names_and_titles_are_escaped_and_the_author_is_in_the_head(tmp_path):
    config = CONFIG.replace("title = Un livre de test",
                            'title = Un <livre> & "test"\nauthor = Moi & <toi>')
    root = write_book(tmp_path, {"chap/sec.md": PARTIAL.replace(
        "# Deux frameworks seulement", '# Deux frameworks & "plus"')}, config)
    site = render_unexecuted(root)
    page = (site / "chap" / "sec.html").read_text(encoding="utf-8")
    head = Head()
    head.feed(page)
    assert head.title == '1.1 Deux frameworks & "plus" — Un <livre> & "test"'
    assert head.author == "Moi & <toi>"
    assert not {"livre", "toi"} & head.tags
    (tmp_path / "anonymous").mkdir()
    without_author = write_book(tmp_path / "anonymous", {"chap/sec.md": PARTIAL})
    head = Head()
    head.feed((render_unexecuted(without_author) / "index.html").read_text(encoding="utf-8"))
    assert head.author is None and head.title == "Livre — Un livre de test"


@pytest.mark.browser
def test_a_role_written_in_inline_code_stays_literal_on_the_page(tmp_path, visitor):
    text = ("# Une section\n:label:`sec_one`\n\nÉcrire `` :numref:`sec_one` `` donne "
            ":numref:`sec_one`.\n")
    site = render_unexecuted(write_book(tmp_path, {"chap/sec.md": text}))
    browse = visitor()
    browse.page.goto((site / "chap" / "sec.html").as_uri())
    paragraph = browse.page.locator("article p").first
    assert paragraph.locator("code").inner_text() == ":numref:`sec_one`"
    links = paragraph.locator("a.reference")
    assert links.count() == 1 and links.inner_text() == "section 1.1"
    assert "<a" not in paragraph.inner_text()


# -- search, labels, accessibility ---------------------------------------------------
def headings(path: Path) -> list[tuple[str, str]]:
    """(id, text) of the numbered headings of a page."""
    page = path.read_text(encoding="utf-8")
    return [(anchor, re.sub(r"<[^>]+>", "", inner)) for anchor, inner in
            re.findall(r'<h[1-3] id="([^"]+)">(.*?)</h[1-3]>', page, flags=re.S)]


@pytest.mark.browser
@pytest.mark.kernels
def test_a_search_result_leads_to_the_heading_it_matches(book, server, visitor):
    word = "refroidissement"
    site = book / "_build" / "html"
    # Where the first result must lead: the one heading of the book that holds the word.
    holders = [(name, anchor) for name in site_pages(site)
               for anchor, text in headings(site / name) if word in text.lower()]
    assert len(holders) == 1, holders
    name, anchor = holders[0]
    browse = visitor()
    browse.page.goto(f"{server}/html/search.html?q={word}")
    titles = browse.page.locator("#search-results a")
    titles.first.wait_for(timeout=15000)
    assert not [t for t in titles.all_inner_texts() if "#" in t]   # no heading anchor glued
    first = titles.first
    assert word in first.inner_text().lower()
    target = urlsplit(urljoin(browse.page.url, first.get_attribute("href")))
    assert (target.path, unquote(target.fragment)) == (f"/html/{name}", anchor)
    first.click()
    browse.page.wait_for_load_state()
    assert unquote(urlsplit(browse.page.url).fragment) == anchor
    top = browse.page.evaluate("id => document.getElementById(id).getBoundingClientRect().top",
                               anchor)
    assert 0 <= top < 150   # the heading is at the top of the window, below the header
    assert not browse.errors and not browse.outside


LABELS = """() => {
  const texts = [];
  for (const e of document.querySelectorAll("[aria-label], [title], [placeholder]"))
    for (const name of ["aria-label", "title", "placeholder"])
      if (e.hasAttribute(name)) texts.push(e.getAttribute(name));
  for (const e of document.querySelectorAll("header, button, label, a.skip, a.button, "
                                             + ".pager-word, #search-status"))
    texts.push(e.innerText);
  return texts;
}"""


@pytest.mark.browser
@pytest.mark.kernels
def test_the_interface_speaks_french(server, visitor):
    browse = visitor()
    labels = []
    for name in ("index.html", "chapter_gpu/use-gpu.html", "search.html?q=GPU"):
        browse.page.goto(f"{server}/html/{name}")
        browse.page.wait_for_load_state("networkidle")
        labels += browse.page.evaluate(LABELS)
    assert browse.page.get_by_role("combobox", name="Bibliothèque").count() == 1
    assert "«\u202fGPU\u202f»" in browse.page.locator("#search-status").inner_text()
    browse.page.goto(f"{server}/html/chapter_gpu/use-gpu.html")
    assert browse.page.get_by_role("tablist", name="Bibliothèque").count() > 2
    words = "\n".join(labels).replace("(.ipynb)", "")   # a file extension, not a word
    assert len(labels) > 30 and not unknown_words(words), labels


def axe_violations(page) -> list[str]:
    """axe-core's serious and critical violations on the page, each with its elements."""
    page.add_script_tag(path=str(ensure_axe_core()))
    found = page.evaluate("async () => (await axe.run(document, "
                          "{resultTypes: ['violations']})).violations")
    return [f"{violation['id']} ({violation['impact']}): {' '.join(node['target'])} — "
            f"{' '.join(node['failureSummary'].split())}"
            for violation in found if violation["impact"] in ("serious", "critical")
            for node in violation["nodes"]]


@pytest.mark.network
@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.browser
@pytest.mark.kernels
def test_no_serious_accessibility_violation_on_any_page(book, server, visitor, scheme):
    browse = visitor(color_scheme=scheme)
    faults = []
    # The slide decks are reveal.js documents, without the book's themes: not checked here.
    for name in (n for n in site_pages(book / "_build" / "html") if not n.startswith("slides/")):
        searching = name == "search.html"   # with results on it
        browse.page.goto(f"{server}/html/{name}" + ("?q=GPU" if searching else ""))
        if searching:
            browse.page.locator("#search-results li").first.wait_for(timeout=15000)
        browse.page.wait_for_load_state("networkidle")
        assert browse.page.evaluate("document.documentElement.dataset.scheme") == scheme
        faults += [f"{name} [{scheme}] {fault}" for fault in axe_violations(browse.page)]
    assert not faults, "\n".join(faults)


# -- a site that repairs itself (no kernel, no browser) ----------------------------------
def rendered(root: Path):
    """Render the book in `root` from the executed notebooks already there."""
    config = load_config(root)
    book_model, problems = parse_book(config)
    assert not problems, problems
    return render_site(book_model, config, number_book(book_model), config.build.tabs,
                       Layout(root))


def site_files(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in site.rglob("*")
            if p.is_file()}


@pytest.fixture
def small_site(tmp_path) -> Path:
    """A rendered two-page book; its site folder."""
    (tmp_path / "book").mkdir()
    site = render_unexecuted(write_book(tmp_path / "book", {"chap/sec.md": PARTIAL}))
    kept = rendered(tmp_path / "book")
    assert not kept.rendered   # nothing changed: kept, its pages counted as rendered ones
    assert kept.pages == len([page for page in site.rglob("*.html") if page.name != "search.html"])
    return site


def test_a_page_deleted_truncated_or_added_is_rendered_again(small_site):
    root = small_site.parents[1]
    original = site_files(small_site)
    page = small_site / "chap" / "sec.html"
    page.unlink()
    assert rendered(root).rendered and site_files(small_site) == original
    page.write_bytes(page.read_bytes()[:100])
    assert rendered(root).rendered and site_files(small_site) == original
    (small_site / "_static" / "book.js").write_text("// edited by hand\n")
    assert rendered(root).rendered and site_files(small_site) == original
    (small_site / "stray.html").write_text("<p>not the book's</p>")
    assert rendered(root).rendered and site_files(small_site) == original
    assert not rendered(root).rendered


def test_a_kept_page_keeps_the_images_it_shows(tmp_path):
    """After a prose edit elsewhere, a page copied from the previous site comes with the
    images its rendering wrote there: the book's own and its outputs' (_images/)."""
    (tmp_path / "book").mkdir()
    root = write_book(tmp_path / "book",
                      {"chap/sec.md": PARTIAL + "\n![Un anneau](../../img/ring.svg)\n"})
    (root / "img").mkdir()
    (root / "img" / "ring.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg"/>')
    shutil.copy(REPO / "pyproject.toml", root / "pyproject.toml")

    def with_an_image(section, tab):
        notebook = split_section(section, tab)
        for cell in notebook.cells:
            if cell.cell_type == "code":
                cell.outputs = [nbformat.v4.new_output("display_data", data={"image/png": PNG})]
        return notebook
    config, book_model, layout = write_executed(root, with_an_image)
    site = render_site(book_model, config, number_book(book_model), config.build.tabs,
                       layout).folder
    whole = site_files(site)
    assert "img/ring.svg" in whole and any(name.startswith("_images/") for name in whole)
    index = root / "chapters" / "index.md"
    index.write_text(index.read_text(encoding="utf-8") + "\nUne phrase ajoutée.\n",
                     encoding="utf-8")
    assert rendered(root).rendered
    after = site_files(site)
    assert after["index.html"] != whole["index.html"]
    shown = [name for name in whole if name.startswith(("_images/", "img/", "chap/"))]
    assert {name: after.get(name) for name in shown} == {name: whole[name] for name in shown}


@pytest.mark.parametrize("stamp", [b"\xff\xfe not UTF-8", b"{not json", b"[]", b"null",
                                   b'{"fingerprint": 3}', b'{"fingerprint": "x", "files": []}'])
def test_a_damaged_site_stamp_is_a_missing_one(small_site, stamp):
    original = site_files(small_site)
    (small_site / INPUTS_STAMP).write_bytes(stamp)
    assert rendered(small_site.parents[1]).rendered
    assert site_files(small_site) == original


def test_a_moved_book_keeps_its_site(small_site, tmp_path):
    moved = tmp_path / "elsewhere"
    shutil.move(small_site.parents[1], moved)
    assert not rendered(moved).rendered


def test_what_a_killed_render_left_goes_at_the_next_render(small_site):
    root = small_site.parents[1]
    original = site_files(small_site)
    for leftover in ("html.new", "html.old"):
        (small_site.parent / leftover / "chap").mkdir(parents=True)
        (small_site.parent / leftover / "chap" / "sec.html").write_text("<p>half")
    assert not rendered(root).rendered   # the site itself is intact: kept
    assert sorted(p.name for p in small_site.parent.iterdir() if p.name.startswith("html")) \
        == ["html"]
    assert site_files(small_site) == original



def site_names(build: Path) -> list[str]:
    return sorted(p.name for p in build.iterdir() if p.name.startswith("html"))


@pytest.fixture(params=["same disk", "another disk"])
def linked_site(request, small_site, tmp_path) -> Path:
    """The small site moved elsewhere, `_build/html` a symlink to it; where it is."""
    elsewhere = Path(tempfile.mkdtemp(dir=tmp_path if request.param == "same disk" else
                                      "/dev/shm"))   # a tmpfs: renames from _build: EXDEV
    request.addfinalizer(lambda: shutil.rmtree(elsewhere, ignore_errors=True))
    assert (elsewhere.stat().st_dev == small_site.stat().st_dev) == (request.param == "same disk")
    target = shutil.move(small_site, elsewhere / "published")
    small_site.symlink_to(target)
    return Path(target)


def test_a_symlinked_site_folder_is_published_into_its_target(linked_site, small_site):
    root = small_site.parents[1]
    edit_section(root)
    for _ in range(2):   # and again: nothing left behind stops the next render
        assert rendered(root).rendered
        edit_section(root)
    assert small_site.is_symlink() and small_site.resolve() == linked_site
    assert b"Une phrase de plus" in (linked_site / "chap" / "sec.html").read_bytes()
    assert site_names(small_site.parent) == ["html"]
    assert sorted(p.name for p in linked_site.parent.iterdir()) == ["published"]
    assert rendered(root).rendered and not rendered(root).rendered   # whole: kept


def test_a_symlink_left_as_html_old_goes_at_the_next_render(small_site, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "keep").mkdir(parents=True)
    (small_site.parent / "html.old").symlink_to(elsewhere)   # what an older build left
    edit_section(small_site.parents[1])
    assert rendered(small_site.parents[1]).rendered
    assert site_names(small_site.parent) == ["html"]
    assert (elsewhere / "keep").is_dir()   # only the link went


def test_a_site_folder_that_cannot_be_renamed_is_replaced_in_place(small_site, monkeypatch):
    root = small_site.parents[1]
    folder = small_site.stat().st_ino
    stray = small_site / "stray.html"
    stray.write_text("<p>not the book's</p>")
    edit_section(root)
    rename = Path.rename

    def busy(path: Path, target):   # as a mount point answers
        if path == small_site:
            raise OSError(errno.EBUSY, os.strerror(errno.EBUSY), str(path), str(target))
        return rename(path, target)

    monkeypatch.setattr(Path, "rename", busy)
    assert rendered(root).rendered
    assert small_site.stat().st_ino == folder and not stray.exists()
    assert b"Une phrase de plus" in (small_site / "chap" / "sec.html").read_bytes()
    assert site_names(small_site.parent) == ["html"]
    assert not rendered(root).rendered   # whole (no file of the old one left): kept


def test_a_site_folder_that_cannot_be_moved_is_named_in_the_error(small_site, capsys):
    root = small_site.parents[1]
    original = site_files(small_site)
    edit_section(root)
    subprocess.run(["chattr", "+i", str(small_site)], check=True)   # immutable
    try:
        status = reporting(lambda: rendered(root), Console())
    finally:
        subprocess.run(["chattr", "-i", str(small_site)], check=True)
    err = capsys.readouterr().err
    assert status == 1 and "Traceback" not in err, err
    assert f"error: cannot access {small_site}: operation not permitted — give yourself " \
           "read and write access" in err
    assert site_files(small_site) == original and site_names(small_site.parent) == ["html"]
    assert rendered(root).rendered   # once it can be moved again

def edit_section(root: Path) -> None:
    section = root / "chapters" / "chap" / "sec.md"
    section.write_text(section.read_text(encoding="utf-8") + "\nUne phrase de plus.\n",
                       encoding="utf-8")


def interrupted_render(root: Path, error: BaseException, capsys) -> tuple[int, str]:
    """Report a render of `root` whose first page rendered (the edited one; the others,
    unchanged, are copied before it) raises `error`; the status and stderr."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(render, "render_page", raising_on_call(0, error, render_page))
        status = reporting(lambda: rendered(root), Console())
    return status, capsys.readouterr().err


def test_a_prose_edit_renders_its_page_alone_and_the_site_a_full_render_makes(small_site):
    root = small_site.parents[1]
    before = site_files(small_site)
    edit_section(root)
    pages = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(render, "render_page", lambda site, all_pages, position: (
            pages.append(all_pages[position].name), render_page(site, all_pages, position))[1])
        assert rendered(root).rendered
    assert pages == ["chap/sec"]
    incremental = site_files(small_site)
    assert incremental["chap/sec.html"] != before["chap/sec.html"]
    shutil.rmtree(small_site)
    assert rendered(root).rendered
    full = site_files(small_site)
    stamp = ".inputs"   # it records how each page was made: the same keys
    assert {k: v for k, v in incremental.items() if k != stamp} == \
        {k: v for k, v in full.items() if k != stamp}


def test_ctrl_c_during_a_render_keeps_the_previous_site_whole(small_site, capsys):
    root = small_site.parents[1]
    original = site_files(small_site)
    edit_section(root)
    status, err = interrupted_render(root, KeyboardInterrupt(), capsys)
    assert status == 130 and "interrupted" in err and "Traceback" not in err
    assert site_files(small_site) == original
    assert [p.name for p in small_site.parent.iterdir() if p.name.startswith("html")] == ["html"]
    assert rendered(root).rendered and b"Une phrase de plus" in \
        (small_site / "chap" / "sec.html").read_bytes()


def test_a_full_disk_during_a_render_is_a_clear_error(small_site, capsys):
    root = small_site.parents[1]
    original = site_files(small_site)
    edit_section(root)
    full = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))   # as write() raises it: no file
    status, err = interrupted_render(root, full, capsys)
    assert status == 1 and "Traceback" not in err
    assert f"error: cannot write {small_site.parent / 'html.new'}: no space left on device " \
           "— free some space" in err
    assert site_files(small_site) == original
    assert [p.name for p in small_site.parent.iterdir() if p.name.startswith("html")] == ["html"]


def test_consecutive_stream_outputs_show_as_one_block():
    from tabbook.output.outputs import merged_streams
    outputs = [{"output_type": "stream", "name": "stdout", "text": "a\n"},
               {"output_type": "stream", "name": "stdout", "text": ["b\n", "c\n"]},
               {"output_type": "stream", "name": "stderr", "text": "w\n"},
               {"output_type": "stream", "name": "stderr", "text": "x\n"},
               {"output_type": "display_data", "data": {"text/plain": "d"}},
               {"output_type": "stream", "name": "stdout", "text": "e\n"}]
    merged = merged_streams(outputs)
    assert [(o["output_type"], o.get("name"), o.get("text")) for o in merged] == [
        ("stream", "stdout", "a\nb\nc\n"), ("stream", "stderr", "w\nx\n"),
        ("display_data", None, None), ("stream", "stdout", "e\n")]


# -- the reader's page (issue 29): layout, copy buttons, absent tabs, sidebar, outline, theme
DESKTOP, PHONE = {"width": 1366, "height": 900}, {"width": 390, "height": 844}
COPY_OVERLAPS = """() => [...document.querySelectorAll('.code-block')].filter(b => b.offsetParent)
  .filter(b => { const code = b.querySelector('pre code'), button = b.querySelector('.copy')
    .getBoundingClientRect(), range = document.createRange(); range.selectNodeContents(code);
    const rects = [...range.getClientRects()].filter(r => r.width > 0);
    const top = Math.min(...rects.map(r => r.top));
    return rects.filter(r => r.top < top + 4).some(r => r.right > button.left &&
      r.left < button.right && r.bottom > button.top && r.top < button.bottom); }).length"""


@pytest.mark.browser
@pytest.mark.kernels
@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_copy_button_never_covers_the_first_line_of_code(server, visitor, viewport):
    browse = visitor(viewport=viewport)
    for name in ("chapter_performance/mixed-precision", "chapter_access/hpc"):
        browse.page.goto(f"{server}/html/{name}.html")
        assert browse.page.locator(".code-block").count() > 0
        assert browse.page.evaluate(COPY_OVERLAPS) == 0, name
    assert not browse.errors


@pytest.mark.browser
@pytest.mark.kernels
def test_a_wide_table_uses_the_column_on_a_laptop_and_scrolls_on_a_phone(server, visitor):
    browse = visitor(viewport=DESKTOP)
    browse.page.goto(f"{server}/html/chapter_access/why-gpu.html")
    sizes = browse.page.eval_on_selector_all(
        "article table", "ts => ts.map(t => [t.scrollWidth, t.clientWidth])")
    assert sizes and all(scroll <= client for scroll, client in sizes), sizes
    phone = visitor(viewport=PHONE)
    phone.page.goto(f"{server}/html/chapter_access/why-gpu.html")
    overflow = phone.page.eval_on_selector_all("article table", "ts => ts.map(t => "
                                               "getComputedStyle(t).overflowX)")
    assert set(overflow) == {"auto"}   # what does not fit scrolls sideways
    assert phone.page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


@pytest.mark.browser
@pytest.mark.kernels
def test_a_tab_group_without_the_readers_framework_says_so(server, visitor):
    browse = visitor(viewport=DESKTOP)

    def absent(page: str) -> set[str]:
        browse.page.goto(f"{server}/html/{page}")
        return set(browse.page.locator(".tab-absent").evaluate_all(
            "els => els.filter(e => e.offsetParent).map(e => e.innerText.trim())"))
    # The MXNet and TensorFlow notes after the QLoRA code: nothing missing for PyTorch.
    assert absent("chapter_big_models/lora.html?tab=pytorch") == {
        "Ce passage concerne MXNet et TensorFlow."}
    assert absent("chapter_big_models/reproducibility.html?tab=mxnet") == {
        "Pas de version MXNet de ce passage."}
    # Every visible tab group shows something, and its bar has the reader's framework.
    assert browse.page.evaluate("""[...document.querySelectorAll('.tab-group')].every(g =>
        [...g.querySelectorAll('.tab-panel')].some(p => p.offsetParent && p.innerText.trim())
        && g.querySelector('[data-tab-button=mxnet][aria-selected=true]'))""")


@pytest.mark.browser
@pytest.mark.kernels
def test_sidebar_and_outline_follow_the_reader(server, visitor):
    browse = visitor(viewport={"width": 1366, "height": 768})
    browse.page.goto(f"{server}/html/chapter_references/zreferences.html")
    assert browse.page.evaluate("""(() => { const s = document.getElementById('sidebar')
        .getBoundingClientRect(), e = document.querySelector('#sidebar [aria-current=page]')
        .getBoundingClientRect(); return e.top >= s.top && e.bottom <= s.bottom; })()""")
    browse.page.goto(f"{server}/html/chapter_multi_gpu/data-parallel.html")
    first = browse.page.locator(".outline a[aria-current=true]").inner_text()
    browse.page.locator("article h2[id]").nth(2).scroll_into_view_if_needed()
    browse.page.mouse.wheel(0, 10)
    browse.page.wait_for_timeout(300)
    later = browse.page.locator(".outline a[aria-current=true]")
    assert later.count() == 1 and later.inner_text() != first


@pytest.mark.browser
@pytest.mark.kernels
def test_a_phone_has_a_compact_header_and_the_outline(server, visitor):
    browse = visitor(viewport=PHONE)
    browse.page.goto(f"{server}/html/chapter_performance/mixed-precision.html")
    assert browse.page.locator("header.top").bounding_box()["height"] < 100   # two rows
    summary = browse.page.locator(".outline summary")
    assert summary.is_visible()
    summary.click()
    assert browse.page.locator(".outline ol a").first.is_visible()


@pytest.mark.browser
@pytest.mark.kernels
def test_the_theme_button_shows_the_theme_at_each_click(server, visitor):
    browse = visitor(viewport=DESKTOP, color_scheme="light")
    browse.page.goto(f"{server}/html/index.html")
    button = browse.page.locator("button.theme")
    seen = [button.inner_text()]
    for _ in range(3):
        button.click()
        seen.append(button.inner_text())
    assert seen == ["◐automatique", "☀clair", "☾sombre", "◐automatique"]


@pytest.mark.kernels
def test_chapter_index_pages_list_their_sections_and_chrome_is_not_indexed(book):
    site = book / "_build" / "html"
    page = (site / "chapter_access" / "index.html").read_text(encoding="utf-8")
    listed = re.search(r'<nav class="chapter-sections".*?</nav>', page, flags=re.S).group(0)
    assert 'href="why-gpu.html"' in listed or "why-gpu.html" in listed
    section = (site / "chapter_access" / "why-gpu.html").read_text(encoding="utf-8")
    assert re.search(r'<div class="launch" data-pagefind-ignore', section)
    assert 'id="missing-tab" hidden data-pagefind-ignore' in section
    mxnet = re.search(r'<div class="launch" data-pagefind-ignore data-tab="mxnet">.*?</div>',
                      section, flags=re.S)
    if mxnet:   # MXNet: the download only, named for its framework, and where it runs
        assert "colab" not in mxnet.group(0) and 'download="why-gpu-mxnet.ipynb"' in mxnet.group(0)
    assert (site / "pagefind" / "pytorch").is_dir() and (site / "pagefind" / "mxnet").is_dir()


@pytest.mark.browser
@pytest.mark.kernels
def test_search_indexes_the_readers_content_only(server, visitor):
    browse = visitor(viewport=DESKTOP)

    def pages(query, tab="pytorch"):
        browse.page.goto(f"{server}/html/search.html?tab={tab}&q={query}")
        status = browse.page.locator("#search-status")
        status.filter(has_text=re.compile(r"\d")).wait_for(timeout=15000)
        return browse.page.locator("#search-results > li > a").evaluate_all(
            "els => els.map(e => e.getAttribute('href'))")

    assert pages("xyzzy") == []
    assert pages("Kaggle") == pages("Kaggle")   # stable
    assert len(pages("Colab")) < 19   # no longer every page with buttons
    written_out = set(pages("coeurs%20tensoriels"))   # « cœurs » in the book
    assert written_out and written_out == set(pages("c%C5%93urs%20tensoriels"))
    assert pages("memoire")
    # Other frameworks' code is not in the reader's index.
    assert not pages("npx.set_np", "pytorch") and pages("npx.set_np", "mxnet")


def test_an_output_too_long_is_published_cut_and_warned_about(tmp_path):
    """A cell that printed 50 MB made a 52 MB page and a 53 MB launch notebook without a
    word. Eval warns at the cell's line; the page, the PDF and the launch notebook show the
    output's beginning and end around a notice in the book's language; the executed
    notebook keeps it whole. (A cached record stands for the kernel's run.)"""
    import io

    from tabbook.execution.record import write_cache
    from tabbook.output.launch import write_launch_notebooks
    from tabbook.output.print_layout import page_anchor, print_layout
    from test_evaluate import Book, ran_record

    book = Book(tmp_path)
    printed = "".join(f"ligne {number}\n" for number in range(36_000))   # 0.4 MB
    record = ran_record(book.section(book.plan()))
    (cell,) = record.cells.values()
    cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": part}
                       for part in (printed[:200_000], printed[200_000:])]   # as kernels cut it
    write_cache(book.record_path, record)
    result = book.evaluate(book.plan())

    source = (book.root / "chapters" / "chap" / "sec.md").read_text().split("\n")
    assert [str(problem) for problem in result.long_outputs] == [
        f"chapters/chap/sec.md:{source.index('x = 6 * 7') + 1}: [pytorch] warning: an output of "
        "0.4 MB (over 100000 characters) is too long to be published whole: the pages, the PDF "
        "and the launch notebook show its beginning and end, at most 5000 characters each (the "
        "executed notebook keeps it whole) — print less (a summary, one line in a hundred), or "
        "write it to a file"]
    err = io.StringIO()
    Console(io.StringIO(), err).long_outputs(list(result.long_outputs), strict=False)
    assert err.getvalue().endswith("eval: 1 output too long to be published whole (the pages "
                                   "and launch notebooks show them cut)\n")
    executed = nbformat.read(book.executed_path, as_version=4)
    assert "".join(output.text for cell in executed.cells if cell.cell_type == "code"
                   for output in cell.outputs) == printed

    model, _ = parse_book(book.config)
    numbers, (section,) = number_book(model), [s for s in model.pages() if s.name == "chap/sec"]
    write_launch_notebooks(book.config, numbers, [(section, "pytorch")], book.layout)
    launch = nbformat.read(book.layout.launch_notebook("pytorch", section), as_version=4)
    (shown,) = [cell.outputs for cell in launch.cells if cell.cell_type == "code"][1]
    site = render.Site(book.config, model, numbers, ("pytorch",), tmp_path / "site", book.layout)
    page = render_page(site, model.pages(), model.pages().index(section))
    printable = print_layout(model, book.config, numbers, "pytorch", book.layout,
                             datetime.date(2026, 11, 26)).bodies[page_anchor(section)]
    notice = ("[… sortie tronquée\u202f: 0,4\u00a0Mo en tout\u202f; seuls son début et sa fin "
              "sont montrés (au plus 5000 caractères chacun) …]")
    head, tail = shown.text.split(f"\n{notice}\n")
    assert printed.startswith(head + "\n") and printed.endswith("\n" + tail)
    assert 4900 < len(head) <= 5000 and 4900 < len(tail) <= 5000
    for html in (page, printable):
        assert f'\n<span class="output-cut">{notice}</span>\nligne ' in html
        assert "ligne 0\n" in html and "ligne 35999\n" in html and "ligne 18000" not in html
        assert len(html) < 60_000
