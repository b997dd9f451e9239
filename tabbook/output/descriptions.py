"""The text alternative (``alt``) of the figures a code cell draws.

A figure says what it shows by the first of:

1. the author's words, written in the cell's fence: ```` ```{.python .input alt="…"} ````
   (a fence attribute, as d2lbook's ``n=1``: it is no part of the code, so writing it
   executes nothing again);
2. the figure's own title: an SVG's ``<title>``, or the ``Title`` that Matplotlib writes in
   its metadata (``savefig(…, metadata={'Title': …})``);
3. what the cell's code writes on it: titles and axis labels given as literal strings
   (``set_title``, ``suptitle``, ``set_xlabel``, ``set_ylabel``, keywords ``title=``,
   ``xlabel=``, ``ylabel=``), as « Graphique : y en fonction de x » in the book's language;
4. the last sentence of the prose right before the cell;
5. the catalogue's generic words (« Figure produite par le code »).
"""
from __future__ import annotations

import ast
import functools
import itertools
import re
from xml.etree import ElementTree

from ..core.language import Language
from ..source.roles import plain_text

SVG = "{http://www.w3.org/2000/svg}"
DC_TITLE = "{http://purl.org/dc/elements/1.1/}title"
CC_WORK = "{http://creativecommons.org/ns#}Work"
LABEL_CALLS = {"set_title": "title", "suptitle": "title", "title": "title",
               "set_xlabel": "x", "xlabel": "x", "set_ylabel": "y", "ylabel": "y"}
"""Matplotlib's calls (and keywords) that write a title or an axis label on a figure."""
SENTENCE_END = re.compile(r"(?<=[.!?…])\s+")


def svg_title(svg: str) -> str:
    """The title an SVG gives itself: its ``<title>`` (what assistive technologies read),
    else the ``dc:title`` of its Creative Commons work (Matplotlib's ``Title`` metadata);
    "" when it has neither or does not parse."""
    try:
        root = ElementTree.fromstring(svg)
    except ElementTree.ParseError:
        return ""
    title = root.find(f"{SVG}title")
    if title is None:   # the creator's dc:title (« Matplotlib v3… ») is not the figure's
        title = root.find(f"{SVG}metadata//{CC_WORK}/{DC_TITLE}")
    return " ".join((title.text or "").split()) if title is not None else ""


def _literal(node: ast.expr) -> str:
    """A string written literally in the code ("" for a name, an f-string, a number)."""
    try:
        value = ast.literal_eval(node)
    except ValueError:
        return ""
    return " ".join(value.split()) if isinstance(value, str) else ""


def _labels(code: str) -> dict[str, list[str]]:
    """The titles and x and y labels the code writes on its figures, in code order (the
    dict is shared: read it only). Only code that writes "title" or "label" (every call
    and keyword `_parsed_labels` reads) is parsed."""
    if "title" not in code and "label" not in code:
        return {"title": [], "x": [], "y": []}
    return _parsed_labels(code)


@functools.lru_cache(maxsize=None)   # pages and decks show the same cells
def _parsed_labels(code: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {"title": [], "x": [], "y": []}
    try:
        tree = ast.parse(code)
    except SyntaxError:   # IPython magics: no labels read, the next description applies
        return found
    calls = sorted((n for n in ast.walk(tree) if isinstance(n, ast.Call)),
                   key=lambda n: (n.lineno, n.col_offset))
    for call in calls:
        name = getattr(call.func, "attr", getattr(call.func, "id", ""))
        written = [(LABEL_CALLS[name], call.args[0])] if name in LABEL_CALLS and call.args \
            else []
        if name != "legend":   # a legend's title names its entries, not the figure
            written += [(LABEL_CALLS[k.arg], k.value) for k in call.keywords
                        if k.arg in ("title", "xlabel", "ylabel")]
        for kind, node in written:
            text = _literal(node)
            if text:
                found[kind].append(text)
    return found


def code_description(code: str, language: Language) -> str:
    """« Graphique : y en fonction de x » from the literal labels of `code`; "" without."""
    labels = _labels(code)
    axes = []
    for y, x in itertools.zip_longest(labels["y"], labels["x"]):
        if y and x:
            axes.append(language.text("figure_versus", y=y, x=x))
        else:
            axes.append(language.text("figure_axis_x", x=x) if x else y)
    shown = labels["title"] + axes
    return language.text("figure_plot", content="; ".join(shown)) if shown else ""


def last_sentence(tokens) -> str:
    """The last sentence of the last paragraph of prose tokens ("" without a paragraph)."""
    inlines = [t for t in tokens if t.type == "inline"]
    if not inlines:
        return ""
    text = " ".join(plain_text([inlines[-1]]).split())
    return SENTENCE_END.split(text)[-1]


def cell_description(code: str, written: str, prose_before, language: Language) -> str:
    """The description of the figures of a code cell that does not title them itself:
    `written` in its fence, else its code's labels, else the last sentence of the prose
    tokens `prose_before` (those of the cell right before it), else the generic words."""
    return (written or code_description(code, language) or last_sentence(prose_before)
            or language.text("output_figure"))
