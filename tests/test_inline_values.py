"""Inline values (`` :eval:`expression` ``): computed in each tab's kernel after the code
cell before them, shown per framework in the HTML, the PDF and the launch notebooks,
cached with the outputs, located when they fail.

The end-to-end tests build a two-tab book (PyTorch and MXNet kernels, for real); the
others read the stages' functions directly.
"""
from __future__ import annotations

import ast
import json
import re
import shutil
from pathlib import Path

import nbformat
import pytest
from pypdf import PdfReader

from conftest import DECLARE, REPO, TWO_TABS, md, problems_of, ran, reevaluated, two_tab_book
from tabbook.core.language import language_of
from tabbook.core.model import METADATA_KEY
from tabbook.features.extension import PlacedRole, ShownRole
from tabbook.features.kernel_cells import MARKER
from tabbook.features.inline_values import (INLINE_VALUES, collect_values, html_value,
                                            with_evaluating_cells)
from tabbook.notebooks.features import with_rendered_roles
from tabbook.output.typography import french

TITLE = "# Débits"
BEFORE = "Avant tout code, le noyau calcule :eval:`6 * 7`."
RATES = ("```{.python .input}\n%%tab pytorch\nrate = 13195.4\n```\n\n"
         "```{.python .input}\n%%tab mxnet\nrate = 9040.7\n```")
SHARED = "Ce modèle traite :eval:`f'{rate:.0f}'` images par seconde, en :eval:`round(rate / 1000, 4)` ms."
ONLY_TORCH = ":begin_tab:`pytorch`\nSeul PyTorch double le débit : :eval:`2 * rate`.\n:end_tab:"
OTHER = md(DECLARE.replace("'pytorch', 'mxnet', 'tensorflow'", "'pytorch', 'mxnet'"),
           "# Autre", "```{.python .input}\n%%tab all\nanswer = 42\n```",
           "La réponse est :eval:`answer`.")


def section_text(*prose: str) -> str:
    return md(DECLARE.replace("'pytorch', 'mxnet', 'tensorflow'", "'pytorch', 'mxnet'"),
              TITLE, BEFORE, RATES, *prose)


@pytest.fixture(scope="module")
def project(tmp_path_factory, framework_pythons):
    """A two-tab book, built (notebooks, eval, launch, HTML) and printed (both PDFs)."""
    return two_tab_book(tmp_path_factory.mktemp("inline"), {
        "chap/sec.md": section_text(SHARED, ONLY_TORCH), "chap/other.md": OTHER},
        framework_pythons)


def launch_markdown(root: Path, tab: str, name: str = "sec") -> str:
    notebook = nbformat.read(root / "_build" / "launch" / tab / "chap" / f"{name}.ipynb", 4)
    return "\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")


def page(root: Path, name: str = "sec") -> str:
    return (root / "_build" / "html" / "chap" / f"{name}.html").read_text(encoding="utf-8")


def test_each_launch_notebook_shows_its_own_values(project):
    # Launch notebooks read in French typography, the values' units included.
    torch, mxnet = (launch_markdown(project.root, tab) for tab in ("pytorch", "mxnet"))
    assert "le noyau calcule 42." in torch and "le noyau calcule 42." in mxnet
    assert french("traite 13195 images par seconde, en 13.1954 ms.") in torch
    assert french("traite 9041 images par seconde, en 9.0407 ms.") in mxnet
    assert french("Seul PyTorch double le débit : 26390.8.") in torch
    assert "Seul PyTorch" not in mxnet
    for text in (torch, mxnet, launch_markdown(project.root, "pytorch", "other")):
        assert ":eval:" not in text


def test_executed_notebooks_keep_the_values_with_their_provenance(project):
    notebook = nbformat.read(project.root / "_build/eval/pytorch/chap/sec.ipynb", 4)
    book_metadata = notebook.metadata[METADATA_KEY]
    assert {v["expression"]: v["value"] for v in book_metadata["values"]} == {
        "6 * 7": "42", "f'{rate:.0f}'": "13195", "round(rate / 1000, 4)": "13.1954",
        "2 * rate": "26390.8"}
    assert book_metadata["provenance"]["framework"] == "pytorch"
    # The cells that computed them are gone, and the counts are those of a plain run.
    assert [c.execution_count for c in notebook.cells if c.cell_type == "code"] == [1]


def test_the_page_shows_each_frameworks_value_under_its_tab(project):
    html = page(project.root)
    assert '<span class="value">42</span>' in html   # the same in both tabs: shown once
    assert ('<span class="value" data-tab="pytorch">13195</span>'
            '<span class="value" data-tab="mxnet">9041</span>') in html
    # The unit after a value stays with it; the value itself is left as computed.
    assert re.search('data-tab="mxnet">9.0407</span>\u00a0ms', html)
    assert ":eval:" not in html and ":eval:" not in page(project.root, "other")


