"""Inline values: `` :eval:`expression` `` in prose, computed per tab (ext).

Each role is evaluated in the kernel of each tab whose notebook shows its prose,
right after the code cell that precedes it there. It is anchored on that cell's
id (``after``; "" before the first code cell), never on a .md line: ids change
only when code does, so a prose edit moves no value and runs nothing, while
adding or changing an expression changes the notebook's cache key.

This module says which expressions a notebook evaluates and where (for the
executor and the cache key), the code that evaluates them in a kernel, and how
a text shows their values (for the executed and launch notebooks).
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

import nbformat

from ..core.language import Language
from ..core.model import METADATA_KEY, CellKind, Problem, Section
from ..source.roles import edited, located_tokens, prose_tokens, source_spans


class CodeCell(Protocol):
    """A code cell of a tab's notebook (`split.CodeCell`): only its id matters here."""
    id: str

MARKER = "tabbook-inline-values:"
"""What the evaluating cell prints before its JSON, so that nothing else is read as it."""
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>#|$~])")


@dataclass(frozen=True)
class InlineExpression:
    """One ``:eval:`` role of a tab's notebook."""
    after: str
    """The id of the code cell it is evaluated after ("" before any)."""
    expression: str
    line: int
    """Its .md line."""


def is_inline(token) -> bool:
    return token.type == "role" and token.meta["role"] == "eval"


def section_expressions(section: Section, tab: str,
                        code: Mapping[int, CodeCell]) -> dict[int, list[InlineExpression]]:
    """The ``:eval:`` roles of `section`'s notebook for `tab` (whose code cells are
    `code`, see `split.code_cells`), by position of their prose cell in ``section.cells``."""
    after, found = "", {}
    for position, cell in enumerate(section.cells):
        if not cell.in_tab(tab):
            continue
        if position in code:
            after = code[position].id
        elif cell.kind is CellKind.PROSE:
            roles = [InlineExpression(after, token.meta["content"].strip(), line)
                     for token, line in located_tokens(cell.tokens, cell.line)
                     if is_inline(token)]
            if roles:
                found[position] = roles
    return found


def notebook_expressions(section: Section, tab: str, code: Mapping[int, CodeCell]) -> list[dict]:
    """What the split notebook of `section` for `tab` asks its kernel to evaluate:
    ``{"after", "expression"}`` once each, in notebook order."""
    pairs = ((role.after, role.expression)
             for roles in section_expressions(section, tab, code).values() for role in roles)
    return [{"after": after, "expression": expression}
            for after, expression in dict.fromkeys(pairs)]


def evaluating_source(expressions: list[str]) -> str:
    """A cell that prints the str() of each expression, or the error it raises, as JSON.

    It leaves no name behind in the reader's namespace and shows no output of its own."""
    return (
        "def __tabbook_values(expressions, namespace):\n"
        "    import json\n"
        "    values = []\n"
        "    for expression in expressions:\n"
        "        try:\n"
        "            values.append({'value': str(eval(expression, namespace))})\n"
        "        except Exception as error:\n"
        "            values.append({'error': f'{type(error).__name__}: {error}'})\n"
        f"    print({MARKER!r} + json.dumps(values))\n"
        f"__tabbook_values({json.dumps(expressions)}, globals())\n"
        "del __tabbook_values")


def with_evaluating_cells(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """`notebook` (a copy to execute) with a cell evaluating its expressions after each
    code cell they follow; those cells are marked in their metadata."""
    wanted: dict[str, list[str]] = {}
    for item in notebook.metadata.get(METADATA_KEY, {}).get("inline", []):
        wanted.setdefault(item["after"], []).append(item["expression"])
    if not wanted:
        return notebook
    cells = []

    def evaluating(after: str) -> None:
        if after in wanted:
            cell = nbformat.v4.new_code_cell(evaluating_source(wanted[after]))
            cell.id = f"inline-{len(cells)}"
            cell.metadata[METADATA_KEY] = {"inline": after, "expressions": wanted[after]}
            cells.append(cell)

    evaluating("")
    for cell in notebook.cells:
        cells.append(cell)
        if cell.cell_type == "code":
            evaluating(cell.id)
    notebook.cells = cells
    return notebook


def is_evaluating_cell(cell) -> bool:
    return "inline" in cell.get("metadata", {}).get(METADATA_KEY, {})


def collect_values(notebook: nbformat.NotebookNode) -> list[dict]:
    """Remove the evaluating cells of an executed `notebook`; return what they printed,
    ``{"after", "expression", "value" or "error"}`` each. Execution counts are numbered
    again as if those cells had not run."""
    values, kept = [], []
    for cell in notebook.cells:
        if not is_evaluating_cell(cell):
            kept.append(cell)
            continue
        marks = cell.metadata[METADATA_KEY]
        printed = "".join(o.get("text", "") for o in cell.outputs if o.get("name") == "stdout")
        for expression, result in zip(marks["expressions"], _printed_results(printed)):
            values.append({"after": marks["inline"], "expression": expression, **result})
    count = 0
    for cell in kept:
        if cell.cell_type == "code" and cell.get("execution_count") is not None:
            count += 1
            cell.execution_count = count
    notebook.cells = kept
    return values


def _printed_results(printed: str) -> list[dict]:
    for line in printed.splitlines():
        if line.startswith(MARKER):
            return json.loads(line[len(MARKER):])
    return []


ValueLookup = Callable[[str, str], Mapping | None]
"""(after, expression) -> its value entry (``{"value"}`` or ``{"error"}``), None if none."""


def computed_value(entry: Mapping | None) -> str | None:
    """The value a value entry holds; None when the run did not compute it (its
    expression failed, or was not evaluated): a page or notebook then shows a mark."""
    return entry["value"] if entry is not None and "value" in entry else None


def with_values(text: str, after: str, lookup: ValueLookup, language: Language) -> str:
    """A notebook's Markdown `text` (the prose after code cell `after`) with each
    ``:eval:`` role replaced by its value, escaped so that Markdown shows it as is; a value
    not computed is the book's language's visible mark, never a blank or a stale value."""
    def shown(expression: str) -> str:
        value = computed_value(lookup(after, expression))
        if value is None:
            value = language.text("missing_value", expression=expression)
        return _MARKDOWN_SPECIAL.sub(r"\\\1", value)
    return edited(text, [(start, end, shown(token.meta["content"].strip()))
                         for token, start, end in source_spans(prose_tokens(text), text)
                         if is_inline(token)])


def values_by_key(values: list[dict]) -> dict[tuple[str, str], dict]:
    return {(v["after"], v["expression"]): v for v in values}


def value_problems(section: Section, tab: str, code: Mapping[int, CodeCell],
                   values: list[dict]) -> list[Problem]:
    """Each ``:eval:`` role of `section` for `tab` whose value the run did not compute
    (`values` are the run's): its expression failed, or it was not evaluated. A warning,
    which our book, built strict, makes an error: the page shows a visible mark instead."""
    found = values_by_key(values)
    problems = []
    for roles in section_expressions(section, tab, code).values():
        for role in roles:
            entry = found.get((role.after, role.expression))
            if entry is not None and "value" in entry:
                continue
            if entry is None:
                message = f":eval:`{role.expression}` was not evaluated by the run shown"
                fix = "run `build.py eval --force` for this section"
            else:
                message = f":eval: {entry['error']}"
                fix = ("fix the expression, or make the code cell before it (in this tab) "
                       "define what it uses")
            problems.append(Problem(section.display_path, role.line, message, fix, tab,
                                    warning=True))
    return problems
