"""Python-level work on code cells, shared by the check and split stages.

`analyse` reads a cell once; its `resolve(tab)` keeps, for one framework, the
branches of ``if tab.selected(...)`` chains that apply to it. The resolution
works on the syntax tree, and edits the original lines (so comments, blank
lines and formatting survive) while remembering where each output line comes
from, so that errors can point at the .md line.
"""
from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass, field

# Cell magics whose body is Python; other cell magics (%%bash...) are opaque.
PYTHON_CELL_MAGICS = {"time", "timeit", "capture", "prun", "debug"}
LINE_MAGIC = re.compile(r"^(\s*)((?:[\w.]+(?:\s*,\s*[\w.]+)*)\s*=\s*)?[!%](.*)$")
TAB_HEADER = re.compile(r"^(\s*)(if|elif)\b.*\btab\.selected\(.*:\s*(#.*)?$")
ELSE_HEADER = re.compile(r"^(\s*)else\s*:\s*(#.*)?$")
IF_HEADER = re.compile(r"^(\s*)(if|elif)\b")
LINE_MENTION = re.compile(r"\bline \d+\b")
COMPILE_FLAGS = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT


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
        return LINE_MENTION.sub(lambda found: f"line {first_line + next(lines)}", self.message) \
            if self.mentioned else self.message


def syntax_issue(error: SyntaxError, origins: list[int]) -> CodeIssue:
    """A syntax error of compiled code whose line N comes from cell line origins[N - 1]."""
    def origin(lineno: int) -> int:
        return origins[min(max(lineno - 1, 0), len(origins) - 1)] if origins else 0
    mentioned = tuple(origin(int(number)) for number in
                      re.findall(r"\bline (\d+)\b", error.msg))
    return CodeIssue(origin(error.lineno or 1), f"does not compile: {error.msg}",
                     "fix the code", mentioned)


@dataclass
class Resolved:
    lines: list[str]
    origins: list[int]
    """For each output line, its 0-based line in the cell's source."""

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def mask_magics(lines: list[str]) -> tuple[list[str], bool]:
    """Replace IPython magics and shell escapes by Python of the same line count.

    Returns the masked lines and whether the cell is Python at all (a ``%%bash``
    cell is not).
    """
    masked = list(lines)
    if masked and masked[0].startswith("%%"):
        name = masked[0][2:].split()[0] if masked[0][2:].split() else ""
        if name not in PYTHON_CELL_MAGICS:
            return masked, False
        masked[0] = ""
    for i, line in enumerate(masked):
        match = LINE_MAGIC.match(line)
        if match:
            indent, assignment = match.group(1), match.group(2)
            masked[i] = f"{indent}{assignment}None" if assignment else f"{indent}pass"
    return masked, True


def _is_tab_call(node: ast.AST) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "selected" and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "tab")


def _is_tab_test(node: ast.AST) -> bool:
    """A condition made only of tab.selected(...) joined by not/and/or."""
    if _is_tab_call(node):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return _is_tab_test(node.operand)
    if isinstance(node, ast.BoolOp):
        return all(_is_tab_test(v) for v in node.values)
    return False


def _tab_names(call: ast.Call) -> tuple[str, ...] | None:
    args = call.args
    if len(args) == 1 and isinstance(args[0], (ast.List, ast.Tuple)):
        args = args[0].elts
    if call.keywords or not args or not all(
            isinstance(a, ast.Constant) and isinstance(a.value, str) for a in args):
        return None
    return tuple(a.value for a in args)


def _evaluate(node: ast.AST, tab: str) -> bool:
    if _is_tab_call(node):
        return tab in (_tab_names(node) or ())
    if isinstance(node, ast.UnaryOp):
        return not _evaluate(node.operand, tab)
    values = [_evaluate(v, tab) for v in node.values]
    return all(values) if isinstance(node.op, ast.And) else any(values)


@dataclass
class _Branch:
    header: int            # 0-based line of `if` / `elif` / `else`
    header_end: int        # last line of the header (the colon)
    body_end: int          # last line of the body, inclusive
    test: ast.AST | None   # None for `else`

    def header_lines(self) -> range:
        return range(self.header, self.header_end + 1)

    def body_lines(self) -> range:
        return range(self.header_end + 1, self.body_end + 1)

    def lines(self) -> range:
        return range(self.header, self.body_end + 1)


