"""The ``if tab.selected(...)`` branches of a cell resolved for one tab, read two ways.

`plan` decides, on the syntax tree's chains, which branches a tab keeps (``else`` and
``not`` as Python means them) and which header lines go. Two readings then apply it to
the cell's lines: `python_reading` follows Python's nesting (a kept branch's body is
dedented by its own indentation, nested branches add up); `d2lbook_reading` follows
d2lbook's ``notebook._clean_if_branches``, which reads lines: a tab header opens a branch
that runs over the lines indented deeper than it, a nested header takes over until its
own branch ends, and a kept line is dedented by one level only. Where both readings give
the same code (blank lines aside), nothing is said; `difference` names the first line
where they part, for the warning.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

# A cell's tab mark, alone on its line: `%%tab pytorch` or d2lbook's older `#@tab pytorch`.
TAB_MARK = re.compile(r"^(?:%%tab|#\s*@tab)(?:\s+(.*))?$")
LINE_MENTION = re.compile(r"\bline \d+\b")


@dataclass(frozen=True)
class CodeIssue:
    """A problem at line `index` (0-based) of the cell's source."""
    index: int
    message: str
    fix: str
    mentioned: tuple[int, ...] = ()
    """The 0-based cell lines of the lines that `message` names, in order (Python's
    ``detected at line 3`` counts from the compiled code's first line)."""

    def located(self, first_line: int) -> str:
        """The message, the lines it names given as .md lines (the cell's is `first_line`)."""
        lines = iter(self.mentioned)
        return LINE_MENTION.sub(lambda found: f"line {first_line + next(lines)}",
                                self.message) if self.mentioned else self.message


@dataclass
class Resolved:
    lines: list[str]
    origins: list[int]
    """For each output line, its 0-based line in the cell's source."""
    note: CodeIssue | None = None
    """A warning: d2lbook's line-by-line reading of the branches differs from Python's."""

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def is_tab_call(node: ast.AST) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "selected" and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "tab")


def is_tab_test(node: ast.AST) -> bool:
    """A condition made only of tab.selected(...) joined by not/and/or."""
    if is_tab_call(node):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return is_tab_test(node.operand)
    if isinstance(node, ast.BoolOp):
        return all(is_tab_test(v) for v in node.values)
    return False


def tab_names(call: ast.Call) -> tuple[str, ...] | None:
    args = call.args
    if len(args) == 1 and isinstance(args[0], (ast.List, ast.Tuple)):
        args = args[0].elts
    if call.keywords or not args or not all(
            isinstance(a, ast.Constant) and isinstance(a.value, str) for a in args):
        return None
    return tuple(a.value for a in args)


def _evaluate(node: ast.AST, tab: str) -> bool:
    if is_tab_call(node):
        return tab in (tab_names(node) or ())
    if isinstance(node, ast.UnaryOp):
        return not _evaluate(node.operand, tab)
    values = [_evaluate(v, tab) for v in node.values]
    return all(values) if isinstance(node.op, ast.And) else any(values)


@dataclass
class Branch:
    header: int            # 0-based line of `if` / `elif` / `else`
    header_end: int        # last line of the header (the colon)
    body_end: int          # last line of the body, inclusive
    test: ast.AST | None   # None for `else`

    def header_lines(self) -> range:
        return range(self.header, self.header_end + 1)

    def body_lines(self) -> range:
        return range(self.header_end + 1, self.body_end + 1)


@dataclass(frozen=True)
class Body:
    """What a tab does with one branch's body."""
    branch: Branch
    kept: bool
    shift: int = 0         # how far its lines move left (kept bodies only)
    ordinary: bool = False
    """A kept branch of an ordinary condition (``if x > 0:``): its header stays, and for
    d2lbook it is code like any other, not a tab branch."""


@dataclass
class Plan:
    """What resolving one tab does to a cell's lines."""
    removed: set[int] = field(default_factory=set)
    """Lines that no reading keeps: tab headers, the tab marks of d2lbook's older dialect."""
    rewritten: dict[int, str] = field(default_factory=dict)
    bodies: list[Body] = field(default_factory=list)


def plan(lines: list[str], chains: list[list[Branch]], tab: str) -> Plan:
    """The branches `tab` keeps, in every chain of the cell, and the tab marks to drop."""
    result = Plan({i for i, line in enumerate(lines) if TAB_MARK.match(line.strip())})
    for chain in chains:
        _plan_chain(lines, chain, tab, result)
    return result


def _plan_chain(lines: list[str], chain: list[Branch], tab: str, result: Plan) -> None:
    header_kept = False   # an `if` of a non-tab condition was kept before
    for number, branch in enumerate(chain):
        value = _branch_value(branch, tab)
        if value is None:       # an ordinary condition: kept, as an `if` if it is first
            if not header_kept:
                result.rewritten[branch.header] = re.sub(r"^(\s*)elif\b", r"\1if",
                                                         lines[branch.header])
            header_kept = True
            result.bodies.append(Body(branch, True, ordinary=True))
        elif value is False:
            result.removed.update(branch.header_lines())
            result.bodies.append(Body(branch, False))
        else:                   # the branch applies to this tab: the rest is dropped
            _keep_branch(lines, branch, header_kept, result)
            for later in chain[number + 1:]:
                result.removed.update(later.header_lines())
                result.bodies.append(Body(later, False))
            return


