"""HTML for the prose of a page (code and notebook outputs: tabbook/outputs.py).

Prose is d2lbook Markdown: headings get their number and anchor, a figure line
with its ``:label:`` becomes a numbered <figure>, ``$$…$$`` with ``:eqlabel:``
a numbered equation, ``:numref:``/``:eqref:``/``:ref:`` links with French text.
Math becomes MathML here, at build time: pages need no script or network for it.
"""
from __future__ import annotations

import hashlib
import html
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path

from latex2mathml.converter import convert as latex_to_mathml
from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin

from .numbering import FIGURE_LINE, Numbers, split_reference
from .parse import BIBLIOGRAPHY, CITATION, HEADING, IMAGE, LABEL, REFERENCE, strip_slide_marks

ATTRIBUTE_LINE = re.compile(r"^\s*:(label|eqlabel|width|height):`([^`]*)`\s*$")


def _math(latex: str, display: bool) -> str:
    try:
        return latex_to_mathml(latex.strip(), display="block" if display else "inline")
    except Exception:   # latex2mathml raises many types; show the source rather than fail
        return f'<code class="math-error">{html.escape(latex)}</code>'


def _markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": True, "typographer": False}).enable("table")
    dollarmath_plugin(md, allow_labels=False, allow_space=True, allow_digits=False,
                      renderer=lambda content, options: _math(content, options["display_mode"]))
    return md


MARKDOWN = _markdown()


@dataclass
class PageContext:
    """What rendering one page needs to know about the rest of the site."""
    page: str
    """Section name, e.g. ``chapter_gpu/use-gpu``."""
    display_path: str
    """The .md path relative to the project, e.g. ``chapters/chapter_gpu/use-gpu.md``."""
    numbers: Numbers
    site: Path
    """The site folder, where images are copied."""
    project_root: Path
    outline: list[tuple[int, str, str]] = field(default_factory=list)
    """(level, anchor, text) of the page's ## and ### headings, for the in-page outline."""

    def url(self, page: str, anchor: str = "") -> str:
        """Relative URL from this page to another page (and anchor)."""
        if page == self.page and anchor:
            return f"#{anchor}"
        here = posixpath.dirname(self.page)
        target = posixpath.relpath(page + ".html", here or ".")
        return target + (f"#{anchor}" if anchor else "")

    def asset(self, site_path: str) -> str:
        return posixpath.relpath(site_path, posixpath.dirname(self.page) or ".")

    def image(self, written: str) -> str:
        """Copy an image of the sources into the site; return its URL from this page."""
        if re.match(r"[a-z][a-z0-9+.-]*:", written):
            return written
        resolved = posixpath.normpath(posixpath.join(posixpath.dirname(self.display_path), written))
        target = self.site / resolved
        if not target.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes((self.project_root / resolved).read_bytes())
        return self.asset(resolved)

    def output_file(self, data: bytes, suffix: str) -> str:
        """Write an output image under _images/ (by content); return its URL."""
        name = f"_images/{hashlib.sha256(data).hexdigest()[:20]}{suffix}"
        target = self.site / name
        if not target.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        return self.asset(name)


def _citations(text: str, ctx: PageContext) -> str:
    """:cite:`a,b` -> [a, b], each key a link to its entry in the bibliography's page."""
    def cite(match: re.Match) -> str:
        links = []
        for key in (k.strip() for k in match.group(1).split(",") if k.strip()):
            if key in ctx.numbers.works:
                page = ctx.numbers.works[key][0]
                links.append(f'<a class="citation" href="{ctx.url(page, "bib-" + _slug(key))}">'
                             f'{html.escape(key)}</a>')
            else:   # the checks warned about it
                links.append(html.escape(key))
        return f"[{', '.join(links)}]"
    return CITATION.sub(cite, text)


def _bibliography(ctx: PageContext) -> str:
    """The works cited in the book whose entries this page's .bib file holds."""
    items = "".join(f'<li id="bib-{_slug(key)}"><span class="bibkey">[{html.escape(key)}]</span> '
                    f'{html.escape(entry.text())}</li>'
                    for key, (page, entry) in ctx.numbers.works.items() if page == ctx.page)
    return f'<ol class="bibliography">{items}</ol>'


def _references(text: str, ctx: PageContext) -> str:
    """:numref:/:ref:/:eqref:/:cite: -> links (inline HTML, before Markdown parsing)."""
    def link(match: re.Match) -> str:
        role = match.group(1)
        custom, label = split_reference(match.group(2))
        if label not in ctx.numbers.targets:   # the checks warned about it
            return html.escape(custom or label)
        target = ctx.numbers.targets[label]
        if role == "eqref":
            text_ = f"({target.number})"
        elif role == "ref" or custom is not None:
            text_ = html.escape(custom if custom is not None else target.title)
        else:
            text_ = html.escape(target.reference_text())
        return f'<a class="reference" href="{ctx.url(target.page, target.anchor)}">{text_}</a>'
    return _citations(REFERENCE.sub(link, text), ctx)


def _inline(text: str, ctx: PageContext) -> str:
    return MARKDOWN.renderInline(_references(strip_slide_marks(text), ctx))


