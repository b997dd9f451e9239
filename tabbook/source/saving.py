"""d2lbook's ``#@save`` rule, on a cell's code resolved for one tab.

`saved_definitions` says which top-level statements a cell's save marks put
into the library (the library stage writes them, the check stage checks them)
and which marks would write broken code there; `unsaved_rest` finds the code
that a cell's leading ``#@save`` seems to save but does not.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from .branches import CodeIssue, Resolved
from .pycode import mask_magics, statement_start

# d2lbook's save mark, found anywhere on a line; the code before it on that line is kept.
SAVE_MARK = re.compile(r"#\s*@save\b")


@dataclass(frozen=True)
class Saved:
    """One top-level statement of the code a ``#@save`` mark saves (for one tab)."""
    kind: str          # import, function, class, method or statement
    name: str          # the defined name ("" for imports and statements)
    index: int         # 0-based line in the cell's source of the statement's first line
    text: str          # the statement, save marks removed, comments above it included
    target_class: str = ""   # for methods added with @d2l.add_to_class(d2l.X)


def _saved_lines(lines: list[str], mark: int) -> list[int]:
    """The lines a save mark on line `mark` saves, by d2lbook's ``library._save_block`` rule:
    the run of unindented lines after it, then the indented or empty lines after those."""
    saved, j = [], mark + 1
    while j < len(lines) and lines[j] and not lines[j].startswith(" "):
        saved.append(j)
        j += 1
    while j < len(lines) and (not lines[j] or lines[j].startswith(" ")):
        saved.append(j)
        j += 1
    while saved and not lines[saved[-1]].strip():
        saved.pop()
    return saved


def _statement_kind(node: ast.stmt) -> tuple[str, str, str]:
    """(kind, name, target class) of a saved top-level statement."""
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return "import", "", ""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        for decorator in node.decorator_list:
            if isinstance(decorator, ast.Call) and ast.unparse(decorator.func).endswith(
                    "add_to_class") and decorator.args:
                return "method", node.name, ast.unparse(decorator.args[0]).split(".")[-1]
        return "function", node.name, ""
    if isinstance(node, ast.ClassDef):
        return "class", node.name, ""
    return "statement", "", ""


def _saved_code(lines: list[str], mark: int) -> tuple[list[int], list[str]]:
    """The lines a save mark on line `mark` saves and their text, save marks removed (the
    code before a mark on its own line included)."""
    head = lines[mark][:SAVE_MARK.search(lines[mark]).start()].rstrip()
    indices = ([mark] if head else []) + _saved_lines(lines, mark)
    return indices, [SAVE_MARK.sub("", lines[i]).rstrip() if i != mark else head
                     for i in indices]


def _parsed(text: list[str]) -> tuple[ast.Module | None, str, str]:
    """The syntax tree of saved code; or None, what is wrong and how to fix it."""
    if not "\n".join(text).strip():
        return None, "#@save saves nothing: no code follows it", \
            "put #@save at the end of a def/class line, or alone on the line above the code to save"
    if mask_magics(text)[0] != text:
        return None, "#@save would save IPython magics or shell commands into the library", \
            "keep magics out of the saved lines (end them with a blank line)"
    try:
        return ast.parse("\n".join(text)), "", ""
    except SyntaxError as err:
        return None, f"#@save saves code that does not compile on its own ({err.msg})", \
            "put #@save on a top-level line: the end of a def/class line, or alone above the code"


def _statements(tree: ast.Module, text: list[str], lines: list[int]) -> list[Saved]:
    """Each top-level statement of saved code; `lines` are the cell lines of `text`'s."""
    starts = [statement_start(node) for node in tree.body]
    saved = []
    for number, node in enumerate(tree.body):
        first = 0 if number == 0 else starts[number]
        last = starts[number + 1] if number + 1 < len(starts) else len(text)
        kind, name, target = _statement_kind(node)
        body = "\n".join(text[first:last]).rstrip()
        saved.append(Saved(kind, name, lines[starts[number]], body, target))
    return saved


def saved_definitions(resolved: Resolved) -> tuple[list[Saved], list[CodeIssue]]:
    """The statements that the ``#@save`` marks of resolved code save, and the marks that
    would write broken code into the library (d2lbook writes it as is)."""
    saved, issues = [], []
    for mark, line in enumerate(resolved.lines):
        if not SAVE_MARK.search(line):
            continue
        indices, text = _saved_code(resolved.lines, mark)
        tree, message, fix = _parsed(text)
        if tree is None:
            issues.append(CodeIssue(resolved.origins[mark], message, fix))
        else:
            saved += _statements(tree, text, [resolved.origins[i] for i in indices])
    return saved, issues


def unsaved_rest(resolved: Resolved) -> int | None:
    """For a cell whose only save mark is ``#@save`` alone on its first line: the 0-based
    source line of the first code line that d2lbook's rule leaves unsaved (after a blank
    line), if any. Such a cell reads as "save this cell" but is only partly saved."""
    lines = resolved.lines
    marks = [i for i, line in enumerate(lines) if SAVE_MARK.search(line)]
    if marks != [0] or lines[0][:SAVE_MARK.search(lines[0]).start()].strip():
        return None
    covered = set(_saved_lines(lines, 0)) | {0}
    rest = [i for i in range(len(lines)) if i not in covered and lines[i].strip()]
    return resolved.origins[rest[0]] if rest else None
