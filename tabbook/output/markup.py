"""HTML for the prose of a page (code and notebook outputs: tabbook/outputs.py).

Prose is d2lbook Markdown, read from its markdown-it tokens (`roles`): headings
get their number and anchor, an image alone with its ``:label:`` becomes a
numbered <figure>, ``$$…$$`` with ``:eqlabel:`` a numbered equation,
``:numref:``/``:eqref:``/``:ref:`` links with the book's words (`PageContext.language`),
in its typography (French spacing for a French book). Math becomes MathML
here, at build time: pages need no script or network for it.
"""
from __future__ import annotations

import hashlib
import html
import posixpath
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.token import Token

from ..core.language import Language
from ..core.model import project_path
from ..features.extension import Feature, ShownRole, slug
from ..features.registry import BLOCK_ROLES as FEATURE_BLOCK_ROLES
from ..features.registry import ROLES as FEATURE_ROLES
from ..notebooks.features import Computed
from ..source.numbering import Numbers
from ..source.roles import (LABEL_ROLES, attributes, figure_image, has_scheme, is_label,
                            plain_text, previous_block, prose_markdown, split_reference,
                            top_level_blocks)
from ..source.slide_marks import book_tokens
from .mathml import math_html, math_rule
from .search_terms import index_attributes
from .typography import starts_with_punctuation, tie_leading_unit, typeset


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
    language: Language
    """The book's language: the words of references, captions and labels, the typography."""
    outline: list[tuple[int, str, str]] = field(default_factory=list)
    """(level, anchor, text) of the page's ## and ### headings, for the in-page outline."""
    heading_offset: int = 0
    """Added to the level of every heading's tag: 1 when the page is a section of a
    document whose chapters are <h1> (the PDF's print layout)."""
    code_anchors: bool = True
    """Whether code cells carry the ids the package reference links to (one page each on
    the site; the print layout's single document would repeat them)."""
    published_url: str = ""
    """The published book's URL, where Markdown made for notebooks (slides) points for
    the book's own images: those are copied from the project like relative ones."""

    def url(self, page: str, anchor: str = "") -> str:
        """Relative URL from this page to another page (and anchor)."""
        if page == self.page and anchor:
            return f"#{anchor}"
        here = posixpath.dirname(self.page)
        target = posixpath.relpath(page + ".html", here or ".")
        return target + (f"#{anchor}" if anchor else "")

    def source_link(self, path: str, fragment: str) -> str:
        """The URL of a link written to another source (``x.md#part``): its page."""
        page = posixpath.normpath(posixpath.join(posixpath.dirname(self.page), path[:-3]))
        return self.url(page, fragment)

    def asset(self, site_path: str) -> str:
        return posixpath.relpath(site_path, posixpath.dirname(self.page) or ".")

    def image(self, written: str) -> str:
        """Copy an image of the sources into the site; return its URL from this page."""
        own = self.published_url and written.startswith(self.published_url)
        if has_scheme(written) and not own:
            return written
        resolved = written[len(self.published_url):] if own else \
            project_path(self.display_path, written)
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

    def typeset(self, text: str) -> str:
        """`text` in the book's typography (French spacing for a French book)."""
        return typeset(text, self.language)


# -- prose -------------------------------------------------------------------
Env = dict
"""markdown-it's env while rendering a cell: {"ctx": PageContext, "line": its first line,
"shown": per tab, the code cell before it and what the tab's run computed for the
features (see `render_prose`)}."""


def _anchor(name: str) -> str:
    return f'<span id="{html.escape(name)}"></span>'


def _role(self, tokens: Sequence[Token], index: int, options, env: Env) -> str:
    """:numref:/:ref:/:eqref: -> a link with its text in the book's language, a :label: in
    the text -> an anchor; a feature's role -> what the feature renders."""
    meta, ctx = tokens[index].meta, env["ctx"]
    feature = FEATURE_ROLES.get(meta["role"])
    if feature is not None and feature.render_html is not None:
        return feature.render_html(meta["content"], _shown_role(feature, env))
    if meta["role"] in LABEL_ROLES:
        return _anchor(meta["content"].strip())
    custom, label = split_reference(meta["content"])
    target = ctx.numbers.targets.get(label)
    if target is None:   # the checks warned about it
        return html.escape(custom or label)
    url = ctx.url(target.page, target.anchor)
    if not url:   # a page this document leaves out (a PDF without that framework's section)
        return html.escape(target.text(meta["role"], custom, ctx.language))
    return (f'<a class="reference" href="{html.escape(url)}">'
            f'{html.escape(target.text(meta["role"], custom, ctx.language))}</a>')


