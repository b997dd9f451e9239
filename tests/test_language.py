"""The reader's language (``[project] lang``): the site, the provenance sentence, the PDF's
title page and the launch notebooks speak it (French, English, Chinese); English where
config.ini names none (d2lbook's default) or one without a catalogue (with a warning).
"""
from __future__ import annotations

import datetime
import json
import re
import string
from html import unescape
from pathlib import Path

import nbformat
import pytest

from conftest import CONFIG, DECLARE, REPO, md, with_build_system, write_book, write_executed
from tabbook.cli.main import main
from tabbook.core.config import load_config
from tabbook.core.language import CATALOGUES, language_of
from tabbook.core.layout import Layout
from tabbook.notebooks.split import split_section
from tabbook.output.launch import write_launch_notebooks
from tabbook.output.print_layout import print_layout
from tabbook.output.render import render_site
from tabbook.output.typography import french
from tabbook.source.numbering import number_book
from tabbook.source.parse import parse_book

N = "\u202f"   # French typography's narrow no-break space
FRAMEWORK_PYTHONS = [arg for tab in ("pytorch", "mxnet", "tensorflow")
                     for arg in ("--python", f"{tab}={REPO / '.envs' / tab / 'bin' / 'python'}")]


def config_in(lang: str | None, strict: bool = True) -> str:
    """The test book's config.ini with ``lang = <lang>`` (no lang line for None)."""
    text = CONFIG.replace("lang = fr\n", "" if lang is None else f"lang = {lang}\n")
    return text if strict else text.replace("warning_is_error = True", "warning_is_error = False")


def text_of(html: str) -> str:
    """A page's text: tags out, entities read, spaces as written (narrow ones kept)."""
    return unescape(re.sub(r"<[^>]+>", "", html))


# -- the catalogues ----------------------------------------------------------------
def test_every_catalogue_has_the_same_words_with_the_same_values():
    def fields(text: str) -> set[str]:
        return {name for _, name, _, _ in string.Formatter().parse(text) if name}

    french = CATALOGUES["fr"]
    for code, catalogue in CATALOGUES.items():
        assert catalogue.keys() == french.keys(), code
        assert {k: fields(v) for k, v in catalogue.items()} == \
            {k: fields(v) for k, v in french.items()}, code


@pytest.mark.parametrize("code, date, moment, decimal, listed", [
    ("fr", "1er novembre 2026", "01/11/2026 à 09:05 UTC", "4,3", "a, b et c"),
    ("en", "November 1, 2026", "November 1, 2026 at 09:05 UTC", "4.3", "a, b and c"),
    ("zh", "2026年11月1日", "2026年11月1日 09:05 UTC", "4.3", "a、b和c"),
])
def test_dates_numbers_and_lists_per_language(code, date, moment, decimal, listed):
    language, wrong = language_of(code)
    assert wrong is None and language.code == code
    assert language.date(datetime.date(2026, 11, 1)) == date
    assert language.moment(datetime.datetime(2026, 11, 1, 9, 5)) == moment
    assert language.decimal(4.31) == decimal
    assert language.join(["a", "b", "c"]) == listed and language.join(["a"]) == "a"


def test_other_french_dates():
    french, _ = language_of("fr")
    assert french.date(datetime.date(2026, 12, 1)) == "1er décembre 2026"
    assert french.date(datetime.date(2027, 8, 15)) == "15 août 2027"


@pytest.mark.parametrize("written, code, tag, warned", [
    ("fr", "fr", "fr", False),
    ("", "en", "en", False),            # d2lbook's default config has "lang =": English
    ("zh_CN", "zh", "zh-CN", False),    # a region, as d2lbook's books may write it
    ("FR-ca", "fr", "fr-ca", False),
    ("ja", "en", "ja", True),           # no catalogue: English words, Japanese content
    ("français", "en", "en", True),     # not a language code at all
])
def test_the_language_as_config_ini_writes_it(written, code, tag, warned):
    language, wrong = language_of(written)
    assert (language.code, language.tag, wrong is not None) == (code, tag, warned)


# -- config.ini ----------------------------------------------------------------------
def test_a_book_without_lang_reads_in_english(tmp_path):
    config = load_config(write_book(tmp_path, {}, config_in(None)))
    assert config.project.language.code == "en" and config.project.language.tag == "en"
    assert config.warnings == ()


