"""The reference of the d2l package: the page « Le paquet d2l » of a book with a library,
and d2lbook's automodule blocks, which show the same reference in place."""
from __future__ import annotations

import ast
import gzip
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from conftest import DECLARE, REPO, md, write_book, write_executed
from test_compat import write_d2lbook_book
from tabbook.core.config import load_config
from tabbook.notebooks.split import split_section
from tabbook.output.package_reference import package_entries
from tabbook.output.render import render_site
from tabbook.source.numbering import number_book
from tabbook.source.check import check_book
from tabbook.source.parse import parse_book
from tabbook.source.rst_blocks import automodule, html_title


class _Page(HTMLParser):
    """A page's ids and links."""

    def __init__(self, text: str):
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if "id" in attributes:
            self.ids.add(attributes["id"])
        if tag == "a" and attributes.get("href"):
            self.links.append(attributes["href"])


def _library_names(source: str) -> set[str]:
    """The functions and classes at the top level of a library file, and the methods of
    its classes (those added with add_to_class among them), as ``Class.method``."""
    names = set()
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.ClassDef):
            names.add(node.name)
            names.update(f"{node.name}.{m.name}" for m in node.body
                         if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))
                         and m.name != "__init__")
    return names


def _shown_names(html: str, tab: str) -> set[str]:
    return set(re.findall(rf'<dt id="d2l-{tab}-([\w.]+)">', html))


def _broken_links(site: Path, page: str) -> list[str]:
    """The links of `page` to the site's pages whose page or anchor does not exist."""
    broken = []
    for link in _Page((site / page).read_text(encoding="utf-8")).links:
        if "://" in link or link.startswith(("data:", "mailto:")):
            continue
        target, _, anchor = link.partition("#")
        path = (site / page).parent / target.split("?")[0] if target else site / page
        if path.is_dir():
            path = path / "index.html"
        if not path.is_file():
            broken.append(link)
        elif anchor and path.suffix == ".html" and \
                anchor not in _Page(path.read_text(encoding="utf-8")).ids:
            broken.append(link)
    return broken