def _keep_branch(lines: list[str], branch: Branch, header_kept: bool, result: Plan) -> None:
    """The branch of a tab's code: after a kept ordinary `if`, it becomes its `else`;
    otherwise its body replaces the whole chain, dedented."""
    if header_kept:
        if branch.test is not None:
            pad = lines[branch.header][:indent(lines[branch.header])]
            result.rewritten[branch.header_end] = f"{pad}else:"
            result.removed.update(range(branch.header, branch.header_end))
        result.bodies.append(Body(branch, True))
        return
    result.removed.update(branch.header_lines())
    body_lines = [i for i in branch.body_lines() if lines[i].strip()]
    shift = indent(lines[body_lines[0]]) - indent(lines[branch.header]) if body_lines else 0
    result.bodies.append(Body(branch, True, shift))


def _branch_value(branch: Branch, tab: str) -> bool | None:
    """Whether a branch is `tab`'s: True for an `else`, None for an ordinary condition."""
    if branch.test is None:
        return True
    return _evaluate(branch.test, tab) if is_tab_test(branch.test) else None


def _cut(line: str, by: int) -> str:
    return line[min(by, indent(line)):]


def python_reading(lines: list[str], steps: Plan) -> Resolved:
    """The code for the tab by Python's nesting: a branch's body goes with its header."""
    dropped = set(steps.removed)
    dedent = [0] * len(lines)
    for body in steps.bodies:
        if not body.kept:
            dropped.update(body.branch.body_lines())
        else:
            for i in body.branch.body_lines():
                dedent[i] += body.shift
    kept = [i for i in range(len(lines)) if i not in dropped]
    return Resolved([_cut(steps.rewritten.get(i, lines[i]), dedent[i]) for i in kept], kept)


def d2lbook_reading(lines: list[str], steps: Plan) -> Resolved:
    """The code for the tab as d2lbook reads the branches, line by line.

    A tab header (any branch but a kept ordinary one) opens a branch that runs until a
    line indented as much as the header or less; the last header seen decides alone
    whether a line is kept, and a kept line moves left by that branch's shift, once."""
    opened = {body.branch.header_end: body for body in steps.bodies if not body.ordinary}
    current: Body | None = None
    out, origins = [], []
    for i, line in enumerate(lines):
        if TAB_MARK.match(line.strip()):
            continue
        if current and line.strip() and indent(line) <= indent(lines[current.branch.header]):
            current = None
        if i not in steps.removed and (current is None or current.kept):
            out.append(_cut(steps.rewritten.get(i, line), current.shift if current else 0))
            origins.append(i)
        current = opened.get(i, current)
    return Resolved(out, origins)


@dataclass(frozen=True)
class Difference:
    """The first line that d2lbook's reading puts elsewhere than Python's nesting."""
    line: int
    header: int
    """The header of the tab branch d2lbook reads the line in (the last one above it)."""
    theirs: Resolved
    ours: Resolved

    def detail(self, lines: list[str], compiles: bool) -> tuple[str, tuple[int, ...]]:
        """What d2lbook does with the line, in words, and the lines the words name (where
        d2lbook's code does not compile, its blocks mean nothing: the indentation is said)."""
        line = self.line
        if line not in self.ours.origins or line not in self.theirs.origins:
            what = "keeps line {}, which Python's nesting drops" if line in \
                self.theirs.origins else "drops line {}, which Python's nesting keeps"
            return what.format(line), (line,)
        if compiles:
            inside, python_inside = _block(self.theirs, line), _block(self.ours, line)
            return (f"puts line {line} {_where(inside, lines)}, where Python's nesting puts "
                    f"it {_where(python_inside, lines)}",
                    tuple(i for i in (line, inside, python_inside) if i is not None))
        return (f"indents line {line} by {_depth(self.theirs, line)} spaces, where Python's "
                f"nesting indents it by {_depth(self.ours, line)}"), (line,)


def difference(steps: Plan, python: Resolved, d2lbook: Resolved) -> Difference | None:
    """Where the two readings part (blank lines aside), None where they give the same code."""
    ours, theirs = _code_lines(python), _code_lines(d2lbook)
    parted = [i for i in sorted(ours.keys() | theirs.keys()) if ours.get(i) != theirs.get(i)]
    if not parted:
        return None
    header = max((b.branch.header for b in steps.bodies
                  if not b.ordinary and b.branch.header < parted[0]), default=parted[0])
    return Difference(parted[0], header, d2lbook, python)


def _code_lines(resolved: Resolved) -> dict[int, str]:
    """Source line -> output line, for the lines that are not blank."""
    return {o: text for o, text in zip(resolved.origins, resolved.lines) if text.strip()}


def _depth(resolved: Resolved, line: int) -> int:
    return indent(resolved.lines[resolved.origins.index(line)])


def _block(resolved: Resolved, line: int) -> int | None:
    """The source line of the block that holds `line` in `resolved` (None: the top level)."""
    position = resolved.origins.index(line)
    depth = indent(resolved.lines[position])
    for text, origin in zip(reversed(resolved.lines[:position]),
                            reversed(resolved.origins[:position])):
        if text.strip() and indent(text) < depth:
            return origin
    return None


def _where(block: int | None, lines: list[str]) -> str:
    if block is None:
        return "at the cell's top level"
    opener = lines[block].strip()
    if LINE_MENTION.search(opener):   # would be taken for a line the message names
        return f"in the block of line {block}"
    return f"in the block of line {block} ({opener if len(opener) <= 40 else opener[:37] + '...'})"