def test_a_language_without_catalogue_is_a_located_warning(tmp_path, capsys):
    root = write_book(with_build_system(tmp_path), {"chap/sec.md": "# Section\n\nTexte.\n"},
                      config_in("ja"))
    warning = ("config.ini:5: warning: [project] lang = 'ja' has no catalogue of interface "
               "strings here: the site, PDF and launch notebooks read in English — write one of "
               "en, fr, zh (or leave it: English is d2lbook's default)")
    assert main(["check"], root) == 1   # the book is strict (warning_is_error)
    assert warning in capsys.readouterr().err
    (root / "config.ini").write_text(config_in("ja", strict=False), encoding="utf-8")
    assert main(["html", *FRAMEWORK_PYTHONS], root) == 0
    assert warning in capsys.readouterr().err
    page = (root / "_build" / "html" / "chap" / "sec.html").read_text(encoding="utf-8")
    assert '<html lang="ja"' in page and "Skip to content" in page


# -- the site, built by build.py html (a book without code: no kernel starts) ---------
BIBTEX = r"""
@string{umontreal = "Universit{\'e} de Montr{\'e}al"}
@techreport{Bengio.2003,
  author = {Yoshua Bengio and Fran{\c{c}}ois Fleuret and {\c C}a{\u g}lar G{\"u}l{\c{c}}ehre},
  title = {Apprendre {\`a} Montr\'eal},
  institution = umontreal # ", Qu{\'{e}}bec",
  year = 2003}
@book{Dvorak.1990, author = {Dvo{\v{r}}{\'a}k, Anton{\'\i}n and {\L}ukasiewicz, Jan},
  title = {Stra\ss{}e}, year = {1990}}
"""
PROSE = md("""
    # Une section
    :label:`sec_a`

    Pourquoi ? Voir :numref:`sec_a`, :numref:`fig_x`, :numref:`tab_x` et :eqref:`eq_x`,
    selon :cite:`Bengio.2003,Dvorak.1990`.

    ![Une légende](x.svg)
    :label:`fig_x`

    | a | b |
    |---|---|
    | 1 | 2 |
    :label:`tab_x`

    $$x = 1$$
    :eqlabel:`eq_x`

    ## Partie

    Texte.

    :bibliography:`refs.bib`
""")
SITE_WORDS = {
    "fr": {"lang": "fr", "skip": "Aller au contenu", "outline": "Sur cette page",
           "previous": "Précédent", "search": "Recherche", "framework": "Bibliothèque",
           "theme": f"Thème{N}: automatique (changer)", "question": f"Pourquoi{N}?",
           "references": ["section 1.1", "figure 1.1", "tableau 1.1", "(1.1)"],
           "caption": "Figure 1.1", "citations": f"(Bengio et al., 2003{N}; Dvořák et Łukasiewicz, "
           "1990)", "entry": "Antonín Dvořák et Jan Łukasiewicz (1990). Straße.",
           "copy": "Copier", "offline": f"La recherche fonctionne sans réseau{N}:"},
    "en": {"lang": "en", "skip": "Skip to content", "outline": "On this page",
           "previous": "Previous", "search": "Search", "framework": "Framework",
           "theme": "Theme: automatic (change)", "question": "Pourquoi ?",
           "references": ["Section 1.1", "Fig. 1.1", "Table 1.1", "(1.1)"],
           "caption": "Fig. 1.1", "citations": "(Bengio et al., 2003; Dvořák and Łukasiewicz, "
           "1990)", "entry": "Antonín Dvořák and Jan Łukasiewicz (1990). Straße.",
           "copy": "Copy", "offline": "Search works offline:"},
    "zh": {"lang": "zh", "skip": "跳到正文", "outline": "本页内容", "previous": "上一页",
           "search": "搜索", "framework": "框架", "theme": "主题：自动（切换）",
           "question": "Pourquoi ?", "references": ["1.1节", "图1.1", "表1.1", "(1.1)"],
           "caption": "图1.1", "citations": "(Bengio et al., 2003; Dvořák and Łukasiewicz, "
           "1990)", "entry": "Antonín Dvořák and Jan Łukasiewicz (1990). Straße.",
           "copy": "复制", "offline": "搜索无需联网："},
}


