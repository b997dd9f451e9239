"""The book's math, LaTeX -> MathML, converted once for the check and HTML stages.

Pages show math as MathML made at build time by latex2mathml. What it cannot
read would reach readers as a red box or, worse, silently: an unknown command
is shown as its name, an unclosed brace is closed at the end. `to_mathml` says
so, and the check stage reports it at its line.
"""
from __future__ import annotations

import functools
import re

# latex2mathml writes a command it does not know as text: <mi>\foobar</mi>.
UNKNOWN_COMMAND = re.compile(r">(\\[A-Za-z]+)<")
BRACE = re.compile(r"\\.|[{}]", re.S)


def _braces_problem(latex: str) -> str | None:
    depth = 0
    for found in BRACE.finditer(latex):
        depth += {"{": 1, "}": -1}.get(found.group(0), 0)
        if depth < 0:
            return "a '}' closes no '{'"
    return "a '{' is never closed" if depth else None


def _reason(error: Exception) -> str:
    """``MissingSuperScriptOrSubscriptError()`` -> ``missing super script or subscript``."""
    words = re.sub(r"(?<!^)(?=[A-Z])", " ", type(error).__name__).lower()
    words = words.removesuffix(" error")
    return f"{words}: {error}" if str(error) else words


@functools.lru_cache(maxsize=8192)   # the check and HTML stages convert the same formulas
def to_mathml(latex: str, display: bool) -> tuple[str | None, str | None]:
    """The MathML of a formula (None if it cannot be converted), and what is wrong with the
    formula as written (None if nothing)."""
    # Imported here: a command whose sections are all parsed already converts nothing,
    # and latex2mathml's import takes 0.05 to 0.1 s.
    from latex2mathml.converter import convert

    problem = _braces_problem(latex)
    try:
        mathml = convert(latex.strip(), display="block" if display else "inline")
    except Exception as error:   # latex2mathml raises many types, with no common base
        return None, problem or f"cannot be read ({_reason(error)})"
    unknown = UNKNOWN_COMMAND.search(mathml)
    if problem is None and unknown:
        problem = f"unknown command {unknown.group(1)} (shown as text)"
    return mathml, problem