def _heading(level: int, text: str, line: int, labels: list[str], ctx: PageContext) -> str:
    plain = LABEL.sub("", text).strip()
    number = ""
    if level == 1:
        number = ctx.numbers.sections.get(ctx.page, "")
    elif (ctx.page, line) in ctx.numbers.headings:
        number = ctx.numbers.headings[(ctx.page, line)]
    anchor = labels[0] if labels else _slug(plain)
    body = _inline(plain, ctx)
    if level in (2, 3):
        ctx.outline.append((level, anchor, (number + " " if number else "") +
                            re.sub(r"<[^>]+>", "", body)))
    shown = f'<span class="number">{number}</span> ' if number else ""
    return (f'<h{level} id="{anchor}">{shown}{body}'
            f'<a class="anchor" href="#{anchor}" aria-label="Lien vers cette partie">#</a>'
            f'</h{level}>')


def _slug(text: str) -> str:
    slug = re.sub(r"[^\w]+", "-", re.sub(r"<[^>]+>|`", "", text).lower()).strip("-")
    return slug or "partie"


def _figure(line_text: str, line: int, attributes: dict[str, str], ctx: PageContext) -> str:
    image = IMAGE.search(line_text)
    alt, path = image.group(1), image.group(2)
    number = ctx.numbers.figures.get((ctx.page, line), "")
    anchor = f' id="{attributes["label"]}"' if "label" in attributes else ""
    style = ""
    if "width" in attributes:
        style = f' style="width: min(100%, {html.escape(attributes["width"])})"'
    caption_text = _inline(alt, ctx)
    caption = (f'<figcaption><span class="number">Figure {number}</span> — {caption_text}'
               f'</figcaption>' if number else f"<figcaption>{caption_text}</figcaption>")
    plain_alt = html.escape(re.sub(r"[`*_]", "", alt), quote=True)
    return (f'<figure{anchor}><img src="{html.escape(ctx.image(path))}" alt="{plain_alt}"'
            f'{style} loading="lazy">{caption}</figure>')


def _equation(latex: str, attributes: dict[str, str], label_line: int, ctx: PageContext) -> str:
    label = attributes.get("eqlabel") or attributes.get("label")
    number = ctx.numbers.equations.get((ctx.page, label_line), "")
    anchor = f' id="{label}"' if label else ""
    tag = f'<span class="eqno">({number})</span>' if number else ""
    return f'<div class="equation"{anchor}>{_math(latex, True)}{tag}</div>'


def render_prose(text: str, first_line: int, ctx: PageContext) -> str:
    """One prose cell -> HTML. Block constructs with attributes become raw HTML blocks."""
    lines = text.split("\n")
    out: list[str] = []
    index = 0

    def attributes_after(position: int) -> tuple[dict[str, str], int, int]:
        """The :label:/:width: lines after `position`: values, next index, last line."""
        found: dict[str, str] = {}
        last = first_line + position
        while position + 1 < len(lines):
            match = ATTRIBUTE_LINE.match(lines[position + 1])
            if match is None:
                if not lines[position + 1].strip() and position + 2 < len(lines) and \
                        ATTRIBUTE_LINE.match(lines[position + 2]):
                    position += 1
                    continue
                break
            found[match.group(1)] = match.group(2).strip()
            position += 1
            last = first_line + position
        return found, position + 1, last

    while index < len(lines):
        text_line, line = lines[index], first_line + index
        heading = HEADING.match(text_line)
        if heading:
            labels = [name.strip() for _, name in LABEL.findall(text_line)]
            found, index, _ = attributes_after(index)
            if "label" in found:
                labels.append(found["label"])
            out += ["", _heading(len(heading.group(1)), heading.group(2), line, labels, ctx), ""]
            continue
        if FIGURE_LINE.match(text_line):
            found, index, _ = attributes_after(index)
            out += ["", _figure(text_line, line, found, ctx), ""]
            continue
        if text_line.strip().startswith("$$"):
            end = index
            body = text_line.strip()[2:]
            if body.rstrip().endswith("$$") and len(text_line.strip()) > 2:
                body = body.rstrip()[:-2]
            else:
                body_lines = [body]
                end += 1
                while end < len(lines) and "$$" not in lines[end]:
                    body_lines.append(lines[end])
                    end += 1
                if end < len(lines):
                    body_lines.append(lines[end].split("$$")[0])
                body = "\n".join(body_lines)
            found, index, last = attributes_after(end)
            out += ["", _equation(body, found, last, ctx), ""]
            continue
        if BIBLIOGRAPHY.match(text_line):
            out += ["", _bibliography(ctx), ""]
            index += 1
            continue
        match = ATTRIBUTE_LINE.match(text_line)
        if match and match.group(1) == "label":   # a table's label: an anchor before it
            out.append(f'<span id="{match.group(2).strip()}"></span>')
        elif not match:
            out.append(_references(strip_slide_marks(text_line), ctx))
        index += 1
    rendered = MARKDOWN.render("\n".join(out))
    # Links between sources point at the pages made from them.
    return re.sub(r'href="(?![a-z][a-z0-9+.-]*:|#)([^"#]+)\.md(#[^"]*)?"',
                  lambda m: f'href="{m.group(1)}.html{m.group(2) or ""}"', rendered)

