"""The search page on a small book rendered here (no kernel): API names found by their
dotted parts, every result announced reachable, fragments loaded as results are shown."""
from __future__ import annotations

import json
import re
import subprocess

import pytest

from conftest import DECLARE, served, write_book
from tabbook.bootstrap.records import tree_hashes
from tabbook.output.search_index import pagefind_runs, searched_copy
from tabbook.output.search_terms import dotted_parts, index_attributes
from test_html import DESKTOP, render_unexecuted

SECTIONS = 15
"""Sections whose TensorFlow code uses tf.GradientTape: more than a page of results."""


def section(number: int) -> str:
    return DECLARE + f"""
# Section {number}

Le pas d'entraînement de la section {number}.

```{{.python .input}}
%%tab pytorch
with torch.no_grad():
    y = torch.matmul(x, w)
```

```{{.python .input}}
%%tab mxnet
y = np.dot(x, w)
```

```{{.python .input}}
%%tab tensorflow
with tf.GradientTape() as tape:
    y = tf.matmul(x, w)
```
"""


GRADIENTS = DECLARE + """
# Les gradients

Les gradients d'une couche, et `torch.autocast` pour la précision mixte.

```{.python .input}
x = 1
```
"""


@pytest.fixture(scope="module")
def search_folder(tmp_path_factory):
    names = [f"s{number:02}" for number in range(1, SECTIONS + 1)]
    files = {f"chap/{name}.md": section(number) for number, name in enumerate(names, 1)}
    files["chap/gradients.md"] = GRADIENTS
    files["chap/index.md"] = "# Chapitre\n\n```toc\n" + "\n".join([*names, "gradients"]) + "\n```\n"
    return render_unexecuted(write_book(tmp_path_factory.mktemp("search"), files))


@pytest.fixture(scope="module")
def search_site(search_folder):
    with served(search_folder.parent) as address:
        yield f"{address}/{search_folder.name}"


def test_each_index_is_written_into_the_site_and_holds_one_framework(tmp_path):
    runs = pagefind_runs(("pytorch", "mxnet"), tmp_path)
    assert [run[:2] for run in runs] == [["--output-path", str(tmp_path / "pagefind" / tab)]
                                         for tab in ("pytorch", "mxnet")]
    assert [run[-1] for run in runs] == ['[data-tab]:not([data-tab="pytorch"])',
                                         '[data-tab]:not([data-tab="mxnet"])']
    assert pagefind_runs(("pytorch",), tmp_path) == [["--output-path",
                                                      str(tmp_path / "pagefind")]]


def test_the_searched_copy_drops_the_highlighting_only():
    page = ('<p><span class="x">prose</span></p><pre class="a"><span class="k">def</span> '
            '<span class="nf">f</span>():</pre><pre><span data-pagefind-ignore>x</span></pre>')
    assert searched_copy(page) == ('<p><span class="x">prose</span></p><pre class="a">def f():'
                                   '</pre><pre><span data-pagefind-ignore>x</span></pre>')


def test_pagefind_finds_in_the_copies_what_it_finds_in_the_pages(search_folder, tmp_path):
    """The index that the site has, made from the searched copies, is the one that
    Pagefind makes from the site's pages themselves, to the byte."""
    from pagefind_bin import get_executable

    pages = sorted(page.relative_to(search_folder).as_posix()
                   for page in search_folder.rglob("*.html") if page.name != "search.html")
    assert any('<span class="k">' in (search_folder / page).read_text(encoding="utf-8")
               for page in pages)   # highlighted code, which the copies drop
    for options in pagefind_runs(("pytorch", "mxnet", "tensorflow"), tmp_path):
        subprocess.run([str(get_executable()), "--site", str(search_folder), "--silent",
                        "--glob", "{" + ",".join(pages) + "}", *options], check=True)
    assert tree_hashes(tmp_path / "pagefind") == tree_hashes(search_folder / "pagefind")


