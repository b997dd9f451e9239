"""d2lbook's roles as markdown-it tokens: the one reader of roles in prose.

Prose (the Markdown between code cells) is parsed once into markdown-it tokens
(`prose_tokens`); every stage reads those tokens instead of scanning the text.
This module adds d2lbook's syntax to CommonMark (with tables and ``$…$`` /
``$$…$$`` math):

- ``role`` inline tokens for `` :numref:`x` ``, `` :ref:`x` ``, `` :eqref:`x` ``,
  `` :label:`x` ``, `` :eqlabel:`x` `` and the roles the features add
  (`features.registry`: `` :cite:`a,b` ``…), with ``meta = {"role", "content", "span"}``.
  Since markdown-it reads code spans and code blocks first, a role written inside code
  stays text.
- ``role_block`` tokens for a line holding only `` :label:`x` ``, `` :eqlabel:`x` ``,
  `` :width:`400px` ``, `` :height:`…` ``, `` :begin_tab:`x` ``, ``:end_tab:`` or a
  block role a feature adds (`` :bibliography:`x.bib` ``…), with
  ``meta = {"role", "content"}``. Such a line ends the paragraph, table or list before
  it: it is an attribute of that block.
- ``unknown_role`` inline tokens for what is written as a role but none of the above
  (`` :numreff:`x` ``, a Sphinx role, `` :width:`x` `` inside a line), with the same
  ``meta`` and ``markup``, the role as written: shown as written, as Sphinx shows a role
  it cannot read. As in reStructuredText, a role starts a word: ``10:30:`x``` is text.
- images carry ``meta = {"span", "path"}``: where they are written and their path
  as written.

``span`` is the (start, end) of a token in its inline token's ``content``;
`child_lines` and `source_spans` turn it into .md lines and text offsets.
"""
from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Callable, Iterator, Sequence

from markdown_it import MarkdownIt, rules_inline
from markdown_it.rules_block import StateBlock
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from mdit_py_plugins.dollarmath import dollarmath_plugin

from ..features.registry import BLOCK_ROLES as FEATURE_BLOCK_ROLES
from ..features.registry import ROLES as FEATURE_ROLES

REFERENCE_ROLES = ("numref", "ref", "eqref")
LABEL_ROLES = ("label", "eqlabel")
INLINE_ROLES = (*REFERENCE_ROLES, *LABEL_ROLES, *FEATURE_ROLES)
# Roles of a line of their own, attributes of the block above (a label may be either).
BLOCK_ROLES = (*LABEL_ROLES, "width", "height", *FEATURE_BLOCK_ROLES, "begin_tab")
INLINE_ROLE = re.compile(rf":({'|'.join(INLINE_ROLES)}):`([^`]+)`")
# What d2lbook takes for a role (its build.py's mark_re_md), whatever its name.
WRITTEN_ROLE = re.compile(r":([-/\\.\w]+):`([^`]+)`")
# Roles of d2lbook's Sphinx (docutils' and Sphinx's own) that this build does not render.
SPHINX_ROLES = frozenset((
    "math", "eq", "doc", "term", "abbr", "code", "command", "dfn", "file", "kbd", "guilabel",
    "menuselection", "samp", "program", "option", "envvar", "download", "any", "pep", "rfc",
    "emphasis", "strong", "literal", "sub", "sup", "subscript", "superscript",
    "title-reference", "func", "class", "meth", "mod", "attr", "data", "obj", "exc"))
BLOCK_ROLE = re.compile(rf":(?:({'|'.join(BLOCK_ROLES)}):`([^`]*)`|(end_tab):)[ \t]*")
CUSTOM_TEXT = re.compile(r"(.*?)\s*<([^>]+)>\s*", re.S)
SCHEME = re.compile(r"[a-z][a-z0-9+.-]*:")
NEWLINE = re.compile("\n")
# Inline tokens whose content is their source text (found in the inline token's content).
WRITTEN_AS_IS = ("math_inline", "math_inline_double", "html_inline")


def removed_span(text: str, start: int, end: int) -> tuple[int, int]:
    """The span to remove for a role or slide mark shown as nothing at (start, end): with
    the spaces before it, and its whole line when it stands alone there (a blank line
    would end the paragraph)."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    if not text[line_start:start].strip() and not text[end:line_end].strip():
        return (line_start - 1, line_end) if line_start else (0, min(line_end + 1, len(text)))
    return len(text[:start].rstrip(" \t")), end


def split_reference(content: str) -> tuple[str | None, str]:
    """``texte <label>`` -> ("texte", "label"); ``label`` -> (None, "label")."""
    custom = CUSTOM_TEXT.fullmatch(content)
    return (custom.group(1), custom.group(2).strip()) if custom else (None, content.strip())


def has_scheme(url: str) -> bool:
    """``https://…``, ``mailto:…``: not a path relative to the page."""
    return SCHEME.match(url) is not None


