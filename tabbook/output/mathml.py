"""Math of the prose as MathML, made at build time (pages need no script for it).

latex2mathml converts (`source/latex.py`, shared with the check); here the result
is fitted to the page: display math in display style (large operators, limits
above and below), and in a French book a comma between two digits is a decimal
separator, one number with no space after it (LaTeX's ``{,}``), and a word in upright
letters (``\\mathrm{arrondi}``) is one identifier, not one per letter (``\\text{…}`` is
one ``<mtext>``, ``\\operatorname{…}`` one ``<mo>`` already). The site and the
PDF draw it with the math font they ship (assets/fonts, book.css).
"""
from __future__ import annotations

import html
import re
from collections.abc import Sequence

from markdown_it.token import Token

from ..core.language import Language
from ..source.latex import to_mathml

DECIMAL_COMMA = re.compile(r"<mn>(\d+)</mn>(<mrow>)?<mo>&#x0002C;</mo>(?(2)</mrow>)<mn>(\d+)")
"""A comma between two digits, as latex2mathml writes it (``0,001`` or ``0{,}001``)."""

LIMITS_OPERATORS = ("&#x02211;", "&#x0220F;", "&#x02210;", "&#x022C3;", "&#x022C2;",
                    "&#x02A01;", "&#x02A02;", "lim", "max", "min", "sup", "inf", "argmax",
                    "argmin")
"""Operators whose limits go below and above them in display math (not the integrals)."""
UPRIGHT_LETTERS = re.compile(r'(?:<mi mathvariant="normal">[^<]</mi>){2,}')
"""A word in upright letters (``\\mathrm{arrondi}``), which latex2mathml writes one
identifier per letter: screen readers would spell it out."""
UPRIGHT_LETTER = re.compile(r'<mi mathvariant="normal">([^<])</mi>')
SCRIPTS_TO_LIMITS = {"msub": "munder", "msup": "mover", "msubsup": "munderover"}
"""latex2mathml sometimes writes a sum's limits as scripts (inside ``\\left( \\right)``)."""

WRAPPERS = {"math_inline": ('<span class="math inline">', "</span>", False),
            "math_inline_double": ('<span class="math display">', "</span>", True),
            "math_block": ('<div class="math block">\n', "\n</div>\n", True)}
"""How each kind of math of mdit-py-plugins' dollarmath is wrapped, and whether it is
displayed: ``$$…$$`` inside a paragraph in a <span> (a <div> would end the paragraph),
displayed as a block by its MathML (``display="block"``)."""


def math_html(latex: str, display: bool, language: Language | None = None) -> str:
    """MathML; the source as written when it cannot be converted (the check reported it)."""
    mathml, _ = to_mathml(latex, display)
    if mathml is None:
        return f'<code class="math-error">{html.escape(latex)}</code>'
    if language is not None and language.french:
        mathml = DECIMAL_COMMA.sub(r"<mn>\1,\3", mathml)
    if display:
        mathml = mathml.replace('display="block"', 'display="block" displaystyle="true"', 1)
    return _limits_under_and_over(_upright_words(mathml))


def _upright_words(mathml: str) -> str:
    """Each word in upright letters as one identifier, read as a word: ``<mi>arrondi</mi>``
    (an identifier of several letters is upright by default)."""
    return UPRIGHT_LETTERS.sub(
        lambda word: f"<mi>{''.join(UPRIGHT_LETTER.findall(word.group(0)))}</mi>", mathml)


def _limits_under_and_over(mathml: str) -> str:
    """Scripts of a large operator as limits (<munder>…): in display style they sit
    below and above it, inline they stay scripts (the operator's movablelimits)."""
    for script, limits in SCRIPTS_TO_LIMITS.items():
        tags = re.compile(rf"<(/?){script}>")
        for operator in LIMITS_OPERATORS:
            opening = f"<{script}><mo>{operator}</mo>"
            while (start := mathml.find(opening)) >= 0:
                depth = 0
                for tag in tags.finditer(mathml, start):
                    depth += -1 if tag.group(1) else 1
                    if depth == 0:
                        break
                else:   # not closed: leave it as it is
                    break
                mathml = (f"{mathml[:start]}<{limits}><mo>{operator}</mo>"
                          f"{mathml[start + len(opening):tag.start()]}</{limits}>"
                          f"{mathml[tag.end():]}")
    return mathml


def math_rule(kind: str):
    """markdown-it's render rule of a kind of math token, in the page's language."""
    opening, closing, display = WRAPPERS[kind]

    def rule(self, tokens: Sequence[Token], index: int, options, env: dict) -> str:
        content = math_html(tokens[index].content.strip(), display, env["ctx"].language)
        return f"{opening}{content}{closing}"
    return rule
