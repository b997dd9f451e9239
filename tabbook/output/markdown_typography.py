"""French typography of a notebook's Markdown (the launch notebooks' prose), written back
into the Markdown: `typeset_markdown`.

The HTML renderer applies `french` to markdown-it's text tokens, a figure's caption
included; here the same text is changed where it is written, so each child of an inline
token (and of an image: its caption) is found in its source. The
children are found in order, each from where the one before it ends, so that a paragraph
is read once whatever its length: escapes and entities stay tokens of their own (never
joined to the text around them) and links record where they end, so that nothing is
searched for that is not written as it is.
"""
from __future__ import annotations

import functools
import itertools
from collections.abc import Callable

from markdown_it import MarkdownIt, rules_inline
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token

from ..core.language import Language
from ..source.roles import edited, prose_markdown
from .typography import SPACES, french


def _ended(rule: Callable[[StateInline, bool], bool]) -> Callable[[StateInline, bool], bool]:
    """The markdown-it rule of links (or autolinks), recording on each link's close token
    the span where the whole link is written: its target need not be searched for."""
    def rule_with_span(state: StateInline, silent: bool) -> bool:
        start = state.pos
        if not rule(state, silent):
            return False
        if not silent:
            state.tokens[-1].meta = {**state.tokens[-1].meta, "span": (start, state.pos)}
        return True
    return rule_with_span


def _typesetting_markdown() -> MarkdownIt:
    """The prose parser, escapes and entities left apart from the text around them (whose
    text is then as written), links knowing where they end."""
    md = prose_markdown()
    md.disable("text_join")
    md.inline.ruler.at("link", _ended(rules_inline.link))
    md.inline.ruler.at("autolink", _ended(rules_inline.autolink))
    return md


_PARSER = _typesetting_markdown()


@functools.lru_cache(maxsize=1024)   # a cell common to the tabs is parsed once
def _typesetting_tokens(text: str) -> tuple[Token, ...]:
    """The tokens of a prose text for `typeset_markdown` (never modify them: shared)."""
    return tuple(_PARSER.parse(text))


def typeset_markdown(text: str, language: Language) -> str:
    """A notebook's Markdown in the book's typography (French spacing for a French book),
    as the HTML renderer sets it: only the text of the prose (and of images' captions)
    changes, never code spans, mathematics, raw HTML, roles, image paths, URLs or link
    targets."""
    if not language.french:
        return text
    lines = text.split("\n")
    for inline in _typesetting_tokens(text):
        if inline.type != "inline" or not inline.map:
            continue
        content = inline.content
        typeset_content = _typeset_inline(inline, content)
        if typeset_content == content:
            continue
        # Put each changed line back where it is written (after its block prefix).
        for number, (old, new) in enumerate(zip(content.split("\n"),
                                                typeset_content.split("\n")),
                                            start=inline.map[0]):
            if old != new and number < len(lines) and lines[number].count(old) == 1:
                lines[number] = lines[number].replace(old, new)
    return "\n".join(lines)


def _typeset_inline(inline: Token, content: str) -> str:
    """`content` (an inline token's) with `french` applied to its text only."""
    return edited(content, _text_regions(inline.children or [], content, 0, 0))


def _text_regions(children: list[Token], content: str, cursor: int,
                  base: int) -> list[tuple[int, int, str]]:
    """(start, end, typeset text) of each run of text of `children`, found in `content`
    from `cursor` on; `base` is where the text they were parsed from starts in `content`
    (an image's caption, prose too, is parsed apart from its paragraph)."""
    regions = []
    for textual, run in itertools.groupby(_written_children(children), _textual):
        if not textual:
            for child in run:
                if child.type == "image":   # its caption starts after "!["
                    caption = base + child.meta["span"][0] + 2
                    regions += _text_regions(child.children or [], content, caption, caption)
                cursor = _past(child, content, cursor, base)
            continue
        run = list(run)
        written = "".join(child.markup if child.type == "text_special" else child.content
                          for child in run)
        found = content.find(written, cursor)
        cursor = found + len(written)
        plain = written == "".join(child.content for child in run)   # no escape or entity
        regions.append((found, cursor, french(written) if plain else _typeset_run(run)))
    return regions


def _typeset_run(run: list[Token]) -> str:
    """A run of text with escapes or entities, written with the spacing that `french` gives
    the text it reads as (which the HTML renderer shows). `french` keeps every character but
    spaces, in order: what it keeps is written as it was (an escape, an entity), a space it
    takes out goes, one it puts in is written."""
    reads = "".join(child.content for child in run)
    owner = [child for child in run for _ in child.content]   # the token of each character
    written, at, last = [], 0, None
    for char in french(reads):
        while at < len(reads) and reads[at] != char and reads[at] in SPACES:
            at += 1   # a space taken out (or replaced by `char`)
        if at == len(reads) or reads[at] != char:
            written.append(char)   # a space put in
            continue
        if owner[at].type == "text":
            written.append(char)
        elif owner[at] is not last:   # an escape or an entity, once for all it reads as
            written.append(owner[at].markup)
        last, at = owner[at], at + 1
    return "".join(written)


def _written_children(children: list[Token]) -> list[Token]:
    """An inline token's (or an image's) children but an autolink's text: its URL, not as
    written (nor typeset), which the autolink's span skips."""
    return [child for index, child in enumerate(children)
            if not (index and children[index - 1].type == "link_open" and
                    children[index - 1].markup == "autolink")]


def _textual(child: Token) -> bool:
    return child.type in ("text", "text_special")


def _past(child: Token, content: str, cursor: int, base: int) -> int:
    """Where `content` goes on after `child`, which stays as written: a role, an image or a
    link (its span, from `base`), code (`_past_code`), math or raw HTML (its content)."""
    if "span" in child.meta:
        return max(cursor, base + child.meta["span"][1])
    if child.type == "code_inline":
        return _past_code(child, content, cursor)
    written = child.content
    found = content.find(written, cursor) if written else -1
    return found + len(written) if found >= 0 else cursor


def _past_code(child: Token, content: str, cursor: int) -> int:
    """Where a code span ends: its content is what its backticks hold, newlines as spaces,
    less one space at each end when it has one at both."""
    opened = content.find(child.markup, cursor) + len(child.markup)
    for closed in (opened + len(child.content), opened + len(child.content) + 2):
        if content.startswith(child.markup, closed) and content[closed - 1] != "`":
            return closed + len(child.markup)
    return cursor
