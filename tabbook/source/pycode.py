"""Python-level work on code cells, shared by the check and split stages.

`analyse` reads a cell once: its syntax tree, its ``if tab.selected(...)`` chains and
their misuse. Its `resolve(tab)` keeps, for one framework, the branches that apply to it
(`branches`): the original lines are edited (so comments, blank lines and formatting
survive) and each output line remembers where it comes from, so that errors can point
at the .md line.
"""
from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass, field

from ..core.model import Cell
from .branches import (TAB_MARK, Branch, CodeIssue, Difference, Resolved, d2lbook_reading,
                       difference, indent, is_tab_call, is_tab_test, plan, python_reading,
                       tab_names)
from .magics import cell_magic

# Cell magics whose body is Python; other cell magics (%%bash...) are opaque.
PYTHON_CELL_MAGICS = {"time", "timeit", "capture", "prun", "debug"}
LINE_MAGIC = re.compile(r"^(\s*)((?:[\w.]+(?:\s*,\s*[\w.]+)*)\s*=\s*)?[!%](.*)$")
TAB_HEADER = re.compile(r"^(\s*)(if|elif)\b.*\btab\.selected\(.*:\s*(#.*)?$")
ELSE_HEADER = re.compile(r"^(\s*)else\s*:\s*(#.*)?$")
IF_HEADER = re.compile(r"^(\s*)(if|elif)\b")
COMPILE_FLAGS = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT


def syntax_issue(error: SyntaxError, origins: list[int]) -> CodeIssue:
    """A syntax error of compiled code whose line N comes from cell line origins[N - 1]."""
    def origin(lineno: int) -> int:
        return origins[min(max(lineno - 1, 0), len(origins) - 1)] if origins else 0
    mentioned = tuple(origin(int(number)) for number in
                      re.findall(r"\bline (\d+)\b", error.msg))
    return CodeIssue(origin(error.lineno or 1), f"does not compile: {error.msg}",
                     "fix the code", mentioned)


def mask_magics(lines: list[str]) -> tuple[list[str], bool]:
    """Replace IPython magics and shell escapes by Python of the same line count.

    Returns the masked lines and whether the cell is Python at all (a ``%%bash``
    cell is not).
    """
    masked = ["" if TAB_MARK.match(line.strip()) else line for line in lines]
    magic = cell_magic(lines)
    if magic:
        if magic.name not in PYTHON_CELL_MAGICS:
            return masked, False
        masked[magic.index] = ""
    for i, line in enumerate(masked):
        match = LINE_MAGIC.match(line)
        if match:
            pad, assignment = match.group(1), match.group(2)
            masked[i] = f"{pad}{assignment}None" if assignment else f"{pad}pass"
    return masked, True


@dataclass
class Analysis:
    source_lines: list[str]
    is_python: bool
    tree: ast.Module | None = None
    syntax_error: CodeIssue | None = None
    """An error that no tab can escape (outside any tab.selected branch)."""
    chains: list[list[Branch]] = field(default_factory=list)
    issues: list[CodeIssue] = field(default_factory=list)
    """Tab-independent misuse: tab.selected outside a condition, bad names..."""
    tab_names: list[tuple[int, str]] = field(default_factory=list)
    """Every name given to tab.selected, with its line, for the check stage."""

    def resolve(self, tab: str) -> Resolved:
        """The cell's code for `tab`. Where d2lbook's line-by-line reading of the branches
        gives other code than Python's nesting, d2lbook's is taken if it compiles (books
        rely on it), Python's otherwise; either way the `note` says where they part."""
        steps = plan(self.source_lines, self.chains, tab)
        python = python_reading(self.source_lines, steps)
        if not self.chains:
            return python
        d2lbook = d2lbook_reading(self.source_lines, steps)
        parted = difference(steps, python, d2lbook)
        if parted is None:
            return python
        follow = _compile_error(d2lbook.text) is None
        chosen = d2lbook if follow else python
        chosen.note = _misleading(parted, self.source_lines, follow)
        return chosen


