"""Claims: `` :check:`expression` `` after a sentence about an output guards it (ext).

A claim is evaluated where an ``:eval:`` at its place would be: in the kernel of each
tab whose notebook shows its prose, right after the code cell before it there. It is
shown nowhere (pages, PDF, notebooks, search index) and must be true: a false claim, or
one that raises, is a located problem naming its tab and the values of the names it
uses; our book, built strict, stops on it. So a sentence written against one
framework's outputs cannot be published beside another's that refute it.

Claims are in the cache key (adding one judges it on the values its section's last run
recorded, or runs the section again: features/recorded_values.py) but not in the frozen
key: a prose edit must not discard a GPU run. A frozen run that predates a claim has
not judged it: the claim is judged on the values that run recorded, or, where it cannot
be (a run older than that, an expression that reads more), listed as not judged, without
stopping the build, until the next ``eval --freeze`` on a GPU judges it. A claim a frozen
run refutes stops the build.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from ..bootstrap.records import conforms
from ..core.model import Problem, Section
from . import kernel_cells
from .extension import Feature, Finding, PlacedRole
from .inline_values import notebook_expressions
from .kernel_cells import (NOT_EVALUATED_FIX, expression_findings, result_entry,
                           result_problems)

if TYPE_CHECKING:   # the prose parser imports this module: nbformat only when executing
    import nbformat

ROLE = "check"
KEY = "claims"
"""The split notebook's metadata key of the claims it judges."""
RESULTS = "claims"
SHOWN_LENGTH = 80
"""At most this many characters of a name's value in a message."""

MARGIN = """
def margin(node, namespace):
    import ast, math
    def number(node):
        value = eval(compile(ast.Expression(node), '<claim>', 'eval'), namespace)
        return None if isinstance(value, bool) else float(value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return margin(node.operand, namespace) if isinstance(node.operand, ast.Compare) else math.inf
    if isinstance(node, ast.BoolOp):
        held = []
        for operand in node.values:
            try:
                holds = bool(eval(compile(ast.Expression(operand), '<claim>', 'eval'), namespace))
            except Exception:
                holds = False
            held.append((margin(operand, namespace), holds))
        if isinstance(node.op, ast.And):
            return min(found for found, _ in held)
        return max((found for found, holds in held if holds), default=math.inf)
    if not isinstance(node, ast.Compare):
        return math.inf
    try:
        values = [number(side) for side in (node.left, *node.comparators)]
    except Exception:
        return math.inf
    found = [abs(a - b) / max(abs(a), abs(b))
             for a, b, op in zip(values, values[1:], node.ops)
             if isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE))
             and a is not None and b is not None and a != b]
    return min(found, default=math.inf)
"""
"""Kernel side: how far, relatively, a claim that holds is from turning false: for a
numeric comparison a < b (<=, >, >=), |a - b| / max(|a|, |b|); the least of an `and`'s
operands, the most of an `or`'s that hold; infinite for anything else (a flag, a call,
an equality, two sides equal by construction). A timing compared with a margin of a few
per cent is one noisy run away from refuting its sentence."""
NARROW = 0.1
"""A claim that holds by less than this margin is listed (never an error): compare
against a bound the noise allows, or write each outcome as a `:begin_if:` variant."""

DESCRIBE = f"""
def describe(value, expression, namespace):
    import ast, math, types
    if value:
        try:
            found = margin(ast.parse(expression, mode='eval').body, namespace)
        except Exception:   # a margin is a hint: never a claim's failure
            found = math.inf
        return {{'holds': True}} if math.isinf(found) else {{'holds': True, 'margin': round(found, 4)}}
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
"""What the kernel keeps of a claim: whether it holds, and its margin (see MARGIN) where
that is a number; when it does not hold, the str() of each name it uses (modules,
classes and functions left out)."""


# -- check ---------------------------------------------------------------------------
def check(content: str, line: int, in_title: bool) -> list[Finding]:
    """A claim must be a Python expression, and stay out of titles (where it guards no
    sentence)."""
    return expression_findings(f":{ROLE}:`{content.strip()}`", content, line, in_title,
                               "put the claim after the sentence it guards, in the text",
                               "write one expression that is true when the sentence before "
                               "it is")


# -- execution -----------------------------------------------------------------------
def with_judging_cells(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """`notebook` (a copy to execute) with a cell judging its claims after each code cell
    they follow (see kernel_cells.py)."""
    return kernel_cells.with_evaluating_cells(notebook, KEY, MARGIN + DESCRIBE)


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
    return (isinstance(item.get("holds"), bool) and isinstance(item.get("names", {}), dict)
            and isinstance(item.get("margin", 0.0), (int, float)))


def judged(role: PlacedRole, judgements: Sequence[dict]) -> bool:
    """Whether a run's `judgements` hold the judgement of `role`."""
    return result_entry(judgements, role.after, role.content.strip()) is not None


# -- problems --------------------------------------------------------------------------
def claim_problems(section: Section, tab: str, roles: Sequence[PlacedRole],
                   judgements: Sequence[dict]) -> list[Problem]:
    """Each claim of `section` for `tab` that its run refutes, could not evaluate, or did
    not judge. Warnings, which our book, built strict, makes errors."""
    def judge(expression: str, entry: dict | None) -> tuple[str, str] | None:
        if entry is None:
            return f"claim not judged by the run shown: {expression}", NOT_EVALUATED_FIX
        if "error" in entry:
            return (f"claim failed: {expression} raised {entry['error']}",
                    "make the expression valid in this tab: the code cells before it, in this "
                    "tab's notebook, define the names it uses")
        if entry["holds"]:
            return None
        values = ", ".join(f"{name} = {value}" for name, value in entry["names"].items())
        return (f"claim false: {expression}" + (f" (with {values})" if values else ""),
                "rewrite the sentence it guards so that this tab's outputs bear it out, or "
                "put it in a :begin_tab: block for the tabs where it holds")
    return result_problems(section, tab, roles, judgements, judge)


def narrow_claims(section: Section, tab: str, roles: Sequence[PlacedRole],
                  judgements: Sequence[dict]) -> list[Problem]:
    """Each claim of `section` for `tab` that its run bears out by less than NARROW: a
    note, never an error (a GPU run, or a quiet machine, may well widen it)."""
    def judge(expression: str, entry: dict | None) -> tuple[str, str] | None:
        if entry is None or not entry.get("holds") or entry.get("margin", NARROW) >= NARROW:
            return None
        return (f"note: claim holds narrowly: {expression} (by {100 * entry['margin']:.1f} %)",
                "compare against a bound that run-to-run noise allows, or write each outcome "
                "as a :begin_if: variant")
    return [replace(note, warning=False)
            for note in result_problems(section, tab, roles, judgements, judge)]


def hidden(content: str, *where: object) -> str:
    """A claim is shown nowhere: pages, PDF, notebooks."""
    return ""


CLAIMS = Feature(
    key=KEY, roles=(ROLE,), check=check, annotate=notebook_expressions,
    prepare=with_judging_cells, collect=collect_judgements, added_cell=is_judging_cell,
    results_key=RESULTS, is_result=is_judgement, problems=claim_problems,
    counted=("claim", "false, failing or not judged",
             "the pages show the sentences they guard all the same"),
    notes=narrow_claims,
    noted=("claim", f"with a margin under {100 * NARROW:g} %",
           "a noisier run could refute them"),
    in_frozen_key=False, judged=judged,
    render_html=hidden, render_markdown=hidden, render_launch_markdown=hidden)
