"""d2lbook's settings that change what readers see, honoured: ``[build] eval_notebook =
False`` (render without executing), ``[html] header_links``, ``favicon``, ``html_logo``,
``include_css``, ``[project] copyright`` and ``[build] resources``; and d2lbook's defaults,
for the smallest book (no [project], no [library]).

Small books written here, built with `build.py -C BOOK` as a user builds them; the
corpus (a real d2lbook book) is built the same way in test_compat.py.
"""
from __future__ import annotations

import re

import nbformat
import pytest

from conftest import CONFIG, DECLARE, REPO, build, md, problems_of, write_book
from tabbook.core.config import ConfigError, load_config

NOT_EXECUTED_LINE = "eval: eval_notebook = False in config.ini: notebooks are not executed"
NOT_EXECUTED = CONFIG.replace("warning_is_error = True\n",
                              "warning_is_error = True\neval_notebook = False\n")
SECTION = md(DECLARE, """
    # Une section

    Du texte.

    ```{.python .input}
    %%tab all
    print("sortie", 6 * 7)
    ```
    """)


def not_executed_book(tmp_path, config: str = NOT_EXECUTED):
    root = write_book(tmp_path, {"chap/sec.md": SECTION}, config)
    (root / "d2l").mkdir()
    (root / "d2l" / "__init__.py").write_text('__version__ = "0"\n')   # for `lib`
    return root


def assert_nothing_executed(root) -> None:
    """No executed notebook, no kernel spec, no interpreter probed."""
    built = root / "_build"
    assert not (built / "eval").exists()
    assert not (built / "kernels").exists()
    assert not list((built / "cache").glob("runtime-*.json"))


def test_a_book_that_is_not_executed_is_rendered_from_its_split_notebooks(tmp_path):
    root = not_executed_book(tmp_path)
    result = build(REPO, "-C", str(root), "html")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count(NOT_EXECUTED_LINE + "\n") == 1
    assert "notebooks: 9 in _build/notebooks" in result.stdout
    assert_nothing_executed(root)
    site = root / "_build" / "html"
    page = (site / "chap" / "sec.html").read_text(encoding="utf-8")
    assert "sortie" in page and "42" not in page   # the code, no output
    # No sentence pretending the code ran; the page says it did not.
    assert "exécuté le" not in page
    assert "Le code de cette page n&#39;a pas été exécuté pour construire le livre." in page
    assert "Cette page ne contient pas de code exécuté." in \
        (site / "index.html").read_text(encoding="utf-8")
    # The launch notebooks: the code without outputs, no word about outputs shown.
    for tab in ("pytorch", "mxnet", "tensorflow"):
        launch = nbformat.read(root / "_build" / "launch" / tab / "chap" / "sec.ipynb",
                               as_version=4)
        code = [cell for cell in launch.cells if cell.cell_type == "code"]
        assert code[-1].source == 'print("sortie", 6 * 7)'
        assert not any(cell.get("outputs") for cell in code)
        assert "Les sorties déjà affichées" not in launch.cells[0].source
    again = build(REPO, "-C", str(root), "html", "--recheck")
    assert "unchanged: nothing it is made from changed" in again.stdout


def test_eval_of_a_book_that_is_not_executed_says_so_and_does_nothing(tmp_path):
    root = not_executed_book(tmp_path)
    result = build(REPO, "-C", str(root), "eval")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip().split("\n")[-1] == (
        f"{NOT_EXECUTED_LINE} (the book asks for it) — set eval_notebook = True to execute "
        "them, or run `build.py eval --force` to execute them once anyway")
    assert_nothing_executed(root)
    assert not (root / "_build" / "notebooks").exists()