def _misleading(parted: Difference, lines: list[str], followed: bool) -> CodeIssue:
    """The warning where d2lbook reads a cell's branches otherwise than Python."""
    outcome = "this build does as d2lbook" if followed else \
        "its code does not compile, so this build follows Python's nesting"
    detail, mentioned = parted.detail(lines, followed)
    return CodeIssue(parted.header, "the indentation of this branch is misleading: d2lbook "
                     "reads tab.selected branches line by line (it drops the if line and "
                     f"dedents the lines below it by one level) and {detail}; {outcome}",
                     "don't nest tab.selected branches: give each set of tabs a branch of "
                     "its own, with all its code at the indentation it is meant to have",
                     mentioned)


def _enclosing_tab_branch(lines: list[str], error_line: int) -> int | None:
    """The header line of the innermost tab.selected branch (or else of a tab chain) that
    holds `error_line`, if any."""
    current = indent(lines[error_line]) if lines[error_line].strip() else 10 ** 6
    for header in range(error_line - 1, -1, -1):
        line = lines[header]
        if not line.strip() or indent(line) >= current:
            continue
        current = indent(line)
        if TAB_HEADER.match(line) or (ELSE_HEADER.match(line) and _else_of_tab_chain(lines, header)):
            return header
    return None


def _blank_broken_branch(lines: list[str], error_line: int) -> bool:
    """Neutralise the tab.selected branch holding a syntax error, if there is one.

    The error then belongs only to the tabs that keep that branch: their
    resolved code still holds the original lines and fails to compile.
    """
    header = _enclosing_tab_branch(lines, error_line) if 0 <= error_line < len(lines) else None
    if header is None:
        return False
    depth, body = indent(lines[header]), header + 1
    end = body
    while end < len(lines) and (not lines[end].strip() or indent(lines[end]) > depth):
        end += 1
    lines[body:end] = [" " * (depth + 4) + "pass"] + [""] * (end - body - 1)
    return True


def _else_of_tab_chain(lines: list[str], else_line: int) -> bool:
    depth = indent(lines[else_line])
    for i in range(else_line - 1, -1, -1):
        if lines[i].strip() and indent(lines[i]) == depth and IF_HEADER.match(lines[i]):
            return bool(TAB_HEADER.match(lines[i]))
    return False


def _parse_with_recovery(masked: list[str]) -> tuple[ast.Module | None, CodeIssue | None]:
    lines = list(masked)
    for _ in range(len(lines) + 1):
        try:
            return ast.parse("\n".join(lines)), None
        except SyntaxError as err:
            if not _blank_broken_branch(lines, (err.lineno or 1) - 1):
                return None, syntax_issue(err, list(range(len(lines))))
    return None, None


def statement_start(node: ast.stmt) -> int:
    """0-based line where a statement starts: its first decorator, or itself."""
    decorators = getattr(node, "decorator_list", [])
    return min([node.lineno] + [d.lineno for d in decorators]) - 1


def _chain_of(node: ast.If, lines: list[str], elifs: set[int]) -> list[Branch] | None:
    branches = []
    current: ast.If = node
    while True:
        header = current.lineno - 1
        header_end = current.test.end_lineno - 1
        if current.body[0].lineno - 1 == header_end:
            return None
        nxt = current.orelse
        if len(nxt) == 1 and isinstance(nxt[0], ast.If) and \
                lines[nxt[0].lineno - 1].lstrip().startswith("elif"):
            branches.append(Branch(header, header_end, statement_start(nxt[0]) - 1,
                                    current.test))
            elifs.add(id(nxt[0]))
            current = nxt[0]
            continue
        if not nxt:
            branches.append(Branch(header, header_end, node.end_lineno - 1, current.test))
            return branches
        else_line = next(i for i in range(statement_start(nxt[0]) - 1, header, -1)
                         if ELSE_HEADER.match(lines[i]))
        branches.append(Branch(header, header_end, else_line - 1, current.test))
        branches.append(Branch(else_line, else_line, node.end_lineno - 1, None))
        return branches


