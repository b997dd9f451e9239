"""Cells a feature adds to a notebook being executed, to evaluate its roles' expressions
in the reader's kernel right after the code cell each follows (inline values, claims).

Each added cell evaluates its expressions in the notebook's namespace, describes each
result with the feature's `describe` function (written as kernel-side source, since it
runs in the framework's interpreter), prints the descriptions as one JSON line behind a
marker, and leaves no name behind. Once the notebook ran, the cells are removed and
what they printed is returned, ``{"after", "expression", **description}`` each (or
``"error"`` where the expression raised).
"""
from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from ..core.model import METADATA_KEY, Problem, Section
from .extension import Finding, PlacedRole

if TYPE_CHECKING:   # the prose parser imports the features: nbformat only when executing
    import nbformat

MARKER = "tabbook-evaluated:"
"""What an added cell prints before its JSON, so that nothing else is read as it."""


def evaluating_source(expressions: list[str], describe: str) -> str:
    """A cell evaluating each of `expressions` and printing, as JSON, what `describe`
    (the source of ``def describe(value, expression, namespace) -> dict``) makes of its
    value, or the error it raised. It shows no output of its own."""
    body = "\n".join("    " + line for line in describe.strip().splitlines())
    return (
        "def __tabbook_evaluate(expressions, namespace):\n"
        "    import json\n"
        f"{body}\n"
        "    results = []\n"
        "    for expression in expressions:\n"
        "        try:\n"
        "            results.append(describe(eval(expression, namespace), expression, namespace))\n"
        "        except Exception as error:\n"
        "            results.append({'error': f'{type(error).__name__}: {error}'})\n"
        f"    print({MARKER!r} + json.dumps(results))\n"
        f"__tabbook_evaluate({json.dumps(expressions)}, globals())\n"
        "del __tabbook_evaluate")


def with_evaluating_cells(notebook: nbformat.NotebookNode, key: str,
                          describe: str) -> nbformat.NotebookNode:
    """`notebook` (a copy to execute) with a cell evaluating the expressions its metadata
    lists under `key` (``{"after", "expression"}`` each) after each code cell they follow;
    those cells are marked with `key` in their metadata."""
    import nbformat
    wanted: dict[str, list[str]] = {}
    for item in notebook.metadata.get(METADATA_KEY, {}).get(key, []):
        wanted.setdefault(item["after"], []).append(item["expression"])
    if not wanted:
        return notebook
    cells = []

    def evaluating(after: str) -> None:
        if after in wanted:
            cell = nbformat.v4.new_code_cell(evaluating_source(wanted[after], describe))
            cell.id = f"{key}-{len(cells)}"
            cell.metadata[METADATA_KEY] = {key: after, "expressions": wanted[after]}
            cells.append(cell)

    evaluating("")
    for cell in notebook.cells:
        cells.append(cell)
        if cell.cell_type == "code":
            evaluating(cell.id)
    notebook.cells = cells
    return notebook


def is_evaluating_cell(cell: Mapping, key: str) -> bool:
    return cell.get("cell_type") == "code" and key in cell.get("metadata", {}).get(
        METADATA_KEY, {})


def collect_evaluated(notebook: nbformat.NotebookNode, key: str) -> list[dict]:
    """Remove the cells marked with `key` from an executed `notebook`; return what they
    printed, ``{"after", "expression", ...}`` each. Execution counts are numbered again as
    if those cells had not run."""
    results, kept = [], []
    for cell in notebook.cells:
        if not is_evaluating_cell(cell, key):
            kept.append(cell)
            continue
        marks = cell.metadata[METADATA_KEY]
        printed = "".join(o.get("text", "") for o in cell.outputs if o.get("name") == "stdout")
        for expression, result in zip(marks["expressions"], _printed_results(printed)):
            results.append({"after": marks[key], "expression": expression, **result})
    notebook.cells = counted_again(kept)
    return results


def counted_again(cells: list) -> list:
    """`cells`, their execution counts numbered again as if the cells a feature added to
    the notebook, now removed, had not run."""
    count = 0
    for cell in cells:
        if cell.cell_type == "code" and cell.get("execution_count") is not None:
            count += 1
            cell.execution_count = count
    return cells


def _printed_results(printed: str) -> list[dict]:
    for line in printed.splitlines():
        if line.startswith(MARKER):
            return json.loads(line[len(MARKER):])
    return []


def result_entry(results: list[dict] | tuple[dict, ...], after: str,
                 expression: str) -> dict | None:
    """The entry of a run's `results` for `expression` after code cell `after`."""
    return next((r for r in results if r["after"] == after and r["expression"] == expression),
                None)


NOT_EVALUATED_FIX = "run `build.py eval --force` for this section"
"""How to fix an expression the run shown did not evaluate (its record predates it)."""


def expression_findings(written: str, content: str, line: int, in_title: bool,
                        title_fix: str, expression_fix: str) -> list[Finding]:
    """The check of a role holding an expression (`written` is how it reads, e.g.
    ``:eval:`x```): out of titles (a title is shown where no tab is chosen: the table of
    contents, the PDF's bookmarks), and a Python expression."""
    found = []
    if in_title:
        found.append((line, f"{written} in a title", title_fix))
    try:
        compile(content.strip(), f"<{written}>", "eval")
    except SyntaxError as error:
        found.append((line, f"{written} is not a Python expression ({error.msg})",
                      expression_fix))
    return found


def result_problems(section: Section, tab: str, roles: Sequence[PlacedRole],
                    results: Sequence[dict],
                    judge: Callable[[str, dict | None], tuple[str, str] | None]
                    ) -> list[Problem]:
    """A located warning (an error for a strict book) for each of `roles` whose result in
    a tab's run `judge` finds wrong: (message, fix), from the role's expression and its
    result entry (None when the run did not evaluate it)."""
    problems = []
    for role in roles:
        expression = role.content.strip()
        found = judge(expression, result_entry(results, role.after, expression))
        if found is not None:
            problems.append(Problem(section.display_path, role.line, *found, tab, warning=True))
    return problems
