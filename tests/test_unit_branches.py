"""Unit tests of source/branches.py: the two readings of a cell's tab.selected branches
(Python's nesting, d2lbook's line by line) and the warning where they part. The chains
come from pycode.analyse, the one reader of a cell's syntax tree."""
from __future__ import annotations

import textwrap

import pytest

from tabbook.source.branches import (CodeIssue, TAB_MARK, d2lbook_reading, difference, plan,
                                     python_reading)
from conftest import repository_cells
from tabbook.core.model import CellKind
from tabbook.source.pycode import analyse, resolve_code

CHAIN = textwrap.dedent("""\
    x = 1
    if tab.selected('pytorch'):
        import torch
        y = torch.ones(2)
    elif tab.selected('mxnet'):
        y = 2
    else:
        y = 3
    print(y)""")
# A branch nested in another: d2lbook dedents its body by one level only.
NESTED = textwrap.dedent("""\
    if tab.selected('pytorch', 'mxnet'):
        a = 1
        if tab.selected('pytorch'):
            b = 2
        c = 3""")


def readings(source: str, tab: str):
    lines = source.split("\n")
    steps = plan(lines, analyse(source).chains, tab)
    return steps, python_reading(lines, steps), d2lbook_reading(lines, steps)


def test_each_tab_keeps_its_branch_dedented_with_its_origins():
    expected = {"pytorch": ("x = 1\nimport torch\ny = torch.ones(2)\nprint(y)", [0, 2, 3, 8]),
                "mxnet": ("x = 1\ny = 2\nprint(y)", [0, 5, 8]),
                "tensorflow": ("x = 1\ny = 3\nprint(y)", [0, 7, 8])}   # the else branch
    for tab, (text, origins) in expected.items():
        steps, python, d2lbook = readings(CHAIN, tab)
        assert (python.text, python.origins) == (text, origins), tab
        assert (d2lbook.text, d2lbook.origins) == (text, origins), tab
        assert difference(steps, python, d2lbook) is None, tab


NOT_AND = textwrap.dedent("""\
    if not tab.selected('mxnet') and tab.selected('pytorch', 'tensorflow'):
        y = 1
    else:
        y = 2""")
# An ordinary condition before a tab branch keeps its `if`; the tab's branch is its `else`.
ORDINARY_FIRST = textwrap.dedent("""\
    if x > 0:
        a = 1
    elif tab.selected('pytorch'):
        a = 2
    else:
        a = 3""")


@pytest.mark.parametrize("source, tab, code", [
    (NOT_AND, "pytorch", "y = 1"), (NOT_AND, "mxnet", "y = 2"),
    (ORDINARY_FIRST, "pytorch", "if x > 0:\n    a = 1\nelse:\n    a = 2"),
    (ORDINARY_FIRST, "mxnet", "if x > 0:\n    a = 1\nelse:\n    a = 3")])
def test_conditions_are_read_as_python_means_them(source, tab, code):
    steps, python, d2lbook = readings(source, tab)
    assert python.text == d2lbook.text == code


def test_tab_marks_left_in_the_source_are_removed_by_both_readings():
    source = "%%tab pytorch\nx = 1\n#@tab mxnet\ny = 2"
    steps, python, d2lbook = readings(source, "pytorch")
    assert steps.removed == {0, 2}
    assert python.text == d2lbook.text == "x = 1\ny = 2"
    assert TAB_MARK.match("# @tab pytorch, mxnet").group(1) == "pytorch, mxnet"
    assert TAB_MARK.match("x = 1  # @tab pytorch") is None


def test_nested_branches_add_up_in_python_but_not_in_d2lbook():
    steps, python, d2lbook = readings(NESTED, "pytorch")
    assert (python.text, python.origins) == ("a = 1\nb = 2\nc = 3", [1, 3, 4])
    # d2lbook: the nested header takes over with its own one-level shift; `c` is past its
    # branch, where no header applies, and stays as written.
    assert (d2lbook.text, d2lbook.origins) == ("a = 1\n    b = 2\n    c = 3", [1, 3, 4])
    parted = difference(steps, python, d2lbook)
    assert (parted.line, parted.header) == (3, 2)
    assert parted.detail(NESTED.split("\n"), compiles=True) == (
        "puts line 3 in the block of line 1 (a = 1), where Python's nesting puts it at the "
        "cell's top level", (3, 1))
    assert parted.detail(NESTED.split("\n"), compiles=False) == (
        "indents line 3 by 4 spaces, where Python's nesting indents it by 0", (3,))


def test_a_line_that_only_d2lbook_keeps_is_named():
    steps, python, d2lbook = readings(NESTED, "tensorflow")
    assert python.text == ""
    assert (d2lbook.text, d2lbook.origins) == ("    c = 3", [4])
    parted = difference(steps, python, d2lbook)
    assert parted.detail(NESTED.split("\n"), compiles=False) == (
        "keeps line 4, which Python's nesting drops", (4,))


def test_resolve_warns_and_follows_python_where_d2lbooks_code_does_not_compile():
    resolved = analyse(NESTED).resolve("pytorch")
    assert resolved.text == "a = 1\nb = 2\nc = 3"
    note = resolved.note
    assert note.index == 2 and note.mentioned == (3,)
    # Lines named in the message are given as .md lines (the cell starts at line 10).
    assert note.located(10).endswith(
        "and indents line 13 by 4 spaces, where Python's nesting indents it by 0; its code "
        "does not compile, so this build follows Python's nesting")


def test_resolve_follows_d2lbook_where_its_code_compiles():
    source = textwrap.dedent("""\
        if tab.selected('pytorch'):
            for i in range(2):
                if tab.selected('pytorch'):
                    a = i
                b = i""")
    resolved = analyse(source).resolve("pytorch")
    assert resolved.text == "for i in range(2):\n        a = i\n        b = i"
    assert resolved.note.message.endswith(
        "puts line 3 in the block of line 1 (for i in range(2):), where Python's nesting puts "
        "it in the block of line 1 (for i in range(2):); this build does as d2lbook")
    assert resolved.note.located(100).count("line 101") == 2


def test_blank_lines_alone_do_not_part_the_readings():
    source = "if tab.selected('pytorch'):\n    a = 1\n\n    b = 2"
    steps, python, d2lbook = readings(source, "pytorch")
    assert python.text == "a = 1\n\nb = 2"
    assert difference(steps, python, d2lbook) is None
    assert analyse(source).resolve("pytorch").note is None


def test_code_issue_without_mentioned_lines_is_its_message():
    issue = CodeIssue(0, "does not compile: invalid syntax at line 1", "fix the code")
    assert issue.located(40) == "does not compile: invalid syntax at line 1"
    assert CodeIssue(0, "line 2 and line 1", "", (1, 0)).located(40) == "line 41 and line 40"


@pytest.mark.parametrize("source", [CHAIN, NESTED, "x = 1\n%%time\ny = (", "%%bash\nls"])
def test_resolve_code_is_the_analysis_resolution(source):
    """The split and library stages skip the parse of cells without tab.selected: same code,
    same origins, same note, in every tab."""
    for tab in ("pytorch", "mxnet", "tensorflow"):
        assert resolve_code(source, tab) == analyse(source).resolve(tab)


def test_resolve_code_on_every_cell_of_the_book():
    for _, cell in repository_cells(CellKind.CODE):
        for tab in ("pytorch", "mxnet", "tensorflow"):
            assert resolve_code(cell.source, tab) == analyse(cell.source).resolve(tab)
