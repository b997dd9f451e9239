"""Unit tests of source/saving.py: what d2lbook's ``#@save`` marks put into the library,
and the marks that would write broken code there."""
from __future__ import annotations

from tabbook.source.branches import CodeIssue, Resolved
from tabbook.source.saving import Saved, saved_definitions, unsaved_rest


def resolved(text: str, first: int = 0) -> Resolved:
    """Resolved code whose line i comes from cell line first + i."""
    lines = text.split("\n")
    return Resolved(lines, list(range(first, first + len(lines))))


def test_each_saved_statement_with_its_kind_name_and_cell_line():
    code = resolved("import os  #@save\n\n"
                    "#@save\n# Adds.\ndef add(x, y):\n    return x + y\n\n"
                    "not_saved = 1\n\n"
                    "class Model:  #@save\n    pass\n\n"
                    "@d2l.add_to_class(d2l.Module)  #@save\ndef forward(self):\n    pass",
                    first=5)
    saved, issues = saved_definitions(code)
    assert issues == []
    assert saved == [
        Saved("import", "", 5, "import os"),
        # The statement's line is its own, not its comment's.
        Saved("function", "add", 9, "# Adds.\ndef add(x, y):\n    return x + y"),
        Saved("class", "Model", 14, "class Model:\n    pass"),
        Saved("method", "forward", 17, "@d2l.add_to_class(d2l.Module)\ndef forward(self):\n"
              "    pass", target_class="Module")]


def test_a_mark_followed_by_nothing_is_reported_at_its_origin():
    assert saved_definitions(resolved("x = 1\n#@save", first=3)) == ([], [CodeIssue(
        4, "#@save saves nothing: no code follows it",
        "put #@save at the end of a def/class line, or alone on the line above the code to "
        "save")])


def test_saved_magics_and_indented_code_are_refused():
    _, [magic] = saved_definitions(resolved("#@save\n%time x = 1"))
    assert magic.message == "#@save would save IPython magics or shell commands into the library"
    _, [indented] = saved_definitions(resolved("    def f():  #@save\n        pass"))
    assert indented.message == ("#@save saves code that does not compile on its own "
                                "(unexpected indent)")


def test_a_leading_save_mark_that_leaves_code_unsaved():
    # d2lbook's rule stops at the first unindented line after a blank line.
    assert unsaved_rest(resolved("#@save\ndef f():\n    pass\n\ng = 2", first=10)) == 14
    assert unsaved_rest(resolved("#@save\ndef f():\n    pass\n\n")) is None
    # Only a cell whose one mark is alone on its first line reads as "save this cell".
    assert unsaved_rest(resolved("x = 1  #@save\n\ny = 2")) is None
    assert unsaved_rest(resolved("#@save\nx = 1\n\ny = 2  #@save")) is None