@pytest.mark.kernels
def test_eval_force_executes_it_and_the_site_still_shows_it_unexecuted(tmp_path,
                                                                       framework_pythons):
    root = not_executed_book(tmp_path)
    assert build(REPO, "-C", str(root), "lib").returncode == 0
    python = ("--tab", "pytorch", "--python", f"pytorch={framework_pythons['pytorch']}")
    result = build(REPO, "-C", str(root), "eval", "--force", *python)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "eval_notebook = False in config.ini, but --force: the notebooks are executed " \
           "anyway" in result.stdout
    executed = nbformat.read(root / "_build/eval/pytorch/chap/sec.ipynb", as_version=4)
    assert [output.text for cell in executed.cells if cell.cell_type == "code"
            for output in cell.outputs] == ["sortie 42\n"]
    result = build(REPO, "-C", str(root), "html", *python)
    assert result.returncode == 0, result.stdout + result.stderr
    page = (root / "_build" / "html-pytorch" / "chap" / "sec.html").read_text(encoding="utf-8")
    assert "42" not in page and "exécuté le" not in page


@pytest.mark.browser   # the whole build prints the PDFs with Chromium
def test_the_whole_build_of_a_book_that_is_not_executed_splits_once(tmp_path):
    root = not_executed_book(tmp_path)
    assert build(REPO, "-C", str(root), "lib").returncode == 0
    result = build(REPO, "-C", str(root))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count(NOT_EXECUTED_LINE + "\n") == 1
    assert result.stdout.count("notebooks: ") == 1
    assert_nothing_executed(root)
    assert (root / "_build" / "html" / "chap" / "sec.html").is_file()
    assert (root / "_build" / "launch" / "pytorch" / "chap" / "sec.ipynb").is_file()


@pytest.mark.browser
def test_the_pdf_of_a_book_that_is_not_executed(tmp_path):
    from pypdf import PdfReader

    root = not_executed_book(tmp_path)
    result = build(REPO, "-C", str(root), "pdf", "--tab", "pytorch")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count(NOT_EXECUTED_LINE + "\n") == 1
    assert_nothing_executed(root)
    text = "\n".join(page.extract_text()
                     for page in PdfReader(root / "_build/pdf/test-book-pytorch.pdf").pages)
    assert 'print("sortie", 6 * 7)' in text
    assert "42" not in text and "exécuté" not in text


# -- [html] and [build] resources --------------------------------------------------------
SETTINGS = NOT_EXECUTED.replace(
    "lang = fr\n", "lang = fr\ncopyright = 2026, Les auteurs du livre\n").replace(
    "source_dir = chapters\n", "source_dir = chapters\nresources = data/ *.csv\n") + """
[html]
# One link per line (d2lbook 1.0), a trailing comma allowed.
header_links = Cours, https://example.org/cours, fas fa-user-graduate,
               GitHub, https://github.com/owner/book, fab fa-github
favicon = static/favicon.png
html_logo = static/logo.svg
include_css = css/*.css
"""
LOGO = '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><circle r="20"/></svg>'
FAVICON = b"\x89PNG\r\n\x1a\n not really a PNG, copied as it is"


def settings_book(tmp_path, config: str = SETTINGS):
    root = write_book(tmp_path, {
        "chap/sec.md": SECTION, "css/extra.css": ".book-title { color: rebeccapurple; }\n",
        "data/a.txt": "a\n", "data/sub/b.txt": "b\n", "table.csv": "x,y\n1,2\n"}, config)
    (root / "static").mkdir()
    (root / "static" / "logo.svg").write_text(LOGO)
    (root / "static" / "favicon.png").write_bytes(FAVICON)
    return root


