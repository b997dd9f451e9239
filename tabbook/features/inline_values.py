"""Inline values: `` :eval:`expression` `` in prose, computed per tab (ext).

Each role is evaluated in the kernel of each tab whose notebook shows its prose,
right after the code cell that precedes it there. It is anchored on that cell's
id (``after``; "" before the first code cell), never on a .md line: ids change
only when code does, so a prose edit moves no value and runs nothing, while
adding or changing an expression changes the notebook's cache key.

The whole feature, plugged into the stages by `INLINE_VALUES` (see extension.py):
its checks, the expressions a notebook evaluates and where (the split notebook's
annotation, in the cache key), the cells that evaluate them in a kernel and what
they printed, the values in pages and executed notebooks, the values not computed.
"""
from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from ..bootstrap.records import conforms
from ..core.language import Language
from ..core.model import METADATA_KEY, Problem, Section
from . import kernel_cells
from .extension import Feature, Finding, PlacedRole, ShownRole, markdown_escaped
from .kernel_cells import result_entry

if TYPE_CHECKING:   # the prose parser imports this module: nbformat only when executing
    import nbformat

ROLE = "eval"
KEY = "inline"
"""The split notebook's metadata key of the expressions it evaluates (and the key of
the evaluating cells' metadata)."""
RESULTS = "values"
VALUE_FIELDS = {"after": str, "expression": str}


# -- check ---------------------------------------------------------------------------
def check(content: str, line: int, in_title: bool) -> list[Finding]:
    """An ``:eval:`` role must hold a Python expression, and stay out of titles (a title
    is shown where no tab is chosen: the table of contents, the PDF's bookmarks)."""
    expression, found = content.strip(), []
    if in_title:
        found.append((line, f":{ROLE}:`{expression}` in a title",
                      "move the value into the text under the heading"))
    try:
        compile(expression, f"<:{ROLE}:>", "eval")
    except SyntaxError as error:
        found.append((line, f":{ROLE}:`{expression}` is not a Python expression "
                      f"({error.msg})", "write one expression, whose str() is shown in the text"))
    return found


# -- the split notebook --------------------------------------------------------------
def notebook_expressions(roles: Sequence[PlacedRole]) -> list[dict]:
    """What a tab's notebook asks its kernel to evaluate: ``{"after", "expression"}``
    once each, in notebook order."""
    pairs = ((role.after, role.content.strip()) for role in roles)
    return [{"after": after, "expression": expression}
            for after, expression in dict.fromkeys(pairs)]


# -- execution -----------------------------------------------------------------------
DESCRIBE = "def describe(value, expression, namespace):\n    return {'value': str(value)}"
"""What the kernel keeps of an expression's value: its str(), as the text shows it."""


def with_evaluating_cells(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """`notebook` (a copy to execute) with a cell evaluating its expressions after each
    code cell they follow (see kernel_cells.py)."""
    return kernel_cells.with_evaluating_cells(notebook, KEY, DESCRIBE)


def is_evaluating_cell(cell: Mapping) -> bool:
    return kernel_cells.is_evaluating_cell(cell, KEY)


def collect_values(notebook: nbformat.NotebookNode) -> list[dict]:
    """Remove the evaluating cells of an executed `notebook`; return what they printed,
    ``{"after", "expression", "value" or "error"}`` each."""
    return kernel_cells.collect_evaluated(notebook, KEY)


def is_value(item: object) -> bool:
    """A value entry as a record keeps it: after, expression, and a value or an error."""
    return conforms(item, VALUE_FIELDS) and isinstance(item.get("value", item.get("error")), str)


# -- values ----------------------------------------------------------------------------
def computed_value(entry: Mapping | None) -> str | None:
    """The value a value entry holds; None when the run did not compute it (its
    expression failed, or was not evaluated): a page or notebook then shows a mark."""
    return entry["value"] if entry is not None and "value" in entry else None


def missing_mark(expression: str, language: Language) -> str:
    """What is shown for a value not computed: never a blank or a stale value."""
    return language.text("missing_value", expression=expression)


def markdown_value(content: str, after: str, values: Sequence[dict],
                   language: Language) -> str:
    """The role's value in a notebook's Markdown (the prose after code cell `after`),
    escaped so that Markdown shows it as is; a value not computed is the book's
    language's visible mark."""
    expression = content.strip()
    value = computed_value(result_entry(values, after, expression))
    return markdown_escaped(missing_mark(expression, language) if value is None else value)


def html_value(content: str, shown: ShownRole) -> str:
    """An ``:eval:`` value as each tab computed it: one text when the tabs agree, else
    one per tab, which the framework choice shows (CSS, as tab panels). A value that is
    words gets the prose's typography, as in launch notebooks; a number written by
    ``d2l.french_number`` is already typeset, and the pass leaves it as it is."""
    expression = content.strip()

    def value(tab: str) -> tuple[str, bool]:
        """The value's text, and whether it is missing (then a visible mark)."""
        entry = result_entry(shown.results[tab], shown.after[tab], expression)
        value = computed_value(entry)
        if value is not None:
            return shown.typeset(value), False
        return missing_mark(expression, shown.language), True

    values = {tab: value(tab) for tab in shown.after} or {"": (
        missing_mark(expression, shown.language), True)}

    def span(text: str, missing: bool, tab: str = "") -> str:
        tab_attribute = f' data-tab="{html.escape(tab)}"' if tab else ""
        kind = "value missing" if missing else "value"
        return f'<span class="{kind}"{tab_attribute}>{html.escape(text)}</span>'

    if len(set(values.values())) == 1:
        return span(*next(iter(values.values())))
    return "".join(span(text, missing, tab) for tab, (text, missing) in values.items())


def value_problems(section: Section, tab: str, roles: Sequence[PlacedRole],
                   values: Sequence[dict]) -> list[Problem]:
    """Each ``:eval:`` role of `section` for `tab` whose value the run did not compute
    (`values` are the run's): its expression failed, or it was not evaluated. A warning,
    which our book, built strict, makes an error: the page shows a visible mark instead."""
    problems = []
    for role in roles:
        expression = role.content.strip()
        entry = result_entry(values, role.after, expression)
        if entry is not None and "value" in entry:
            continue
        if entry is None:
            message = f":{ROLE}:`{expression}` was not evaluated by the run shown"
            fix = "run `build.py eval --force` for this section"
        else:
            message = f":{ROLE}: {entry['error']}"
            fix = ("fix the expression, or make the code cell before it (in this tab) "
                   "define what it uses")
        problems.append(Problem(section.display_path, role.line, message, fix, tab,
                                warning=True))
    return problems


INLINE_VALUES = Feature(
    key=KEY, roles=(ROLE,), check=check, annotate=notebook_expressions,
    prepare=with_evaluating_cells, collect=collect_values, added_cell=is_evaluating_cell,
    results_key=RESULTS, is_result=is_value, problems=value_problems,
    counted=("inline value", "not computed", "the pages show a mark in their place"),
    render_html=html_value, render_markdown=markdown_value, ties_following_unit=True)
