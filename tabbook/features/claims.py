"""Claims: `` :check:`expression` `` after a sentence about an output guards it (ext).

A claim is evaluated where an ``:eval:`` at its place would be: in the kernel of each
tab whose notebook shows its prose, right after the code cell before it there. It is
shown nowhere (pages, PDF, notebooks, search index) and must be true: a false claim, or
one that raises, is a located problem naming its tab and the values of the names it
uses; our book, built strict, stops on it. So a sentence written against one
framework's outputs cannot be published beside another's that refute it.

Claims are in the cache key (adding one runs its section again) but not in the frozen
key: a prose edit must not discard a GPU run. A frozen run that predates a claim has
not judged it; the claim is listed as not judged, without stopping the build, until the
next ``eval --freeze`` on a GPU judges it. A claim a frozen run refutes stops the build.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from ..bootstrap.records import conforms
from ..core.model import Problem, Section
from . import kernel_cells
from .extension import Feature, Finding, PlacedRole
from .inline_values import notebook_expressions
from .kernel_cells import result_entry

if TYPE_CHECKING:   # the prose parser imports this module: nbformat only when executing
    import nbformat

ROLE = "check"
KEY = "claims"
"""The split notebook's metadata key of the claims it judges."""
RESULTS = "claims"
SHOWN_LENGTH = 80
"""At most this many characters of a name's value in a message."""

DESCRIBE = f"""
def describe(value, expression, namespace):
    import ast, types
    if value:
        return {{'holds': True}}
    names = {{}}
    found = [node for node in ast.walk(ast.parse(expression, mode='eval'))
             if isinstance(node, ast.Name)]
    for node in sorted(found, key=lambda node: node.col_offset):   # as written
        if node.id in namespace and node.id not in names:
            named = namespace[node.id]
            if not isinstance(named, (types.ModuleType, type)) and not callable(named):
                text = str(named)
                names[node.id] = text if len(text) <= {SHOWN_LENGTH} else text[:{SHOWN_LENGTH - 1}] + '…'
    return {{'holds': False, 'names': names}}
"""
"""What the kernel keeps of a claim: whether it holds, and when it does not, the str()
of each name it uses (modules, classes and functions left out)."""


# -- check ---------------------------------------------------------------------------
def check(content: str, line: int, in_title: bool) -> list[Finding]:
    """A claim must be a Python expression, and stay out of titles (a title is shown where
    no tab is chosen, and guards no sentence)."""
    expression, found = content.strip(), []
    if in_title:
        found.append((line, f":{ROLE}:`{expression}` in a title",
                      "put the claim after the sentence it guards, in the text"))
    try:
        compile(expression, f"<:{ROLE}:>", "eval")
    except SyntaxError as error:
        found.append((line, f":{ROLE}:`{expression}` is not a Python expression "
                      f"({error.msg})", "write one expression that is true when the sentence "
                      "before it is"))
    return found


# -- execution -----------------------------------------------------------------------
def with_judging_cells(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """`notebook` (a copy to execute) with a cell judging its claims after each code cell
    they follow (see kernel_cells.py)."""
    return kernel_cells.with_evaluating_cells(notebook, KEY, DESCRIBE)


def is_judging_cell(cell: Mapping) -> bool:
    return kernel_cells.is_evaluating_cell(cell, KEY)


def collect_judgements(notebook: nbformat.NotebookNode) -> list[dict]:
    """Remove the judging cells of an executed `notebook`; return their judgements,
    ``{"after", "expression", "holds" (and "names") or "error"}`` each."""
    return kernel_cells.collect_evaluated(notebook, KEY)


def is_judgement(item: object) -> bool:
    """A judgement as a record keeps it."""
    if not conforms(item, {"after": str, "expression": str}):
        return False
    if "error" in item:
        return isinstance(item["error"], str)
    return isinstance(item.get("holds"), bool) and isinstance(item.get("names", {}), dict)


def judged(role: PlacedRole, judgements: Sequence[dict]) -> bool:
    """Whether a run's `judgements` hold the judgement of `role`."""
    return result_entry(judgements, role.after, role.content.strip()) is not None


# -- problems --------------------------------------------------------------------------
def claim_problems(section: Section, tab: str, roles: Sequence[PlacedRole],
                   judgements: Sequence[dict]) -> list[Problem]:
    """Each claim of `section` for `tab` that its run refutes, could not evaluate, or did
    not judge. Warnings, which our book, built strict, makes errors."""
    problems = []
    for role in roles:
        expression = role.content.strip()
        entry = result_entry(judgements, role.after, expression)
        if entry is not None and entry.get("holds"):
            continue
        if entry is None:
            message = f"claim not judged by the run shown: {expression}"
            fix = "run `build.py eval --force` for this section"
        elif "error" in entry:
            message = f"claim failed: {expression} raised {entry['error']}"
            fix = ("make the expression valid in this tab: the code cells before it, in this "
                   "tab's notebook, define the names it uses")
        else:
            values = ", ".join(f"{name} = {value}" for name, value in entry["names"].items())
            message = f"claim false: {expression}" + (f" (with {values})" if values else "")
            fix = ("rewrite the sentence it guards so that this tab's outputs bear it out, or "
                   "put it in a :begin_tab: block for the tabs where it holds")
        problems.append(Problem(section.display_path, role.line, message, fix, tab,
                                warning=True))
    return problems


def hidden(content: str, *where: object) -> str:
    """A claim is shown nowhere: pages, PDF, notebooks."""
    return ""


CLAIMS = Feature(
    key=KEY, roles=(ROLE,), check=check, annotate=notebook_expressions,
    prepare=with_judging_cells, collect=collect_judgements, added_cell=is_judging_cell,
    results_key=RESULTS, is_result=is_judgement, problems=claim_problems,
    counted=("claim", "false, failing or not judged",
             "the pages show the sentences they guard all the same"),
    in_frozen_key=False, judged=judged,
    render_html=hidden, render_markdown=hidden, render_launch_markdown=hidden)
