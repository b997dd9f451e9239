"""Claims (`` :check:`expression` ``): judged in each tab's kernel where an `:eval:` would
be, shown nowhere, located per tab when false; in the cache key, not in the frozen key.

The end-to-end tests build a two-tab book (PyTorch and MXNet kernels, for real); the
others read the feature's functions directly.
"""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import nbformat
import pytest
from pypdf import PdfReader

from conftest import CONFIG, DECLARE, build, md, problems_of, with_build_system, write_book
from tabbook.core.model import METADATA_KEY, Section
from tabbook.features.claims import CLAIMS, DESCRIBE, claim_problems, is_judgement
from tabbook.features.extension import PlacedRole

TWO_TABS = (CONFIG.replace("tabs = pytorch, mxnet, tensorflow", "tabs = pytorch, mxnet")
            .replace("[library-tensorflow]\nlib_file = d2l/tensorflow.py\n", ""))
RATES = ("```{.python .input}\n%%tab pytorch\nrate = 13195.4\n```\n\n"
         "```{.python .input}\n%%tab mxnet\nrate = 9040.7\n```")
TRUE_CLAIM = "Ce modèle traite plus de 5 000 images par seconde. :check:`rate > 5000`"
FALSE_IN_MXNET = "Il en traite plus de 10 000. :check:`rate > 10_000 and slow < rate`"


def section_text(*prose: str) -> str:
    return md(DECLARE.replace("'pytorch', 'mxnet', 'tensorflow'", "'pytorch', 'mxnet'"),
              "# Débits", "```{.python .input}\n%%tab all\nslow = 100\n```", RATES, *prose)


@pytest.fixture(scope="module")
def project(tmp_path_factory, framework_pythons):
    """A two-tab book whose claims hold, built (HTML, launch notebooks) and printed."""
    root = with_build_system(tmp_path_factory.mktemp("claims"))
    (root / "d2l" / "tensorflow.py").unlink()
    (root / "d2l" / "__init__.py").write_text('__version__ = "1.0.0"\n')
    write_book(root, {"chap/index.md": "# Chapitre\n\n```toc\nsec\nother\n```\n",
                      "chap/sec.md": section_text(TRUE_CLAIM),
                      "chap/other.md": md("# Autre", "```{.python .input}\n%%tab all\n"
                                          "answer = 42\n```", "Elle est paire. "
                                          ":check:`answer % 2 == 0`")},
               TWO_TABS)
    options = [f"--python={tab}={framework_pythons[tab]}" for tab in ("pytorch", "mxnet")]

    def run(*args: str, root: Path = root):
        return build(root, *args, *options)
    run.root = root
    for command in (("html",), ("pdf",)):
        result = run(*command)
        assert result.returncode == 0, result.stdout + result.stderr
    return run


@pytest.fixture
def copy(project, tmp_path):
    target = tmp_path / "book"
    shutil.copytree(project.root, target, symlinks=True)
    return target


def edit(root: Path, *prose: str) -> int:
    """Write the section with `prose`; return the .md line of the last paragraph's first
    line."""
    text = section_text(*prose)
    (root / "chapters/chap/sec.md").write_text(text, encoding="utf-8")
    return 1 + text.split("\n").index(prose[-1].split("\n")[0])


def ran(result) -> int:
    line = next(l for l in result.stdout.splitlines() if l.startswith("eval: ") and " ran," in l)
    return int(line.split()[1])


def test_a_claim_is_judged_in_every_tab_and_recorded(project):
    for tab in ("pytorch", "mxnet"):
        notebook = nbformat.read(project.root / f"_build/eval/{tab}/chap/sec.ipynb", 4)
        assert notebook.metadata[METADATA_KEY]["claims"] == [
            {"after": notebook.cells[2].id, "expression": "rate > 5000", "holds": True}]
        # The judging cell is gone; the counts are those of a plain run.
        assert [c.execution_count for c in notebook.cells if c.cell_type == "code"] == [1, 2]


def test_a_claim_is_shown_nowhere(project):
    root = project.root
    html = (root / "_build/html/chap/sec.html").read_text(encoding="utf-8")
    assert "plus de 5" in html and ":check:" not in html and "rate &gt; 5000" not in html
    for tab in ("pytorch", "mxnet"):
        for folder in ("launch", "eval"):
            notebook = nbformat.read(root / f"_build/{folder}/{tab}/chap/sec.ipynb", 4)
            prose = "\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")
            assert "plus de 5" in prose and "check" not in prose and "rate >" not in prose
        text = " ".join(p.extract_text() for p in PdfReader(
            root / "_build" / "pdf" / f"test-book-{tab}.pdf").pages)
        assert "images par seconde" in text and "check" not in text and "5000" not in text
    index = b"".join(p.read_bytes() for p in (root / "_build/html/pagefind").rglob("*")
                     if p.is_file())
    assert b"rate > 5000" not in index


def test_a_claim_false_in_one_tab_stops_the_build_there_only(project, copy):
    line = edit(copy, TRUE_CLAIM, FALSE_IN_MXNET)
    result = project("html", root=copy)
    assert result.returncode == 1
    assert (f"chapters/chap/sec.md:{line}: [mxnet] warning: claim false: rate > 10_000 and "
            "slow < rate (with rate = 9040.7, slow = 100) — rewrite the sentence") \
        in result.stderr
    assert "[pytorch] warning: claim" not in result.stderr
    assert "1 claim false, failing or not judged (strict: an error" in result.stderr
    # A claim that cannot be evaluated in a tab is located the same way.
    line = edit(copy, TRUE_CLAIM, ":begin_tab:`pytorch`\nVoilà. :check:`inconnu > 1`\n:end_tab:")
    result = project("eval", root=copy)
    assert result.returncode == 1
    assert (f"chapters/chap/sec.md:{line + 1}: [pytorch] warning: claim failed: inconnu > 1 "
            "raised NameError: name 'inconnu' is not defined — make the expression valid"
            ) in result.stderr