def test_each_index_holds_the_book_pages_and_not_the_search_page(search_folder):
    pages = {page.relative_to(search_folder).as_posix() for page in search_folder.rglob("*.html")}
    assert "search.html" in pages and not any(page.startswith("slides/") for page in pages)
    book_pages = len(pages) - 1
    # The sections, the gradients page, the chapter's index, the book's, the d2l reference
    assert book_pages == SECTIONS + 4
    for tab in ("pytorch", "mxnet", "tensorflow"):
        folder = search_folder / "pagefind" / tab
        entry = json.loads((folder / "pagefind-entry.json").read_text(encoding="utf-8"))
        assert entry["languages"]["fr"]["page_count"] == book_pages
        assert len(list((folder / "fragment").iterdir())) == book_pages


def test_the_dotted_parts_that_pagefind_would_cut_are_given_whole():
    code = "with tf.GradientTape() as tape: torch.no_grad(); torch.matmul(a, b); x.float16; 3.14"
    assert dotted_parts(code) == ["GradientTape", "no_grad", "float16"]
    assert dotted_parts("tf.GradientTape(); y = tf.GradientTape") == ["GradientTape"]
    assert index_attributes("torch.matmul(a, b)") == ""   # Pagefind keeps `matmul` whole
    assert 'data-search-terms="\u2060GradientTape"' in index_attributes("tf.GradientTape()")


def results(page, url: str) -> tuple[str, list[str]]:
    """Open the search `url`; its status once a count is shown, and the results' titles."""
    page.goto(url)
    status = page.locator("#search-status")
    status.filter(has_text=re.compile(r"\d")).wait_for(timeout=15000)
    page.wait_for_function("!document.getElementById('search-more').disabled")
    return status.inner_text(), page.locator("#search-results > li > a").all_inner_texts()


@pytest.mark.browser
def test_an_api_name_is_found_by_its_dotted_parts(search_site, visitor):
    browse = visitor(viewport=DESKTOP)
    status, found = results(browse.page, f"{search_site}/search.html?tab=pytorch&q=no_grad")
    assert len(found) == 10 and "«\u202fno_grad\u202f»" in status
    status, found = results(browse.page, f"{search_site}/search.html?tab=pytorch&q=autocast")
    assert found == ["1.16 Les gradients"], found   # inline code in the prose
    status, found = results(browse.page, f"{search_site}/search.html?tab=pytorch&q=GradientTape")
    assert found == [] and status.startswith("0 page")   # TensorFlow's code only
    status, found = results(browse.page, f"{search_site}/search.html?tab=tensorflow&q=gradients")
    assert found == ["1.16 Les gradients"]   # not the pages of tf.GradientTape
    # What the index has beside the text never shows in an excerpt.
    _, found = results(browse.page, f"{search_site}/search.html?tab=tensorflow&q=GradientTape")
    excerpts = browse.page.locator("#search-results > li > p").all_inner_texts()
    assert len(found) == 10 and not [e for e in excerpts if "\u2060" in e or
                                     re.search(r"(?<!tf\.)GradientTape", e)], excerpts
    assert not browse.errors and not browse.outside


@pytest.mark.browser
def test_every_result_announced_is_reachable_and_fragments_load_as_shown(search_site, visitor):
    browse = visitor(viewport=DESKTOP)
    fragments: list[str] = []
    browse.page.on("request", lambda r: r.url.endswith(".pf_fragment") and fragments.append(r.url))
    status, found = results(browse.page,
                            f"{search_site}/search.html?tab=tensorflow&q=GradientTape")
    more = browse.page.locator("#search-more")
    assert status == "Les 10 premières pages pour «\u202fGradientTape\u202f», et d'autres"
    assert len(found) == 10 and more.is_visible()
    assert len(fragments) == 11   # the ten shown, and the one that says there are more
    more.click()
    browse.page.locator("#search-status").filter(has_text="15").wait_for(timeout=15000)
    titles = browse.page.locator("#search-results > li > a")
    assert titles.count() == SECTIONS and len(set(titles.all_inner_texts())) == SECTIONS
    assert browse.page.locator("#search-status").inner_text().startswith(f"{SECTIONS} page(s)")
    assert not more.is_visible()
    assert browse.page.evaluate("document.activeElement.textContent") == titles.nth(10).inner_text()
    assert len(fragments) == SECTIONS
    assert not browse.errors and not browse.outside