@pytest.mark.parametrize("lang", sorted(SITE_WORDS))
def test_the_site_speaks_the_books_language(tmp_path, lang):
    words = SITE_WORDS[lang]
    root = write_book(with_build_system(tmp_path),
                      {"chap/sec.md": PROSE, "chap/refs.bib": BIBTEX,
                       "chap/x.svg": "<svg xmlns='http://www.w3.org/2000/svg'/>"},
                      config_in(lang))
    assert main(["html", *FRAMEWORK_PYTHONS], root) == 0
    site = root / "_build" / "html"
    page = (site / "chap" / "sec.html").read_text(encoding="utf-8")
    shown = text_of(page)
    assert f'<html lang="{words["lang"]}"' in page
    for key in ("skip", "outline", "previous", "framework", "question", "caption",
                "citations", "entry"):
        assert words[key] in shown, (key, words[key])
    assert words["theme"] in unescape(page)   # the theme button's label
    script = json.loads(unescape(re.search(r"data-ui='([^']*)'", page).group(1)))
    assert script["copy"] == words["copy"]   # what book.js shows
    for reference in words["references"]:
        assert f'">{reference}</a>' in unescape(page), reference
    # The BibTeX accents and @string, decoded.
    works = text_of(re.search(r'<ol class="bibliography">.*?</ol>', page).group(0))
    assert "Yoshua Bengio, François Fleuret" in works and "Çağlar Gülçehre" in works
    assert "Apprendre à Montréal. Université de Montréal, Québec." in works
    assert not set("\\{}") & set(works)
    search = text_of((site / "search.html").read_text(encoding="utf-8"))
    assert words["search"] in search and words["offline"] in search


# -- pages with code: provenance, tabs, launch notebooks, PDF (no kernel: the executed
# notebooks are written as eval writes them) --------------------------------------------
CODE = DECLARE.replace("'mxnet', 'tensorflow'", "'mxnet'").replace(
    "%load_ext", "#gpus(2)\n%load_ext") + md("""
    # Du code
    :label:`sec_code`

    ```{.python .input}
    %%tab all
    print(2)
    ```

    ```{.python .input}
    %%tab pytorch
    x = "pytorch"
    ```

    ```{.python .input}
    %%tab mxnet
    x = "mxnet"
    ```

    Voir :numref:`sec_code`.
""")
MISSING = "<span data-missing-name></span>"   # book.js writes the reader's framework there
CODE_WORDS = {
    "fr": {"ran": f"Code PyTorch exécuté le 01/11/2026 à 10:00 UTC sur le processeur (aucun "
                  f"GPU) — PyTorch 9.9, Python 3.11.7, 4,3 s pour 2 cellules.",
           "tabs": 'aria-label="Bibliothèque"', "colab": "Ouvrir dans Colab",
           "notebook": "Télécharger le carnet MXNet (.ipynb)",
           "missing": f"Cette section n'existe pas en {MISSING}{N}; elle est montrée en "
                      "PyTorch.",
           "intro": "section « Du code », version **PyTorch** (livre 1.0.0)",
           "gpus": "Cette section tire parti de 2 GPU. Sur Colab : *Exécution",
           "python": "MXNet demande Python 3.11 au plus",
           "setup": "le paquet `d2l` du livre dans la version avec laquelle ce carnet a été "
                    "exécuté (1.0.0+d2l.",
           "restart": "Redémarrez la session", "link": "[section 1.1](",
           "edition": "Édition PyTorch", "version": "Version 1.0.0, 1er novembre 2026",
           "contents": "Table des matières"},
    "en": {"ran": "PyTorch code executed on November 1, 2026 at 10:00 UTC on the CPU (no "
                  "GPU) — PyTorch 9.9, Python 3.11.7, 4.3 s for 2 cells.",
           "tabs": 'aria-label="Framework"', "colab": "Open in Colab",
           "notebook": "Download the MXNet notebook (.ipynb)",
           "missing": f"This section does not exist in {MISSING}; it is shown in PyTorch.",
           "intro": "section “Du code”, **PyTorch** version (book 1.0.0)",
           "gpus": "This section benefits from 2 GPUs. On Colab: *Runtime",
           "python": "MXNet needs Python 3.11 or older",
           "setup": "the book's `d2l` package in the version this notebook was executed with "
                    "(1.0.0+d2l.",
           "restart": "Restart the session", "link": "[Section 1.1](",
           "edition": "PyTorch edition", "version": "Version 1.0.0, November 1, 2026",
           "contents": "Contents"},
    "zh": {"ran": "PyTorch 代码于 2026年11月1日 10:00 UTC 在处理器上（无 GPU）执行——PyTorch 9.9，"
                  "Python 3.11.7，2 个单元格共用时 4.3 秒。",
           "tabs": 'aria-label="框架"', "colab": "在 Colab 中打开",
           "notebook": "下载 MXNet 笔记本（.ipynb）",
           "missing": f"本节没有 {MISSING} 版本，这里显示的是 PyTorch 版本。",
           "intro": "“Du code”一节，**PyTorch** 版本（本书 1.0.0）",
           "gpus": "本节可以利用2 个 GPU。在 Colab 上：*代码执行程序",
           "python": "MXNet 需要 Python 3.11 或更早的版本",
           "setup": "如果缺少执行本笔记本时所用版本的本书 `d2l` 包（1.0.0+d2l.",
           "restart": "请重启会话", "link": "[1.1节](",
           "edition": "PyTorch 版", "version": "版本 1.0.0，2026年11月1日", "contents": "目录"},
}