@functools.lru_cache(maxsize=None)
def analyse(source: str) -> Analysis:
    """Read one code cell: its tab.selected chains and their misuse.

    Cached: the check, split and library stages all read the same cells.
    """
    lines = source.split("\n")
    masked, is_python = mask_magics(lines)
    analysis = Analysis(lines, is_python)
    if not is_python:
        return analysis
    tree, error = _parse_with_recovery(masked)
    analysis.tree, analysis.syntax_error = tree, error
    if tree is None or "selected" not in source:   # no tab.selected: nothing to walk for
        return analysis
    _find_chains(analysis, tree, lines)
    _check_tab_calls(analysis, tree)
    return analysis


def resolve_code(source: str, tab: str) -> Resolved:
    """`analyse(source).resolve(tab)`; a cell without tab.selected has no branch to choose,
    so it is not parsed (the split and library stages read every cell of the book, whose
    parsing the section cache spared the check)."""
    if "selected" not in source:
        return Analysis(source.split("\n"), is_python=True).resolve(tab)
    return analyse(source).resolve(tab)


def cell_code(cell: Cell, tab: str) -> Resolved:
    """`resolve_code` of a code `cell` for `tab`, kept in the cell (`Cell.resolved`)."""
    if tab not in cell.resolved:
        cell.resolved[tab] = resolve_code(cell.source, tab)
    return cell.resolved[tab]


def _find_chains(analysis: Analysis, tree: ast.AST, lines: list[str]) -> None:
    """The if/elif/else chains whose conditions are tab.selected tests."""
    elifs: set[int] = set()
    for node in ast.walk(tree):   # walk order: an `if` comes before its `elif`s
        if isinstance(node, ast.If) and id(node) not in elifs and _chain_has_tab_test(node, lines):
            chain = _chain_of(node, lines, elifs)
            if chain is None:
                analysis.issues.append(CodeIssue(
                    node.lineno - 1, "a tab.selected branch has its body on the header line",
                    "put the body on the next lines"))
            else:
                analysis.chains.append(chain)


def _check_tab_calls(analysis: Analysis, tree: ast.AST) -> None:
    """Every tab.selected call names tabs literally, inside an if/elif condition."""
    allowed = {id(n) for node in ast.walk(tree)
               if isinstance(node, ast.If) and is_tab_test(node.test)
               for n in ast.walk(node.test)}
    for node in ast.walk(tree):
        if not is_tab_call(node):
            continue
        names = tab_names(node)
        if names is None:
            analysis.issues.append(CodeIssue(
                node.lineno - 1, "tab.selected takes tab names as string literals",
                "write tab.selected('pytorch') or tab.selected('mxnet', 'tensorflow')"))
        else:
            analysis.tab_names.extend((node.lineno - 1, name) for name in names)
        if id(node) not in allowed:
            analysis.issues.append(CodeIssue(
                node.lineno - 1, "tab.selected is used outside an if/elif condition",
                "write `if tab.selected(...):` with the code of each framework in its branch"))


def _chain_has_tab_test(node: ast.If, lines: list[str]) -> bool:
    while True:
        if is_tab_test(node.test):
            return True
        nxt = node.orelse
        if len(nxt) == 1 and isinstance(nxt[0], ast.If) and \
                lines[nxt[0].lineno - 1].lstrip().startswith("elif"):
            node = nxt[0]
        else:
            return False


def compile_issue(resolved: Resolved) -> CodeIssue | None:
    """The first syntax error of the resolved code, at its line in the cell."""
    error = _compile_error(resolved.text)
    return None if error is None else syntax_issue(error, resolved.origins)


@functools.lru_cache(maxsize=None)
def _compile_error(text: str) -> SyntaxError | None:
    """The syntax error of a cell's code, None if it compiles. Cached: a cell without
    tab.selected is the same code in every tab."""
    masked, is_python = mask_magics(text.split("\n"))
    if not is_python:
        return None
    try:
        compile("\n".join(masked), "<cell>", "exec", flags=COMPILE_FLAGS, dont_inherit=True)
    except SyntaxError as err:
        return err
    return None
