"""HTML for notebook outputs: streams, errors, images (code: highlighting.py).

Everything returned is ``markupsafe.Markup``: text is escaped here, once; only the
HTML a notebook itself produced (``text/html``) is kept as is. An
output too long to be shown whole shows its beginning and end (notebooks/long_outputs.py).
"""
from __future__ import annotations

import base64
import re

from markupsafe import Markup, escape

from ..notebooks.long_outputs import cut, joined, merged_streams, shown_data
from .descriptions import svg_title
from .markup import PageContext

ANSI_CODE = re.compile(r"\x1b\[([0-9;]*)m")
ANSI_CLASSES = {30: "black", 31: "red", 32: "green", 33: "yellow", 34: "blue", 35: "magenta",
                36: "cyan", 37: "white"}


def ansi_to_html(text: str) -> Markup:
    """Colour codes of tracebacks -> <span> classes (the rest escaped)."""
    parts, classes, position = [], [], 0
    for match in ANSI_CODE.finditer(text):
        parts.append(_span(text[position:match.start()], classes))
        position = match.end()
        for code in [int(c) for c in match.group(1).split(";") if c] or [0]:
            classes = _after(code, classes)
    parts.append(_span(text[position:], classes))
    return Markup("").join(parts)


def _after(code: int, classes: list[str]) -> list[str]:
    """The classes of the text after the SGR `code`, `classes` before it."""
    if code == 0:
        return []
    if code == 1:
        return [*classes, "ansi-bold"]
    colour = ANSI_CLASSES.get(code) or ANSI_CLASSES.get(code - 60)   # 90-97: bright ones
    if colour is None:
        return classes   # background and other codes: not shown
    return [c for c in classes if not c.startswith("ansi-fg")] + [f"ansi-fg-{colour}"]


def _span(text: str, classes: list[str]) -> Markup:
    if classes and text:
        return Markup('<span class="{}">{}</span>').format(" ".join(classes), text)
    return escape(text)


def _pre(css: str, text: str, ctx: PageContext) -> Markup:
    """`text` in a <pre>; too long, its beginning and end around a notice of the cut."""
    shown = cut(text)
    if shown is None:
        return Markup('<pre class="{}">{}</pre>').format(css, ansi_to_html(text))
    return Markup('<pre class="{}">{}\n<span class="output-cut">{}</span>\n{}</pre>').format(
        css, ansi_to_html(shown.head), ctx.typeset(shown.notice(ctx.language)),
        ansi_to_html(shown.tail))


def _image(url: str, alt: str) -> Markup:
    return Markup('<img class="output" src="{}" alt="{}" loading="lazy">').format(url, alt)


def _rich(data: dict, alt: str, ctx: PageContext) -> Markup:
    """A display_data or execute_result output, by its richest representation; a figure
    described by its own title if it has one, else by `alt`."""
    data = shown_data(data)
    if "image/svg+xml" in data:
        svg = joined(data["image/svg+xml"])
        return _image(ctx.output_file(svg.encode(), ".svg"), svg_title(svg) or alt)
    if "image/png" in data:
        return _image(ctx.output_file(base64.b64decode(joined(data["image/png"])), ".png"), alt)
    if "text/html" in data:   # the notebook's own HTML (a table of pandas…), kept as is
        return Markup('<div class="output html">{}</div>').format(
            Markup(joined(data["text/html"])))
    if "text/plain" in data:
        return _pre("output", joined(data["text/plain"]), ctx)
    return Markup()


def render_outputs(outputs: list, ctx: PageContext, figures: str) -> Markup:
    """The outputs of one code cell, richest representation first; consecutive stream
    outputs of one stream shown as one block; `figures` describes the cell's figures that
    do not title themselves (output/descriptions.py)."""
    rendered = []
    for output in merged_streams(outputs):
        kind = output.get("output_type")
        if kind == "stream":
            css = "output stderr" if output.get("name") == "stderr" else "output"
            rendered.append(_pre(css, joined(output["text"]), ctx))
        elif kind == "error":
            rendered.append(_pre("output error", "\n".join(output.get("traceback", [])), ctx))
        elif kind in ("display_data", "execute_result"):
            rendered.append(_rich(output.get("data", {}), ctx.typeset(figures), ctx))
    return Markup("").join(rendered)