def test_the_site_has_the_books_logo_favicon_links_style_copyright_and_resources(tmp_path):
    root = settings_book(tmp_path)
    result = build(REPO, "-C", str(root), "html")
    assert result.returncode == 0, result.stdout + result.stderr
    site = root / "_build" / "html"
    assert (site / "_static" / "favicon.png").read_bytes() == FAVICON
    assert (site / "_static" / "logo.svg").read_text() == LOGO
    for page, up in (("index.html", ""), ("chap/sec.html", "../"), ("search.html", "")):
        text = (site / page).read_text(encoding="utf-8")
        assert f'<link rel="icon" href="{up}_static/favicon.png">' in text
        assert f'<img class="logo" src="{up}_static/logo.svg" alt="">' in text
        links = re.search(r'<nav class="header-links"[^>]*>(.*?)</nav>', text).group(1)
        assert links == ('<a href="https://example.org/cours">Cours</a>'
                         '<a href="https://github.com/owner/book">GitHub</a>')
        assert '<p class="copyright">© 2026, Les auteurs du livre</p>' in text
    # The book's style sheet comes after the site's own rules: it wins.
    css = (site / "_static" / "book.css").read_text()
    assert css.rstrip().endswith(".book-title{color:rebeccapurple}")
    # [build] resources: folders and globs, relative to the sources' folder.
    assert (site / "data" / "a.txt").read_text() == "a\n"
    assert (site / "data" / "sub" / "b.txt").read_text() == "b\n"
    assert (site / "table.csv").read_text() == "x,y\n1,2\n"
    # A change to one of these files makes the site again.
    (root / "chapters" / "css" / "extra.css").write_text(".book-title { color: teal; }\n")
    again = build(REPO, "-C", str(root), "html")
    assert "search index built" in again.stdout
    assert (site / "_static" / "book.css").read_text().rstrip().endswith(
        ".book-title{color:teal}")


def test_a_book_without_these_settings_keeps_the_plain_header(tmp_path):
    root = not_executed_book(tmp_path)
    assert build(REPO, "-C", str(root), "html").returncode == 0
    text = (root / "_build" / "html" / "index.html").read_text(encoding="utf-8")
    assert '<link rel="icon" href="data:,">' in text
    assert 'class="logo"' not in text and "header-links" not in text
    assert "copyright" not in text


def line_of(text: str, fragment: str) -> int:
    return text[:text.index(fragment)].count("\n") + 1


MISSING_FILES = [
    (("favicon = static/favicon.png", "favicon = static/nope.png"),
     "[html] favicon = 'static/nope.png': no such file — give a path relative to the book's "
     "folder (where config.ini is)"),
    (("html_logo = static/logo.svg", "html_logo = logo.svg"),
     "[html] html_logo = 'logo.svg': no such file — give a path relative to the book's "
     "folder (where config.ini is)"),
    (("include_css = css/*.css", "include_css = css/*.css style.css"),
     "[html] include_css: 'style.css' matches no file — give CSS files relative to the "
     "sources' folder ([build] source_dir)")]
WRONG_LINKS = [
    (("fab fa-github", "fab fa-github, Docs"),
     "[html] header_links has 7 items, not a multiple of 3 — write each link as name, URL, "
     "icon (e.g. GitHub, https://github.com/owner/repo, fab fa-github)"),
    (("https://github.com/owner/book, fab fa-github", "fab fa-github, https://github.com/o/b"),
     "[html] header_links: 'fab fa-github' (the URL of 'GitHub') is not a URL — write each "
     "link as name, URL, icon")]


def located(config: str, change: tuple[str, str], message: str) -> str:
    key = change[1].split(" =")[0] if " = " in change[1] else "header_links"
    return f"config.ini:{line_of(config, key + ' =')}: {message}"


@pytest.mark.parametrize("change, message", WRONG_LINKS)
def test_a_wrong_header_link_is_an_error_at_its_line(tmp_path, change, message):
    config = SETTINGS.replace(*change)
    root = settings_book(tmp_path, config)
    with pytest.raises(ConfigError) as error:
        load_config(root)
    assert str(error.value) == located(config, change, message)
    result = build(REPO, "-C", str(root), "check")
    assert result.returncode == 1 and message in result.stderr