def _unknown_role(self, tokens: Sequence[Token], index: int, options, env: Env) -> str:
    """A role this build cannot read, shown as written (as Sphinx shows a problematic
    node): never a blank; the checks warned about it."""
    return f'<span class="problematic">{escapeHtml(tokens[index].markup)}</span>'


def _shown_role(feature: Feature, env: Env) -> ShownRole:
    """Where a feature's role is rendered: per tab shown, the code cell before its prose
    and what that tab's run computed for the feature (no tab when the caller gave none);
    the page, and what the feature numbered in the book."""
    ctx, shown = env["ctx"], env.get("shown") or {}
    return ShownRole({tab: after for tab, (after, _) in shown.items()},
                     {tab: computed.get(feature.results_key, ())
                      for tab, (_, computed) in shown.items()},
                     ctx.language, ctx.typeset, ctx.page, ctx.url,
                     ctx.numbers.features.get(feature.key))


def _ties_following_unit(token: Token) -> bool:
    feature = FEATURE_ROLES.get(token.meta["role"]) if token.type == "role" else None
    return feature is not None and feature.ties_following_unit


def _link_open(self, tokens: Sequence[Token], index: int, options, env: Env) -> str:
    """Links between sources point at the pages made from them."""
    token = tokens[index]
    href = token.attrGet("href") or ""
    path, _, fragment = href.partition("#")
    if not has_scheme(href) and path.endswith(".md"):
        token = token.copy(attrs={**token.attrs, "href": env["ctx"].source_link(path, fragment)})
    return self.renderToken([token], 0, options, env)


def _text(self, tokens: Sequence[Token], index: int, options, env: Env) -> str:
    """Prose text in the book's typography; an autolink's text (a URL) as written."""
    content, before = tokens[index].content, tokens[index - 1] if index > 0 else None
    if before is not None and before.type == "link_open" and before.info == "auto":
        return escapeHtml(content)
    if not env["ctx"].language.french:
        return escapeHtml(content)
    if before is not None and _ties_following_unit(before):
        content = tie_leading_unit(content)
    return escapeHtml(env["ctx"].typeset(content))


def _code_inline(self, tokens: Sequence[Token], index: int, options, env: Env) -> str:
    """Inline code, with the dotted parts of its identifiers for the search index."""
    code = tokens[index].content
    return f"<code{index_attributes(code)}>{escapeHtml(code)}</code>"


def _softbreak(self, tokens: Sequence[Token], index: int, options, env: Env) -> str:
    """A line break before ``: …`` gives way to the narrow space the next text starts with
    (French typography)."""
    following = tokens[index + 1] if index + 1 < len(tokens) else None
    if env["ctx"].language.french and following is not None and following.type == "text" and \
            starts_with_punctuation(following.content):
        return ""
    return self.softbreak(tokens, index, options, env)


def _attribute_line(tokens: Sequence[Token], index: int, env: Env) -> str:
    """A feature's block role -> what the feature renders; the label of a block that has no
    HTML of its own here (a table, a paragraph) -> an anchor; other attributes were read by
    their block."""
    meta = tokens[index].meta
    feature = FEATURE_BLOCK_ROLES.get(meta["role"])
    if feature is not None and feature.render_block_html is not None:
        return feature.render_block_html(meta["content"], _shown_role(feature, env))
    host = previous_block(tokens, index)
    has_own_html = host is not None and tokens[host].level == 0 and (
        tokens[host].type in ("heading_open", "math_block", "table_open") or
        figure_image(tokens, host))
    return _anchor(meta["content"]) + "\n" if meta["role"] in LABEL_ROLES and \
        not has_own_html else ""