def test_the_framework_choice_switches_the_values(project, visitor):
    reader = visitor()
    reader.page.goto((project.root / "_build/html/chap/sec.html").as_uri())
    paragraph = "article p:has(.value[data-tab])"
    assert "traite 13195 images" in reader.page.inner_text(paragraph)
    reader.page.select_option("#framework-select", "mxnet")
    assert "traite 9041 images par seconde, en 9.0407\u00a0ms." in \
        reader.page.inner_text(paragraph)
    assert not reader.errors


def test_each_pdf_shows_its_tabs_values(project):
    def text(tab: str) -> str:
        reader = PdfReader(project.root / "_build" / "pdf" / f"test-book-{tab}.pdf")
        return " ".join(" ".join(p.extract_text() for p in reader.pages).split())
    torch, mxnet = text("pytorch"), text("mxnet")
    assert "traite 13195 images par seconde" in torch and "9041" not in torch
    assert "traite 9041 images par seconde" in mxnet and "13195" not in mxnet
    assert "26390.8" in torch and ":eval:" not in torch + mxnet


@pytest.fixture
def copy(project, tmp_path):
    """A copy of the built book, for the tests that edit it."""
    return project.copy(tmp_path)


def edit(root: Path, *prose: str) -> None:
    (root / "chapters/chap/sec.md").write_text(section_text(*prose), encoding="utf-8")


def test_a_prose_edit_executes_nothing_and_keeps_the_values(project, copy):
    edit(copy, "Un paragraphe ajouté avant.", SHARED.replace("Ce modèle", "Ce réseau"),
         ONLY_TORCH)
    result = project("html", root=copy)
    assert result.returncode == 0, result.stdout + result.stderr
    assert ran(result) == 0
    assert "Ce réseau traite 9041 images" in launch_markdown(copy, "mxnet")
    assert 'data-tab="mxnet">9041</span>' in page(copy)


def test_adding_an_expression_evaluates_it_on_its_sections_recorded_values(project, copy):
    edit(copy, SHARED, ONLY_TORCH, "Son inverse vaut :eval:`round(1 / rate, 6)`.")
    result = project("eval", root=copy)
    assert result.returncode == 0, result.stdout + result.stderr
    # sec in both tabs, its code not run; other and the prose-only pages are cached
    assert ran(result) == 0 and reevaluated(result) == 2
    assert re.search(r"chap/other +cached +cached", result.stdout)
    project("launch", root=copy)
    assert "Son inverse vaut 7.6e-05." in launch_markdown(copy, "pytorch")
    assert "Son inverse vaut 0.000111." in launch_markdown(copy, "mxnet")


def test_a_failing_expression_is_located_and_stops_a_strict_build(project, copy):
    edit(copy, SHARED, ":begin_tab:`mxnet`\nLe voici : :eval:`inconnu + 1`.\n:end_tab:")
    line = 1 + (copy / "chapters/chap/sec.md").read_text().split("\n").index(
        "Le voici : :eval:`inconnu + 1`.")
    result = project("html", root=copy)
    assert result.returncode == 1
    assert (f"chapters/chap/sec.md:{line}: [mxnet] warning: :eval: NameError: name 'inconnu' "
            "is not defined — fix the expression") in result.stderr
    assert "1 inline value not computed (strict" in result.stderr
    # Not strict: the build goes on, and the page marks the value instead of hiding it.
    (copy / "config.ini").write_text(TWO_TABS.replace("warning_is_error = True",
                                                      "warning_is_error = False"))
    result = project("html", root=copy)
    assert result.returncode == 0, result.stdout + result.stderr
    assert ('<span class="value missing">[valeur non calculée : inconnu + 1]</span>'
            in page(copy))
    # (the notebooks' typography spaces a line holding Markdown escapes as the page does)
    assert "Le voici\u202f: \\[valeur non calculée\u202f: inconnu + 1\\]." in \
        launch_markdown(copy, "mxnet")


# -- without kernels -----------------------------------------------------------------

def test_a_title_or_a_statement_is_a_check_error(book):
    root = book(md(DECLARE, "# Titre :eval:`1 + 1`", "Texte :eval:`x = 1` et :eval:`(`."))
    problems = problems_of(root)
    assert "chapters/chap/sec.md:6: :eval:`1 + 1` in a title — move the value into the text " \
           "under the heading" in problems
    assert any(p.startswith("chapters/chap/sec.md:8: :eval:`x = 1` is not a Python expression")
               for p in problems)
    assert any(p.startswith("chapters/chap/sec.md:8: :eval:`(` is not a Python expression")
               for p in problems)


@pytest.mark.parametrize("lang, mark", [("fr", "\\[valeur non calculée : y\\]"),
                                        ("en", "\\[value not computed: y\\]"),
                                        ("zh", "\\[未计算的值：y\\]")])
def test_values_are_escaped_in_markdown_and_missing_ones_marked(lang, mark):
    """The mark of a value not computed is in the book's language."""
    values = ({"after": "c1", "expression": "x", "value": "a*b_[c]"},
              {"after": "c1", "expression": "y", "error": "NameError: y"})
    text = with_rendered_roles("Voir :eval:`x`, puis :eval:`y` et `:eval:`z``.", "c1",
                               {"values": values}, language_of(lang)[0])
    assert text == f"Voir a\\*b\\_\\[c\\], puis {mark} et `:eval:`z``."