@pytest.mark.parametrize("change, message", MISSING_FILES)
def test_a_missing_html_file_stops_the_site_only_at_its_line(tmp_path, change, message):
    """d2lbook looks for these files when it builds the site: `check`, `lib` and
    `notebooks` run without them; `html` stops before any work, at the setting's line."""
    config = SETTINGS.replace(*change)
    root = settings_book(tmp_path, config)
    (root / "d2l").mkdir()
    (root / "d2l" / "__init__.py").write_text('__version__ = "0"\n')   # for `lib`
    for command in ("check", "lib", "notebooks"):
        result = build(REPO, "-C", str(root), command)
        assert result.returncode == 0, result.stdout + result.stderr
    result = build(REPO, "-C", str(root), "html")
    assert result.returncode == 1
    assert result.stderr == f"error: {located(config, change, message)}\n"
    assert not (root / "_build" / "eval").exists() and not (root / "_build" / "html").exists()


def test_a_resource_that_matches_nothing_is_a_located_warning(tmp_path):
    config = SETTINGS.replace("resources = data/ *.csv", "resources = data/ nothing/ *.csv")
    root = settings_book(tmp_path, config.replace("warning_is_error = True",
                                                  "warning_is_error = False"))
    warning = (f"config.ini:{line_of(config, 'resources =')}: warning: [build] resources: "
               "'nothing/' matches no file — the site gets no copy of it; fix or remove the "
               "entry")
    result = build(REPO, "-C", str(root), "html")
    assert result.returncode == 0, result.stdout + result.stderr
    assert warning in result.stderr.split("\n")
    assert (root / "_build" / "html" / "data" / "a.txt").is_file()
    # Strict (warning_is_error, --strict): the warning stops the build.
    strict = build(REPO, "-C", str(root), "check", "--strict")
    assert strict.returncode == 1 and warning in strict.stderr.split("\n")


@pytest.mark.browser
def test_the_logo_and_six_header_links_fit_a_phone_and_a_desktop(tmp_path, visitor):
    """d2l-zh's header: a wide logo and six links; the header wraps, nothing scrolls
    sideways, the logo shows at the header's height, and no request leaves the machine."""
    links = ",\n    ".join(f"Lien numéro {n}, https://example.org/{n}, fas fa-link"
                           for n in range(6))
    config = re.sub(r"header_links = .*?\n(?=favicon)", f"header_links = {links}\n",
                    SETTINGS, flags=re.S)
    root = settings_book(tmp_path, config)
    (root / "static" / "logo.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" width="600" height="100">'
        '<rect width="600" height="100" fill="#c33"/></svg>')
    result = build(REPO, "-C", str(root), "html")
    assert result.returncode == 0, result.stdout + result.stderr
    page = (root / "_build" / "html" / "chap" / "sec.html").as_uri()
    for viewport in ({"width": 390, "height": 844}, {"width": 1280, "height": 900}):
        browse = visitor(viewport=viewport)
        browse.page.goto(page)
        assert browse.page.locator(".header-links a").count() == 6
        assert browse.page.evaluate("document.documentElement.scrollWidth") <= \
            viewport["width"]
        logo = browse.page.locator(".book-title .logo").bounding_box()
        assert 20 <= logo["height"] <= 40 and logo["width"] == pytest.approx(
            logo["height"] * 6, rel=0.05)
        assert browse.errors == [] and browse.outside == []


# -- the smallest d2lbook book: d2lbook's defaults for what config.ini leaves out ------------
SMALLEST = "[project]\n\n[build]\ntabs = pytorch\n"
SAVING = md("""
    # Une section

    ```{.python .input}
    def double(x):  #@save
        return 2 * x

    double(21)
    ```
    """)


def smallest_book(tmp_path, config: str = SMALLEST):
    """config.ini, index.md and sec.md side by side (d2lbook's default source_dir)."""
    (tmp_path / "config.ini").write_text(config, encoding="utf-8")
    (tmp_path / "index.md").write_text("# Le livre\n\n```toc\nsec\n```\n", encoding="utf-8")
    (tmp_path / "sec.md").write_text(SAVING, encoding="utf-8")
    return tmp_path