def _inline_role(state: StateInline, silent: bool) -> bool:
    match, kind = INLINE_ROLE.match(state.src, state.pos, state.posMax), "role"
    if match is None:
        match, kind = _written_role(state), "unknown_role"
    if match is None:
        return False
    if not silent:
        token = state.push(kind, "", 0)
        token.markup = match.group(0)
        token.meta = {"role": match.group(1), "content": match.group(2),
                      "span": (state.pos, match.end())}
    state.pos = match.end()
    return True


def _written_role(state: StateInline) -> re.Match | None:
    """A role of another name at the start of a word (not after a letter, digit or
    colon: ``10:30:`x```, ``py:func:`f```)."""
    before = state.src[state.pos - 1] if state.pos else " "
    if before.isalnum() or before in "_:":
        return None
    return WRITTEN_ROLE.match(state.src, state.pos, state.posMax)


def _block_role(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    if state.is_code_block(start_line):
        return False
    begin = state.bMarks[start_line] + state.tShift[start_line]
    match = BLOCK_ROLE.fullmatch(state.src, begin, state.eMarks[start_line])
    if match is None:
        return False
    if not silent:
        token = state.push("role_block", "", 0)
        token.map = [start_line, start_line + 1]
        token.markup = match.group(0).strip()
        token.meta = {"role": match.group(1) or match.group(3),
                      "content": (match.group(2) or "").strip()}
        state.line = start_line + 1
    return True


def _written_image(rule: Callable[[StateInline, bool], bool]):
    """markdown-it's image rule, recording where the image is written and its path."""
    def image(state: StateInline, silent: bool) -> bool:
        start = state.pos
        if not rule(state, silent):
            return False
        if not silent:
            token, written = state.tokens[-1], state.src[start:state.pos]
            src = token.attrGet("src") or ""
            # The src attribute is normalised (percent-encoded); keep the path as written.
            candidates = (src, state.md.normalizeLinkText(src))
            path = next((c for c in candidates if c in written), candidates[1])
            token.meta = {**token.meta, "span": (start, state.pos), "path": path}
        return True
    return image


def roles_plugin(md: MarkdownIt) -> None:
    md.inline.ruler.before("emphasis", "role", _inline_role)
    md.inline.ruler.at("image", _written_image(rules_inline.image))
    md.block.ruler.before("paragraph", "role_block", _block_role,
                          {"alt": ["paragraph", "reference", "blockquote", "list"]})


def prose_markdown(math: Callable[[str, bool], str] | None = None) -> MarkdownIt:
    """The Markdown of d2lbook prose; `math(latex, display)` renders math if given."""
    md = MarkdownIt("commonmark", {"html": True, "typographer": False}).enable("table")
    # double_inline: ``$$…$$`` inside a paragraph is display math, as pandoc (d2lbook's
    # reader) reads it; two such lines in a row were read as ``$`` pairs around a newline.
    dollarmath_plugin(md, allow_labels=False, allow_space=True, allow_digits=False,
                      double_inline=True,
                      renderer=math and (lambda content, options:
                                         math(content, options["display_mode"])))
    roles_plugin(md)
    return md


PARSER = prose_markdown()


@functools.lru_cache(maxsize=4096)   # the parser, the HTML and the checks read the same cells
def prose_tokens(text: str) -> tuple[Token, ...]:
    """The tokens of a prose text (never modify them: they are shared)."""
    return tuple(PARSER.parse(text))


# -- reading tokens -----------------------------------------------------------
def top_level_blocks(tokens: Sequence[Token]) -> Iterator[tuple[int, int]]:
    """(start, end) indexes of each top-level block: a heading, a paragraph, a list…"""
    start = 0
    while start < len(tokens):
        end = start + 1
        if tokens[start].nesting == 1:
            while tokens[end].level > 0:
                end += 1
            end += 1
        yield start, end
        start = end


def previous_block(tokens: Sequence[Token], index: int) -> int | None:
    """The opening token of the block before tokens[index] at its level, other attribute
    lines skipped: the block that an attribute line belongs to (None if none)."""
    level, position = tokens[index].level, index - 1
    while position >= 0 and tokens[position].type == "role_block":
        position -= 1
    if position < 0 or tokens[position].level != level or tokens[position].nesting == 1:
        return None
    while tokens[position].nesting == -1 or tokens[position].level != level:
        position -= 1
    return position


def enclosing_block(tokens: Sequence[Token], index: int) -> int:
    """The opening token of the top-level block that holds tokens[index]."""
    while tokens[index].level > 0 or tokens[index].nesting == -1:
        index -= 1
    return index


def attributes(tokens: Sequence[Token], index: int) -> dict[str, Token]:
    """The attribute lines (``role_block`` tokens) from tokens[index] on, by role."""
    found: dict[str, Token] = {}
    while index < len(tokens) and tokens[index].type == "role_block":
        found[tokens[index].meta["role"]] = tokens[index]
        index += 1
    return found


def leading_image(tokens: Sequence[Token], index: int) -> Token | None:
    """The image a paragraph starts with (a figure's, with its caption as alt text)."""
    if tokens[index].type != "paragraph_open":
        return None
    children = tokens[index + 1].children or []
    return children[0] if children and children[0].type == "image" else None


def figure_image(tokens: Sequence[Token], index: int) -> Token | None:
    """The image of a figure: a top-level paragraph made of one image alone."""
    image = leading_image(tokens, index)
    alone = image is not None and len(tokens[index + 1].children) == 1
    return image if alone and tokens[index].level == 0 else None


FENCE_ALT = re.compile(r'\balt=(?:"((?:[^"\\]|\\.)*)"|([^\s"}]+))')
"""A code fence's ``alt`` attribute, in pandoc's syntax (as d2lbook's ``n=1``): quoted,
with backslash escapes, or one word."""


def fence_alt(info: str) -> str:
    """The ``alt="…"`` attribute of a code fence's info string ("" without one): the
    description of the figures the cell draws (output/descriptions.py)."""
    quoted, word = match.groups() if (match := FENCE_ALT.search(info)) else (None, "")
    return word if quoted is None else re.sub(r"\\(.)", r"\1", quoted)


def is_label(token: Token) -> bool:
    return token.type == "role" and token.meta["role"] in LABEL_ROLES


def heading_title(inline: Token) -> str:
    """A heading's Markdown text without its `` :label:`x` ``."""
    parts, position = [], 0
    for child in inline.children or ():
        if is_label(child):
            start, end = child.meta["span"]
            parts.append(inline.content[position:start])
            position = end
    parts.append(inline.content[position:])
    return "".join(parts).strip()


def plain_text(tokens: Sequence[Token]) -> str:
    """The text of inline tokens without markup (code and math as written, roles left out
    but those this build cannot read, shown as written)."""
    parts = []
    for token in tokens:
        if token.children:
            parts.append(plain_text(token.children))
        elif token.type == "unknown_role":
            parts.append(token.markup)
        elif token.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif token.type in ("text", "code_inline") or token.type.startswith("math"):
            parts.append(token.content)
    return "".join(parts)


def child_lines(inline: Token) -> Iterator[tuple[Token, int]]:
    """Each child of an inline token (images' alt text included) with its line, counted
    from the first line of the inline token. Roles and images know where they are
    written; math and inline HTML are found as written after the child before them."""
    position, content = 0, inline.content
    # Where each line ends: a child's line is a lookup, not a count from the start (quadratic
    # in a long paragraph).
    ends = [match.start() for match in NEWLINE.finditer(content)]
    for child in inline.children or ():
        span = child.meta.get("span")
        if span:
            position = span[0]
        elif child.type in WRITTEN_AS_IS and content.find(child.content, position) >= 0:
            position = content.find(child.content, position)
        line = bisect.bisect_left(ends, position)
        yield child, line
        for nested in child.children or ():
            yield nested, line


def located_tokens(tokens: Sequence[Token], first_line: int) -> Iterator[tuple[Token, int]]:
    """Every block token and every inline child of a prose cell with its .md line (the
    cell's first line is `first_line`)."""
    for token in tokens:
        line = first_line + token.map[0] if token.map else first_line
        yield token, line
        if token.type == "inline":
            for child, offset in child_lines(token):
                yield child, line + offset


def source_spans(tokens: Sequence[Token], text: str) -> Iterator[tuple[Token, int, int]]:
    """The roles, attribute lines and images of `tokens` (parsed from `text`) with the
    (start, end) offsets where `text` holds them; attribute lines with their newline."""
    starts = [0, *(match.end() for match in NEWLINE.finditer(text)), len(text)]
    searched: dict[int, int] = {}   # line -> offset where its next inline content may start
    for token in tokens:
        if token.type == "role_block":
            yield token, starts[token.map[0]], starts[token.map[1]]
        elif token.type == "inline" and token.map:
            yield from _inline_spans(token, text, starts, searched)


def edited(text: str, edits: list[tuple[int, int, str]]) -> str:
    """`text` with each (start, end) span of `edits` (such as `source_spans` gives), in
    order and apart, replaced: one join, since rebuilding the text at each edit is
    quadratic in a long paragraph."""
    pieces, kept = [], 0
    for start, end, replacement in edits:
        pieces += (text[kept:start], replacement)
        kept = end
    pieces.append(text[kept:])
    return "".join(pieces)


def _inline_spans(inline: Token, text: str, starts: list[int],
                  searched: dict[int, int]) -> Iterator[tuple[Token, int, int]]:
    # An inline token's lines are its source lines less their block prefix (indent,
    # "> ", list marker, table pipes): find each in its line, left to right.
    content_starts, text_starts, position = [], [], 0
    for number, part in enumerate(inline.content.split("\n"), start=inline.map[0]):
        found = text.find(part, searched.get(number, starts[number]), starts[number + 1])
        if found < 0:
            return   # a tab expanded by the block parser: left as written
        searched[number] = found + len(part)
        content_starts.append(position)
        text_starts.append(found)
        position += len(part) + 1

    def offset(at: int) -> int:
        line = bisect.bisect_right(content_starts, at) - 1
        return text_starts[line] + at - content_starts[line]

    for child in inline.children or ():
        if "span" in child.meta:
            yield child, offset(child.meta["span"][0]), offset(child.meta["span"][1])