@dataclass
class Analysis:
    source_lines: list[str]
    is_python: bool
    tree: ast.Module | None = None
    syntax_error: CodeIssue | None = None
    """An error that no tab can escape (outside any tab.selected branch)."""
    chains: list[list[_Branch]] = field(default_factory=list)
    issues: list[CodeIssue] = field(default_factory=list)
    """Tab-independent misuse: tab.selected outside a condition, bad names..."""
    tab_names: list[tuple[int, str]] = field(default_factory=list)
    """Every name given to tab.selected, with its line, for the check stage."""

    def resolve(self, tab: str) -> Resolved:
        lines = self.source_lines
        dropped: set[int] = set()
        dedent = [0] * len(lines)
        rewritten: dict[int, str] = {}
        for chain in self.chains:
            self._resolve_chain(chain, tab, dropped, dedent, rewritten)
        out, origins = [], []
        for i, line in enumerate(lines):
            if i in dropped:
                continue
            line = rewritten.get(i, line)
            cut = min(dedent[i], _indent(line))
            out.append(line[cut:])
            origins.append(i)
        return Resolved(out, origins)

    def _resolve_chain(self, chain: list[_Branch], tab: str, dropped: set[int],
                       dedent: list[int], rewritten: dict[int, str]) -> None:
        lines = self.source_lines
        header_kept = False   # an `if` of a non-tab condition was kept before
        for number, branch in enumerate(chain):
            value = _branch_value(branch, tab)
            if value is None:       # an ordinary condition: kept, as an `if` if it is first
                if not header_kept:
                    rewritten[branch.header] = re.sub(r"^(\s*)elif\b", r"\1if",
                                                      lines[branch.header])
                header_kept = True
            elif value is False:
                dropped.update(branch.lines())
            else:                   # the branch applies to this tab: the rest is dropped
                self._keep_branch(branch, header_kept, dropped, dedent, rewritten)
                for later in chain[number + 1:]:
                    dropped.update(later.lines())
                return

    def _keep_branch(self, branch: _Branch, header_kept: bool, dropped: set[int],
                     dedent: list[int], rewritten: dict[int, str]) -> None:
        """The branch of a tab's code: after a kept ordinary `if`, it becomes its `else`;
        otherwise its body replaces the whole chain, dedented."""
        lines = self.source_lines
        if header_kept:
            if branch.test is not None:
                indent = lines[branch.header][:_indent(lines[branch.header])]
                rewritten[branch.header_end] = f"{indent}else:"
                dropped.update(range(branch.header, branch.header_end))
            return
        dropped.update(branch.header_lines())
        body_lines = [i for i in branch.body_lines() if lines[i].strip()]
        if body_lines:
            shift = _indent(lines[body_lines[0]]) - _indent(lines[branch.header])
            for i in branch.body_lines():
                dedent[i] += shift


def _branch_value(branch: _Branch, tab: str) -> bool | None:
    """Whether a branch is `tab`'s: True for an `else`, None for an ordinary condition."""
    if branch.test is None:
        return True
    return _evaluate(branch.test, tab) if _is_tab_test(branch.test) else None


def _enclosing_tab_branch(lines: list[str], error_line: int) -> int | None:
    """The header line of the innermost tab.selected branch (or else of a tab chain) that
    holds `error_line`, if any."""
    current = _indent(lines[error_line]) if lines[error_line].strip() else 10 ** 6
    for header in range(error_line - 1, -1, -1):
        line = lines[header]
        if not line.strip() or _indent(line) >= current:
            continue
        current = _indent(line)
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
    indent, body = _indent(lines[header]), header + 1
    end = body
    while end < len(lines) and (not lines[end].strip() or _indent(lines[end]) > indent):
        end += 1
    lines[body:end] = [" " * (indent + 4) + "pass"] + [""] * (end - body - 1)
    return True


def _else_of_tab_chain(lines: list[str], else_line: int) -> bool:
    indent = _indent(lines[else_line])
    for i in range(else_line - 1, -1, -1):
        if lines[i].strip() and _indent(lines[i]) == indent and IF_HEADER.match(lines[i]):
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


def _chain_of(node: ast.If, lines: list[str], elifs: set[int]) -> list[_Branch] | None:
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
            branches.append(_Branch(header, header_end, statement_start(nxt[0]) - 1,
                                    current.test))
            elifs.add(id(nxt[0]))
            current = nxt[0]
            continue
        if not nxt:
            branches.append(_Branch(header, header_end, node.end_lineno - 1, current.test))
            return branches
        else_line = next(i for i in range(statement_start(nxt[0]) - 1, header, -1)
                         if ELSE_HEADER.match(lines[i]))
        branches.append(_Branch(header, header_end, else_line - 1, current.test))
        branches.append(_Branch(else_line, else_line, node.end_lineno - 1, None))
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
               if isinstance(node, ast.If) and _is_tab_test(node.test)
               for n in ast.walk(node.test)}
    for node in ast.walk(tree):
        if not _is_tab_call(node):
            continue
        names = _tab_names(node)
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
        if _is_tab_test(node.test):
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