def test_save_marks_of_a_tab_without_library_are_a_located_warning_once(tmp_path):
    root = smallest_book(tmp_path, "[build]\ntabs = mxnet, pytorch\n")
    text = SAVING + "\n" + md("""
        ```{.python .input}
        %%tab pytorch
        def triple(x):  #@save
            return 3 * x
        ```
        """)
    (root / "sec.md").write_text(text, encoding="utf-8")
    # The untagged cell is mxnet's (the default tab); the second one pytorch's.
    marks = ((line_of(text, "def double"), "mxnet"), (line_of(text, "def triple"), "pytorch"))
    assert problems_of(root) == [
        f"sec.md:{line}: [{tab}] warning: #@save: the book has no {tab} library (no "
        f"[library-{tab}] section in config.ini): as in d2lbook, the {tab} code marked #@save "
        f"is saved nowhere — add [library-{tab}] with lib_file = the file to generate, or "
        "remove the marks" for line, tab in marks]


def test_the_eval_report_is_not_read_as_a_source(tmp_path):
    root = smallest_book(tmp_path)
    report = root / "_build" / "eval" / "report.md"
    report.parent.mkdir(parents=True)
    report.write_text("# Eval report\n", encoding="utf-8")
    assert not [p for p in problems_of(root) if "_build" in p]


def test_a_d2lbook_book_with_its_name_and_tabs_only_has_d2lbooks_defaults(tmp_path):
    """d2l-zh's [html] names files of a static/ folder that a copy of its sources lacks:
    d2lbook's `lib` and the like run without them, and so do `check`, `lib` and
    `notebooks`; the site stops at the setting's line."""
    config = ("[project]\nname = mini\n\n[build]\ntabs = pytorch\n\n[html]\n"
              "favicon = static/favicon.png\n")
    root = smallest_book(tmp_path, config)
    project = load_config(root).project   # d2lbook's config_default.ini
    assert (project.release, project.title, project.author, project.copyright,
            project.lang) == ("0.0.1", "", "", "", "")
    for command in ("check", "lib", "notebooks"):
        result = build(REPO, "-C", str(root), command)
        assert result.returncode == 0, result.stdout + result.stderr
    assert (root / "_build" / "notebooks" / "pytorch" / "sec.ipynb").is_file()
    (root / "config.ini").write_text(config + "\n[launch]\ngithub_repo = owner/mini\n")
    result = build(REPO, "-C", str(root), "html")
    assert result.returncode == 1 and result.stderr.endswith(
        "\nerror: config.ini:8: [html] favicon = 'static/favicon.png': no such file — give a "
        "path relative to the book's folder (where config.ini is)\n")


@pytest.mark.kernels
@pytest.mark.parametrize("config, default_tab", [
    (SMALLEST, "pytorch"),
    ("[project]\nname = mini\ntitle = Mini\nrelease = 0.1\n\n[build]\ntabs = mxnet, pytorch\n",
     "mxnet")])
def test_the_smallest_d2lbook_book_builds(tmp_path, config, default_tab):
    root = smallest_book(tmp_path, config)
    for command in ("notebooks", "lib", "eval"):
        result = build(REPO, "-C", str(root), command)
        assert result.returncode == 0, result.stdout + result.stderr
    assert not (root / "d2l").exists()   # no [library]: nothing saved, as in d2lbook
    executed = nbformat.read(root / "_build" / "eval" / default_tab / "sec.ipynb", as_version=4)
    assert [output.data["text/plain"] for cell in executed.cells if cell.cell_type == "code"
            for output in cell.outputs] == ["42"]
    # The site offers launch notebooks: it needs [launch], and says so before any work.
    result = build(REPO, "-C", str(root), "html")
    assert result.returncode == 1 and "need a [launch] section" in result.stderr
    assert not (root / "_build" / "launch").exists()
    (root / "config.ini").write_text(config + "\n[launch]\ngithub_repo = owner/mini\n")
    result = build(REPO, "-C", str(root), "html")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "eval: 0 ran, 1 cached" in result.stdout and "_build" not in result.stderr
    page = (root / "_build" / "html" / "sec.html").read_text(encoding="utf-8")
    assert "42" in page