def executed(section, tab):
    """A split notebook with the provenance the execute stage adds."""
    notebook = split_section(section, tab)
    notebook.metadata["tabbook"]["provenance"] = {
        "date": "2026-11-01T10:00:00+00:00", "framework": tab, "framework_version": "9.9",
        "python": "3.11.7", "devices": "CPU", "cell_seconds": [0.1, 4.2], "total_seconds": 4.3}
    return notebook


@pytest.mark.parametrize("lang", sorted(CODE_WORDS))
def test_code_pages_launch_notebooks_and_pdf_speak_the_books_language(tmp_path, lang):
    words = CODE_WORDS[lang]
    write_book(tmp_path, {"chap/sec.md": CODE}, config_in(lang))
    config, book, layout = write_executed(tmp_path, executed)
    numbers = number_book(book)
    section = book.chapters[0].sections[0]
    pairs = [(section, tab) for tab in section.tabs]
    assert not write_launch_notebooks(config, numbers, pairs, layout).missing
    site = render_site(book, config, numbers, config.build.tabs, layout).folder
    page = unescape((site / "chap" / "sec.html").read_text(encoding="utf-8"))
    assert (french(words["ran"]) if lang == "fr" else words["ran"]) in page
    for key in ("tabs", "colab", "notebook", "missing"):
        assert words[key] in page, key

    intros = {}
    for tab in ("pytorch", "mxnet"):
        notebook = nbformat.read(layout.launch_notebook(tab, section), as_version=4)
        intros[tab], setup = notebook.cells[0].source, notebook.cells[1].source
        assert words["restart"] in setup
        compile(setup, "setup", "exec")
        prose = "\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")
        assert words["link"] in prose   # a reference, as a link to the published book
    for key in ("intro", "setup", "gpus", "ran"):
        assert (french(words[key]) if lang == "fr" else words[key]) in intros["pytorch"], key
    where = french(words["python"]) if lang == "fr" else words["python"]
    assert where in intros["mxnet"]   # where it runs: neither on Colab nor on Kaggle

    draft = print_layout(book, config, numbers, "pytorch", layout, datetime.date(2026, 11, 1))
    document = draft.front({}) + "".join(draft.chapter(part, 1) for part in draft.parts)
    assert f'<html lang="{lang}"' in document
    for key in ("edition", "version", "contents", "ran"):
        assert words[key] in unescape(document), key


def test_our_book_reads_in_french():
    config = load_config(REPO)
    assert (config.project.lang, config.project.language.code) == ("fr", "fr")
    assert config.warnings == ()


@pytest.mark.parametrize("lang, copy, theme", [("en", "Copy", "Theme: light"),
                                               ("zh", "复制", "主题：浅色"),
                                               ("fr", "Copier", f"Thème{N}: clair")],
                         ids=["en", "zh", "fr"])
def test_the_pages_script_speaks_the_books_language(tmp_path, visitor, lang, copy, theme):
    write_book(tmp_path, {"chap/sec.md": CODE}, config_in(lang))
    config, book, layout = write_executed(tmp_path, executed)
    site = render_site(book, config, number_book(book), config.build.tabs, layout).folder
    browse = visitor(color_scheme="light")
    browse.page.goto((site / "chap" / "sec.html").as_uri())
    button = browse.page.locator(".code-block > button.copy").first
    assert button.inner_text() == copy
    browse.page.locator("button.theme").click()   # auto -> light
    assert browse.page.locator("button.theme").get_attribute("title") == theme
    assert not browse.errors