def _heading(tokens: Sequence[Token], index: int, env: Env) -> str:
    ctx, line = env["ctx"], env["line"] + tokens[index].map[0]
    level, children = int(tokens[index].tag[1]), tokens[index + 1].children or []
    labels = [child.meta["content"].strip() for child in children if is_label(child)]
    found = attributes(tokens, index + 3)
    if "label" in found:
        labels.append(found["label"].meta["content"])
    children = [child for child in children if not is_label(child)]
    number = ctx.numbers.sections.get(ctx.page, "") if level == 1 else \
        ctx.numbers.headings.get((ctx.page, line), "")
    anchor = labels[0] if labels else slug(plain_text(children))
    if level in (2, 3):   # the outline's template escapes what it shows
        ctx.outline.append((level, anchor, (number + " " if number else "") +
                            ctx.typeset(plain_text(children).strip())))
    anchor = html.escape(anchor)
    shown = f'<span class="number">{number}</span> ' if number else ""
    body = MARKDOWN.renderer.renderInline(children, MARKDOWN.options, env).strip()
    tag = f"h{min(level + ctx.heading_offset, 6)}"
    link = html.escape(ctx.language.text("heading_link"))
    return (f'<{tag} id="{anchor}">{shown}{body}'
            f'<a class="anchor" href="#{anchor}" aria-label="{link}" data-pagefind-ignore>#</a>'
            f'</{tag}>\n')


def _figure(tokens: Sequence[Token], index: int, env: Env) -> str | None:
    """An image alone in its paragraph, with its :label: and :width: lines; None for
    another paragraph."""
    image = figure_image(tokens, index)
    if image is None:
        return None
    ctx, found = env["ctx"], attributes(tokens, index + 3)
    number = ctx.numbers.figures.get((ctx.page, env["line"] + tokens[index].map[0]), "")
    anchor = f' id="{html.escape(found["label"].meta["content"])}"' if "label" in found else ""
    style = ""
    if "width" in found:
        style = f' style="width: min(100%, {html.escape(found["width"].meta["content"])})"'
    caption_text = MARKDOWN.renderer.renderInline(image.children, MARKDOWN.options, env)
    shown = html.escape(ctx.language.text("figure", number=number))
    caption = (f'<figcaption><span class="number">{shown}</span> — {caption_text}</figcaption>'
               if number else f"<figcaption>{caption_text}</figcaption>")
    plain_alt = html.escape(ctx.typeset(plain_text(image.children)), quote=True)
    # The frame scrolls sideways an image kept legible on a phone (book.css), not its caption.
    return (f'<figure{anchor}><div class="figure-frame">'
            f'<img src="{html.escape(ctx.image(image.meta["path"]))}" '
            f'alt="{plain_alt}"{style} loading="lazy"></div>{caption}</figure>\n')


def _block_end(tokens: Sequence[Token], index: int) -> int:
    """The index just past the top-level block that starts at tokens[index]."""
    end = index + 1
    while end < len(tokens) and tokens[end].level > 0:
        end += 1
    return end + 1


def table_caption(tokens: Sequence[Token], index: int) -> Token | None:
    """The inline token of a table's caption: the paragraph just before the table when
    it starts with a colon (pandoc's ``: Titre``, which d2lbook books write as
    ``:Titre`` on the line before the table)."""
    if index < 3 or tokens[index - 1].type != "paragraph_close":
        return None
    inline = tokens[index - 2]
    if inline.type != "inline" or tokens[index - 3].type != "paragraph_open" or \
            tokens[index - 3].level != 0 or not inline.content.startswith(":"):
        return None
    return inline


def _is_table_caption(tokens: Sequence[Token], index: int) -> bool:
    """Whether the paragraph at tokens[index] is the caption of the table after it."""
    end = _block_end(tokens, index)
    return end < len(tokens) and tokens[end].type == "table_open" and \
        table_caption(tokens, end) is not None


def _paragraph(tokens: Sequence[Token], index: int, env: Env) -> str | None:
    """A figure, a table's caption (shown by its table: nothing here), or None for another
    paragraph."""
    if _is_table_caption(tokens, index):
        return ""
    return _figure(tokens, index, env)


