"""Unit tests of core/html_settings.py: d2lbook's [html] settings and [build] resources,
read from config.ini (`load_config`, the one reader of the config) with their paths."""
from __future__ import annotations

from pathlib import Path

import pytest

from tabbook.core.config import load_config
from tabbook.core.config_options import ConfigError
from tabbook.core.html_settings import HeaderLink, HtmlSettings, matching_files

from conftest import CONFIG, write_book

HTML = """
[html]
header_links = GitHub, https://github.com/x/y, fab fa-github,
   Docs, https://d.example, fas fa-book
favicon = img/fav.png
include_css = css/*.css
"""


def book_with(root: Path, html: str, resources: str = "") -> Path:
    config = CONFIG.replace("warning_is_error = True",
                            f"warning_is_error = True\nresources = {resources}" if resources
                            else "warning_is_error = True") + html
    write_book(root, {"img/a.png": "a", "static/js/x.js": "x", "css/b.css": "b"}, config)
    (root / "img").mkdir()
    (root / "img" / "fav.png").write_text("f")
    return root


def config_error(root: Path) -> str:
    with pytest.raises(ConfigError) as raised:
        load_config(root)
    return str(raised.value)


def test_settings_with_their_paths(tmp_path):
    (tmp_path / "outside.txt").write_text("o")
    html = load_config(book_with(tmp_path, HTML, "img static ghost/* ../outside.txt")).html
    sources = tmp_path / "chapters"
    assert html.header_links == (HeaderLink("GitHub", "https://github.com/x/y", "fab fa-github"),
                                 HeaderLink("Docs", "https://d.example", "fas fa-book"))
    # The favicon relative to the book's folder, style sheets and resources to the sources'.
    assert html.favicon == tmp_path / "img" / "fav.png" and html.logo is None
    assert html.style_sheets == (sources / "css" / "b.css",)
    assert html.resources == {"img/a.png": sources / "img" / "a.png",
                              "static/js/x.js": sources / "static" / "js" / "x.js"}
    assert html.files == [tmp_path / "img" / "fav.png", sources / "css" / "b.css",
                          sources / "img" / "a.png", sources / "static" / "js" / "x.js"]
    assert HtmlSettings.static_name(html.favicon) == "_static/fav.png"
    assert html.missing_files() == []


def test_a_resource_matching_nothing_or_outside_the_sources_is_a_warning_at_its_line(tmp_path):
    (tmp_path / "outside.txt").write_text("o")
    html = load_config(book_with(tmp_path, "", "ghost/* ../outside.txt")).html
    assert html.resources == {}
    assert [str(w) for w in html.warnings] == [
        "config.ini:11: warning: [build] resources: 'ghost/*' matches no file — the site gets "
        "no copy of it; fix or remove the entry",
        "config.ini:11: warning: [build] resources: '../outside.txt' names files outside the "
        "sources' folder — the site gets no copy of it; fix or remove the entry"]


def test_a_missing_logo_or_style_sheet_is_found_by_the_site_at_its_line(tmp_path):
    html = HTML + "html_logo = img/missing.png\ninclude_css = css/*.css nothing/*.css\n"
    html = html.replace("include_css = css/*.css\n", "", 1)
    settings = load_config(book_with(tmp_path, html)).html   # not an error of config.ini
    assert settings.missing_files() == [
        "config.ini:31: [html] html_logo = 'img/missing.png': no such file — give a path "
        "relative to the book's folder (where config.ini is)",
        "config.ini:32: [html] include_css: 'nothing/*.css' matches no file — give CSS files "
        "relative to the sources' folder ([build] source_dir)"]
    assert settings.style_sheets == (tmp_path / "chapters" / "css" / "b.css",)


def test_header_links_must_be_triples_of_name_url_icon(tmp_path):
    assert config_error(book_with(tmp_path, "\n[html]\nheader_links = GitHub, https://x\n")) == (
        "config.ini:28: [html] header_links has 2 items, not a multiple of 3 — write each link "
        "as name, URL, icon (e.g. GitHub, https://github.com/owner/repo, fab fa-github)")
    write_book(tmp_path, {}, CONFIG + "\n[html]\nheader_links = GitHub, https://x y, fab\n")
    assert config_error(tmp_path) == (
        "config.ini:28: [html] header_links: 'https://x y' (the URL of 'GitHub') is not a URL "
        "— write each link as name, URL, icon")


def test_matching_files_reads_a_folder_as_every_file_under_it(tmp_path):
    for name in ("a/x.css", "a/b/y.css", "c.txt"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    assert matching_files(tmp_path, "a") == [tmp_path / "a" / "b" / "y.css", tmp_path / "a" / "x.css"]
    assert matching_files(tmp_path, "*.txt") == [tmp_path / "c.txt"]
    assert matching_files(tmp_path, "none/*") == []