def test_the_reference_holds_every_saved_name_of_our_book():
    """Our book's reference, tab by tab, names what d2l/<tab>.py defines, in its order."""
    config = load_config(REPO)
    book, _ = parse_book(config)
    for tab, library in config.library.tabs.items():
        entries = package_entries(book, config, tab)
        shown = [e.name for e in entries] + [m.name for e in entries for m in e.members]
        source = (REPO / library.lib_file).read_text(encoding="utf-8")
        assert sorted(shown) == sorted(_library_names(source)), tab
        top = [n.name for n in ast.parse(source).body
               if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
        assert [e.name for e in entries] == top, tab   # book order, as the library file
        assert all(e.place and e.place.line > 0 for e in entries)
        added = [m for e in entries for m in e.members if m.place]
        assert added, f"{tab}: no method added with add_to_class"


SAVING = md(DECLARE, """
    # Une section

    ```{.python .input}
    #@tab all
    class Model:  #@save
        \"\"\"Un modèle.\"\"\"
        def __init__(self, size):
            self.size = size
    ```

    ```{.python .input}
    #@tab all
    @d2l.add_to_class(Model)  #@save
    def grow(self, by=1):
        \"\"\"Grandit de `by`.\"\"\"
        self.size += by
    ```
""")


def _render_book(root: Path) -> Path:
    config, book, layout = write_executed(root, split_section)
    return render_site(book, config, number_book(book), config.build.tabs, layout).folder


def test_a_book_with_a_library_gets_its_reference_page(tmp_path):
    """The page comes after the last chapter, one tab group of the three tabs; it is made
    again when a section's saved code changes (its key has the reference in it)."""
    root = write_book(tmp_path, {"chap/sec.md": SAVING})
    site = _render_book(root)
    page = (site / "d2l.html").read_text(encoding="utf-8")
    assert "<title>Le paquet d2l — Un livre de test</title>" in page
    for tab in ("pytorch", "mxnet", "tensorflow"):
        assert _shown_names(page, tab) == {"Model", "Model.grow"}
    assert re.search(r'<span class="keyword">class</span> <span class="name">d2l.Model</span>'
                     r'\(self, size\)', page)
    assert re.search(r'Ajoutée dans la section <a href="chap/sec.html#code-mxnet-\d+">1.1</a>'
                     r' \(chapters/chap/sec.md, ligne \d+\)', page)
    assert page.count('role="tablist"') == 1
    assert _broken_links(site, "d2l.html") == []
    section = (site / "chap" / "sec.html").read_text(encoding="utf-8")
    assert '<a class="next" rel="next" href="../d2l.html">' in section
    (root / "chapters/chap/sec.md").write_text(SAVING.replace("Un modèle.", "Un modèle simple."),
                                               encoding="utf-8")
    assert "Un modèle simple." in (_render_book(root) / "d2l.html").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def d2lbook_site(tmp_path_factory) -> Path:
    """The small d2lbook book of test_compat, rendered from its split notebooks."""
    root = write_d2lbook_book(tmp_path_factory.mktemp("d2lbook") / "mini")
    config, book, layout = write_executed(root, split_section, warnings=True)
    return render_site(book, config, number_book(book), config.build.tabs, layout).folder


def test_automodule_blocks_show_the_reference_of_their_tab(d2lbook_site):
    page = (d2lbook_site / "chapter_appendix" / "d2l.html").read_text(encoding="utf-8")
    for tab in ("mxnet", "pytorch"):
        assert _shown_names(page, tab) == {"double"}
        assert re.search(rf'<dt id="d2l-{tab}-double"><code class="signature">'
                         r'<span class="name">d2l.double</span>\(x\)</code></dt>', page)
        assert re.search(r'Définie dans la section <a href="../chapter_basics/basics.html'
                         rf'#code-{tab}-\d+">1.1</a> \(chapter_basics/basics.md, ligne \d+\)',
                         page)
    assert '<pre class="docstring">Le double.</pre>' in page
    assert _broken_links(d2lbook_site, "chapter_appendix/d2l.html") == []
    # The book shows the reference where it wants it: no page of its own.
    assert not (d2lbook_site / "d2l.html").exists()


def test_an_only_html_title_is_the_page_s_title(d2lbook_site):
    page = (d2lbook_site / "chapter_references" / "zreferences.html").read_text(
        encoding="utf-8")
    assert "<title>References — Mini livre</title>" in page
    assert '<h1 id="references">References<a class="anchor"' in page
    # The sidebar names the page by that title too, not by its file name.
    assert re.search(r'<a href="zreferences.html" aria-current="page">References</a>', page)


def test_our_book_s_reference_page_links_to_every_definition(built_repository):
    """The page lists each tab's saved names and is in the sidebar and the search index;
    every link of it reaches an existing anchor (the code cell that defines the name); a
    site built for one tab shows that tab's reference alone, without tab interface."""
    config = load_config(built_repository)
    site = built_repository / "_build" / "html"
    page = (site / "d2l.html").read_text(encoding="utf-8")
    assert "<title>Le paquet d2l — " in page and "data-pagefind-body" in page
    for tab, library in config.library.tabs.items():
        source = (built_repository / library.lib_file).read_text(encoding="utf-8")
        assert _shown_names(page, tab) == _library_names(source), tab
    assert _broken_links(site, "d2l.html") == []
    assert '<a href="d2l.html">Le paquet d2l</a>' in (site / "index.html").read_text()
    # In each tab's search index (Pagefind's fragments, gzipped JSON); the decks are not.
    for tab in config.library.tabs:
        urls = [json.loads(text[text.index("{"):])["url"] for text in (
            gzip.decompress(p.read_bytes()).decode()
            for p in (site / "pagefind" / tab).rglob("*.pf_fragment"))]
        assert "/d2l.html" in urls and not [url for url in urls if "/slides/" in url], tab
    alone = (built_repository / "public" / "d2l.html").read_text(encoding="utf-8")
    assert _shown_names(alone, "pytorch") and not _shown_names(alone, "mxnet")
    assert 'role="tablist"' not in alone
    assert _broken_links(built_repository / "public", "d2l.html") == []


@pytest.mark.parametrize("body, module, title", [
    (".. automodule:: d2l.torch\n   :members:\n   :imported-members:", "d2l.torch", ""),
    ("\n.. automodule:: d2l.mxnet\n", "d2l.mxnet", ""),
    (".. automodule:: d2l.torch\n   :members:\n\nMore text.", "", ""),
    (".. only:: html\n\n   References\n   ==========", "", "References"),
    (".. only:: html\n\n   ==========\n   References\n   ==========", "", "References"),
    (".. only:: html\n\n   Some text, no title.", "", ""),
    (".. only:: latex\n\n   References\n   ==========", "", ""),
    (".. note:: Sphinx only.", "", ""),
])
def test_the_eval_rst_blocks_the_build_understands(body, module, title):
    assert (automodule(body), html_title(body)) == (module, title)


def test_an_automodule_of_no_library_warns_at_its_line(tmp_path):
    book = write_d2lbook_book(tmp_path / "mini")
    page = book / "chapter_appendix" / "d2l.md"
    page.write_text(page.read_text(encoding="utf-8").replace("d2l.torch", "d2l.jax"),
                    encoding="utf-8")
    config = load_config(book)
    parsed, _ = parse_book(config)
    found = [str(p) for p in check_book(parsed, config) if "automodule" in p.message]
    assert found == ["chapter_appendix/d2l.md:20: warning: automodule d2l.jax: no "
                     "[library-<tab>] of config.ini writes that module, the block shows "
                     "nothing — name one of d2l.mxnet, d2l.torch"]
