"""d2lbook's slide marks in prose: found as its `_match_slide_marks` finds them, located
when they are wrong, and removed from the book's text.

- ``[**texte**]`` starts a new slide with ``texte``, ``(**texte**)`` adds it to the current
  slide; the book shows ``texte``.
- ``[~~texte~~]`` and ``(~~texte~~)`` are text for the slides only: the book drops them.
- ``[**a**](url)`` (a closer followed by ``(``) is a bold link, not a mark.

Marks are read in the raw text of a prose cell, as d2lbook reads them in a markdown cell
(code spans included). The openers and closers of each pair are paired in order; a closer
that closes nothing, an opener never closed, a mark opened inside another (of any pair)
is an error (d2lbook asserts on them), located at the offending mark. The cells' tokens
(`book_tokens`) are those of the text without marks, with the line maps of the source.
"""
from __future__ import annotations

from dataclasses import dataclass

from markdown_it.token import Token

from .roles import edited, prose_tokens, removed_span

PAIRS = (("[**", "**]"), ("(**", "**)"), ("[~~", "~~]"), ("(~~", "~~)"))
MARK_LENGTH = 3
SLIDES_KEY = "slides"
"""Where a split notebook's Markdown cell keeps its slide marks (in its ``tabbook``
metadata): [opener, text] of each, in order."""


@dataclass(frozen=True)
class SlideMark:
    """One mark: `opener` (``[**``…), its text, and where it is written in the text
    (`start` at the opener, `end` after the closer)."""
    opener: str
    text: str
    start: int
    end: int

    @property
    def new_slide(self) -> bool:
        """``[`` marks start a slide, ``(`` marks add to the current one."""
        return self.opener.startswith("[")

    @property
    def slides_only(self) -> bool:
        """``~~`` marks are not in the book."""
        return self.opener.endswith("~~")


class SlideMarkError(ValueError):
    """A mark left open, closing nothing, or inside another, at `offset` in the text."""

    def __init__(self, offset: int, message: str, fix: str):
        super().__init__(message)
        self.offset = offset
        self.message = message
        self.fix = fix


def _occurrences(text: str, mark: str) -> list[int]:
    found, at = [], text.find(mark)
    while at >= 0:
        found.append(at)
        at = text.find(mark, at + 1)
    return found


def _paired(text: str, opener: str, closer: str) -> list[SlideMark]:
    """The marks of one pair, links ``[**a**](url)`` left out (but paired, as d2lbook)."""
    events = sorted([(at, True) for at in _occurrences(text, opener)]
                    + [(at, False) for at in _occurrences(text, closer)])
    marks, open_at = [], None
    for at, is_opener in events:
        if is_opener and open_at is not None:
            raise SlideMarkError(open_at, f"slide mark `{opener}` is not closed by `{closer}` "
                                          f"before the next `{opener}`",
                                 f"close it with `{closer}`: slide marks do not nest")
        if is_opener:
            open_at = at
        elif open_at is None or at < open_at + MARK_LENGTH:
            raise SlideMarkError(at, f"`{closer}` closes no slide mark `{opener}`",
                                 f"open the mark with `{opener}`, or write `{closer[:2]} "
                                 f"{closer[2]}` if it is not a slide mark")
        else:
            if not (closer.endswith("]") and text.startswith("(", at + MARK_LENGTH)):
                marks.append(SlideMark(opener, text[open_at + MARK_LENGTH:at], open_at,
                                       at + MARK_LENGTH))
            open_at = None
    if open_at is not None:
        raise SlideMarkError(open_at, f"slide mark `{opener}` is never closed by `{closer}`",
                             f"close it with `{closer}`, or write `{opener[0]} {opener[1:]}` "
                             "if it is not a slide mark")
    return marks


def slide_marks(text: str) -> tuple[SlideMark, ...]:
    """The marks of a prose text, in order; `SlideMarkError` if they are wrong."""
    if "**" not in text and "~~" not in text:   # most prose: nothing to look for
        return ()
    marks = sorted((mark for opener, closer in PAIRS for mark in _paired(text, opener, closer)),
                   key=lambda mark: mark.start)
    for before, after in zip(marks, marks[1:]):
        if after.start < before.end:
            raise SlideMarkError(after.start, f"slide mark `{after.opener}` is inside the "
                                              f"slide mark `{before.opener}` before it",
                                 "close the first mark before opening the next one: slide "
                                 "marks do not nest or overlap")
    return tuple(marks)


def valid_slide_marks(text: str) -> tuple[SlideMark, ...]:
    """The marks of a prose text; none where they are wrong (the check reports them)."""
    try:
        return slide_marks(text)
    except SlideMarkError:
        return ()


def book_text(text: str) -> tuple[str, list[int]]:
    """`text` as the book shows it: ``**`` marks replaced by their text, ``~~`` marks
    dropped (with the spaces before them, and their line when they stand alone there); and
    for each line of it, the line of `text` it comes from. Wrong marks are left as they
    are (the check reports them)."""
    marks = valid_slide_marks(text)
    edits = [(*removed_span(text, mark.start, mark.end), "") if mark.slides_only else
             (mark.start, mark.end, mark.text) for mark in marks]
    shown = edited(text, edits)
    # The source ranges the shown text is made of, in order: each newline in them starts a
    # line of the shown text, whose origin is the line after that newline.
    kept_ranges, kept = [], 0
    for mark, (start, end, _) in zip(marks, edits):
        kept_ranges.append((kept, start))
        if not mark.slides_only:
            kept_ranges.append((start + MARK_LENGTH, end - MARK_LENGTH))
        kept = end
    kept_ranges.append((kept, len(text)))
    origins = [0]
    for start, end in kept_ranges:
        line_after = text.count("\n", 0, start) + 1
        origins += range(line_after, line_after + text.count("\n", start, end))
    return shown, origins


def book_tokens(text: str) -> tuple[Token, ...]:
    """The tokens of a prose cell's `text` without its slide marks, their line maps
    counted in `text`."""
    shown, origins = book_text(text)
    tokens = prose_tokens(shown)
    if origins[-1] == len(origins) - 1:
        return tokens   # no line removed: the maps are right
    def origin(line: int) -> int:   # a map may end after the last line
        return origins[line] if line < len(origins) else origins[-1] + line - len(origins) + 1

    for token in tokens:   # a map's end is the line after the block
        if token.map:
            start, end = token.map
            token.map = [origin(start), origin(end - 1) + 1 if end > start else origin(start)]
    return tokens


def mark_problem(text: str) -> tuple[int, str, str] | None:
    """(line in `text` counted from 0, message, fix) of the first wrong mark, if any."""
    try:
        slide_marks(text)
    except SlideMarkError as err:
        return text.count("\n", 0, err.offset), err.message, err.fix
    return None