def test_adding_a_claim_runs_that_sections_notebooks_only(project, copy):
    edit(copy, TRUE_CLAIM, "Et plus de 1 000. :check:`rate > 1000`")
    result = project("eval", root=copy)
    assert result.returncode == 0, result.stdout + result.stderr
    assert ran(result) == 2    # sec in both tabs; other is cached
    assert re.search(r"chap/other +cached", result.stdout)
    # A prose edit around the claims runs nothing.
    edit(copy, "Un paragraphe de plus.", TRUE_CLAIM, "Et plus de 1 000. :check:`rate > 1000`")
    assert ran(project("eval", root=copy)) == 0


def test_frozen_runs_keep_their_judgements_and_predate_new_claims(project, copy):
    line = edit(copy, TRUE_CLAIM, FALSE_IN_MXNET)
    result = project("eval", "--freeze", root=copy)   # refuted, and kept all the same
    assert result.returncode == 1 and "[mxnet] warning: claim false" in result.stderr
    frozen = nbformat.read(copy / "frozen/mxnet/chap/sec.ipynb", 4)
    assert [j["holds"] for j in frozen.metadata[METADATA_KEY]["claims"]] == [True, False]
    shutil.rmtree(copy / "_build")   # another machine: only the frozen store
    result = project("html", root=copy)
    assert result.returncode == 1 and ran(result) == 0
    assert f"chapters/chap/sec.md:{line}: [mxnet] warning: claim false" in result.stderr
    # The sentence fixed, with a new claim: the frozen outputs stay in use (the claim is
    # not in the frozen key), and the claim is listed as not judged, without stopping.
    line = edit(copy, TRUE_CLAIM, "Il en traite plus de 9 000. :check:`rate > 9000`")
    result = project("html", root=copy)
    assert result.returncode == 0, result.stdout + result.stderr
    assert ran(result) == 0 and re.search(r"chap/sec +frozen +frozen", result.stdout)
    assert "eval: 2 claims not judged: the frozen GPU runs shown predate them" in result.stderr
    report = (copy / "_build/eval/report.md").read_text(encoding="utf-8")
    assert (f"- chapters/chap/sec.md:{line}: [mxnet] warning: :check:`rate > 9000` not "
            "judged: the frozen run shown predates it") in report


# -- without kernels -----------------------------------------------------------------

def test_a_title_or_a_statement_is_a_check_error(book):
    root = book(md(DECLARE, "# Titre :check:`1 < 2`", "Texte. :check:`x = 1`"))
    problems = problems_of(root)
    assert "chapters/chap/sec.md:6: :check:`1 < 2` in a title — put the claim after the " \
           "sentence it guards, in the text" in problems
    assert any(p.startswith("chapters/chap/sec.md:8: :check:`x = 1` is not a Python "
                            "expression") for p in problems)


def judge(expression: str, namespace: dict) -> dict:
    """What the kernel-side `describe` makes of `expression` in `namespace`."""
    scope: dict = {}
    exec(DESCRIBE, scope)
    return scope["describe"](eval(expression, namespace), expression, namespace)


def test_a_false_claim_keeps_the_values_of_its_names_only():
    namespace = {"re": re, "ratio": 0.47, "label": "x" * 200, "f": len}
    assert judge("1 > 2", namespace) == {"holds": False, "names": {}}
    assert judge("ratio > 0.1", namespace) == {"holds": True}
    described = judge("f(label) < 3 and ratio > 1 and re", namespace)
    assert described["holds"] is False and list(described["names"]) == ["label", "ratio"]
    assert described["names"]["ratio"] == "0.47" and len(described["names"]["label"]) == 80
    assert is_judgement({"after": "", "expression": "a", **described})
    assert not is_judgement({"after": "", "expression": "a", "holds": "yes"})


def test_problems_say_false_failed_and_not_judged_in_the_writers_terms():
    section = Section(Path("chap/sec.md"), "chapters/chap/sec.md")
    roles = [PlacedRole("c1", " a > 1 ", 7), PlacedRole("c1", "b", 9), PlacedRole("c2", "c", 11)]
    judgements = [{"after": "c1", "expression": "a > 1", "holds": False, "names": {"a": "0"}},
                  {"after": "c1", "expression": "b", "error": "NameError: b"}]
    found = [str(p) for p in claim_problems(section, "mxnet", roles, judgements)]
    assert found[0].startswith("chapters/chap/sec.md:7: [mxnet] warning: claim false: a > 1 "
                               "(with a = 0) — ")
    assert found[1].startswith("chapters/chap/sec.md:9: [mxnet] warning: claim failed: b "
                               "raised NameError: b — ")
    assert found[2].startswith("chapters/chap/sec.md:11: [mxnet] warning: claim not judged")
    assert CLAIMS.judged(roles[0], judgements) and not CLAIMS.judged(roles[2], judgements)
    assert not CLAIMS.in_frozen_key