def test_the_feature_alone_annotates_and_renders_per_tab():
    """The feature's hooks, called as the stages call them, with plain values."""
    roles = [PlacedRole("", " 6 * 7 ", 3), PlacedRole("c1", "x", 5), PlacedRole("c1", "x", 6)]
    assert INLINE_VALUES.annotate(roles) == [{"after": "", "expression": "6 * 7"},
                                             {"after": "c1", "expression": "x"}]
    french = language_of("fr")[0]
    results = {"pytorch": [{"after": "c1", "expression": "x", "value": "1"}],
               "mxnet": [{"after": "c2", "expression": "x", "value": "2"}]}

    def shown(mxnet_after: str) -> ShownRole:
        return ShownRole({"pytorch": "c1", "mxnet": mxnet_after}, results, french, str.upper)
    assert html_value("x", shown("c2")) == ('<span class="value" data-tab="pytorch">1</span>'
                                            '<span class="value" data-tab="mxnet">2</span>')
    assert html_value("x", shown("c1")) == (
        '<span class="value" data-tab="pytorch">1</span><span class="value missing" '
        'data-tab="mxnet">[valeur non calculée : x]</span>')
    same = {"pytorch": results["pytorch"], "mxnet": results["pytorch"]}
    assert html_value("x", ShownRole({"pytorch": "c1", "mxnet": "c1"}, same, french,
                                     str.upper)) == '<span class="value">1</span>'
    assert html_value("x", ShownRole({}, {}, french, str.upper)) == \
        '<span class="value missing">[valeur non calculée : x]</span>'


def test_evaluating_cells_go_once_run_and_counts_are_renumbered():
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell("x = 1"), nbformat.v4.new_markdown_cell("t"),
                      nbformat.v4.new_code_cell("y = 2")]
    notebook.cells[0].id, notebook.cells[2].id = "c1", "c2"
    notebook.metadata[METADATA_KEY] = {"inline": [{"after": "", "expression": "1"},
                                                  {"after": "c1", "expression": "x"},
                                                  {"after": "c1", "expression": "z"}]}
    prepared = with_evaluating_cells(notebook)
    assert [c.cell_type for c in prepared.cells] == ["code"] * 3 + ["markdown", "code"]
    printed = {0: '[{"value": "1"}]', 2: '[{"value": "1"}, {"error": "NameError: z"}]'}
    for index, cell in enumerate(prepared.cells):   # what a kernel would have done
        if cell.cell_type == "code":
            cell.execution_count = index + 1
        if index in printed:
            cell.outputs = [nbformat.v4.new_output(
                "stream", name="stdout", text=MARKER + printed[index] + "\n")]
    assert collect_values(prepared) == [
        {"after": "", "expression": "1", "value": "1"},
        {"after": "c1", "expression": "x", "value": "1"},
        {"after": "c1", "expression": "z", "error": "NameError: z"}]
    assert [c.get("execution_count") for c in prepared.cells] == [1, None, 2]


def test_the_books_french_number_helper():
    # Its definition alone, as every d2l file holds it: importing d2l.torch needs PyTorch.
    library = ast.parse((REPO / "d2l" / "torch.py").read_text(encoding="utf-8"))
    definition = next(node for node in library.body
                      if isinstance(node, ast.FunctionDef) and node.name == "french_number")
    namespace: dict = {}
    exec(ast.unparse(definition), namespace)
    french_number = namespace["french_number"]
    narrow = "\u202f"
    assert french_number(13195.4) == f"13{narrow}200"
    assert french_number(13195, digits=None) == f"13{narrow}195"
    assert french_number(2.5612) == "2,56" and french_number(26.6) == "26,6"
    assert french_number(9.996) == "10" and french_number(0.05) == "0,05"
    assert french_number(1.43e-6) == "1,43 × 10⁻⁶" and french_number(-0.5, 2) == "−0,5"
    assert french_number(2.1e9) == "2,1 × 10⁹" and french_number(0) == "0"
    assert json.dumps(french_number(1234567.0, 7)) == json.dumps(f"1{narrow}234{narrow}567")


def test_values_are_frozen_with_the_outputs(project, copy):
    result = project("eval", "--freeze", root=copy)
    assert result.returncode == 0, result.stdout + result.stderr
    frozen = nbformat.read(copy / "frozen/mxnet/chap/sec.ipynb", 4)
    assert {v["expression"]: v["value"] for v in frozen.metadata[METADATA_KEY]["values"]}[
        "f'{rate:.0f}'"] == "9041"
    shutil.rmtree(copy / "_build")   # another machine: only the frozen store
    result = project("launch", root=copy)
    assert result.returncode == 0, result.stdout + result.stderr
    assert ran(result) == 0 and re.search(r"chap/sec +frozen +frozen", result.stdout)
    assert "traite 9041 images par seconde" in launch_markdown(copy, "mxnet")