def _row_headers(table: Sequence[Token]) -> list[Token]:
    """A table's tokens; when its header row starts with an empty cell, its first column
    names the rows: that corner is a plain cell (a header must say what it heads) and each
    row's first cell a row header (``<th scope="row">``). The tokens are copied, never
    changed: the cell keeps them."""
    shown = list(table)
    first = next((i for i, t in enumerate(shown) if t.type == "th_open"), None)
    if first is None or shown[first + 1].content.strip():
        return shown
    corner = shown[first].copy(tag="td")
    shown[first], shown[first + 2] = corner, shown[first + 2].copy(tag="td")
    # Only tags change (markdown-it renders by tag): a token's type still says what it was.
    for i, token in enumerate(shown):
        if token.type == "tr_open" and shown[i + 1].type == "td_open":
            end = next(j for j in range(i + 2, len(shown)) if shown[j].type == "td_close")
            shown[i + 1] = shown[i + 1].copy(tag="th", attrs={**shown[i + 1].attrs,
                                                               "scope": "row"})
            shown[end] = shown[end].copy(tag="th")
    return shown


def _table(tokens: Sequence[Token], index: int, env: Env) -> str:
    """A table, numbered like a figure when it has a :label:: its caption (« Tableau 1.1 —
    … », from its caption line) above it, the label's anchor on the table."""
    ctx, end = env["ctx"], _block_end(tokens, index)
    found = attributes(tokens, end)
    number = ctx.numbers.tables.get((ctx.page, env["line"] + tokens[index].map[0]), "")
    anchor = f' id="{html.escape(found["label"].meta["content"].strip())}"' \
        if "label" in found else ""
    body = MARKDOWN.renderer.render(_row_headers(tokens[index:end]), MARKDOWN.options, env)
    inline = table_caption(tokens, index)
    text = ""
    if inline is not None:
        text = MARKDOWN.renderer.renderInline(inline.children or [], MARKDOWN.options, env)
        text = text.lstrip(": \u00a0\u202f").strip()
    caption = html.escape(ctx.language.text("table", number=number)) if number else ""
    if caption:
        caption = f'<span class="number">{caption}</span>' + (f" — {text}" if text else "")
    else:
        caption = text
    caption = f"<caption>{caption}</caption>" if caption else ""
    return body.replace("<table>", f"<table{anchor}>{caption}", 1)


def _equation(tokens: Sequence[Token], index: int, env: Env) -> str:
    ctx, found = env["ctx"], attributes(tokens, index + 1)
    label = found.get("eqlabel") or found.get("label")
    anchor, tag = "", ""
    if label is not None:
        anchor = f' id="{html.escape(label.meta["content"])}"'
        number = ctx.numbers.equations.get((ctx.page, env["line"] + label.map[0]), "")
        tag = f'<span class="eqno">({number})</span>' if number else ""
    return f'<div class="equation"{anchor}>{math_html(tokens[index].content, True, ctx.language)}{tag}</div>\n'


# Top-level blocks with HTML of their own (None: markdown-it's HTML after all).
BLOCKS: dict[str, Callable[[Sequence[Token], int, Env], str | None]] = {
    "heading_open": _heading, "paragraph_open": _paragraph, "math_block": _equation,
    "table_open": _table, "role_block": _attribute_line}


def _markdown() -> MarkdownIt:
    md = prose_markdown(math=math_html)
    md.add_render_rule("role", _role)
    md.add_render_rule("unknown_role", _unknown_role)
    for kind in ("math_inline", "math_inline_double", "math_block"):
        md.add_render_rule(kind, math_rule(kind))
    md.add_render_rule("link_open", _link_open)
    md.add_render_rule("text", _text)
    md.add_render_rule("softbreak", _softbreak)
    md.add_render_rule("code_inline", _code_inline)
    md.add_render_rule("role_block", lambda self, tokens, index, options, env:
                       _attribute_line(tokens, index, env))
    return md


MARKDOWN = _markdown()


def render_prose(text: str, first_line: int, ctx: PageContext,
                 shown: Mapping[str, tuple[str, Computed]] | None = None) -> str:
    """One prose cell (its .md text and first line) -> HTML. `shown`: per tab the page
    shows, the id of the code cell before the cell and what the tab's run computed for
    the features (by `results_key`), which their roles show."""
    tokens = book_tokens(text)   # the tokens its cell holds
    env: Env = {"ctx": ctx, "line": first_line, "shown": shown}
    parts = []
    for start, end in top_level_blocks(tokens):
        block = BLOCKS.get(tokens[start].type)
        rendered = block(tokens, start, env) if block else None
        parts.append(MARKDOWN.renderer.render(tokens[start:end], MARKDOWN.options, env)
                     if rendered is None else rendered)
    return "".join(parts)

