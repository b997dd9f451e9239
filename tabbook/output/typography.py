"""French typography of the text readers read, applied when rendering: sources stay plain.

It applies to French books only (``[project] lang = fr``): `typeset(text, language)`
is `french(text)` for them and the text as written for any other language.

`french(text)` is the only place that knows these rules; the renderer
(`markup.py`) applies it to the text of the prose (markdown-it ``text`` tokens:
never code, mathematics, raw HTML or a link's target) and to titles shown
elsewhere (table of contents, pager, page title), so every output made from the
renderer gets it.

- A narrow no-break space (U+202F) before ``; : ! ?`` used as punctuation: a
  run of them followed by a space, the end of the text or a closing sign
  (``» ) ] . ,``). A plain or no-break space before becomes the narrow one; a
  missing one is added. ``10:30``, ``1:2``, ``a::b``, ``http://x`` and
  ``page?x=1`` are left alone: their sign is followed by a letter or digit.
- A narrow no-break space inside « » (after « and before »), replacing any
  space written there.
- Numbers written with space-separated thousands take a narrow no-break space
  between their groups, as in French printing: ``1 200`` -> ``1 200``
  (U+202F). Only groups of exactly three digits after a first group of one to
  three count.
- A no-break space (U+00A0) between a number and a unit of `UNITS` or ``%``
  when a space separates them (``80 Go``, ``2,5 GHz``, ``50 %``); a unit glued
  to its number (``80Go``) is left as written.
"""
from __future__ import annotations

import re

from ..core.language import Language

NARROW = "\u202f"
"""Narrow no-break space: before ; : ! ?, inside « », between groups of digits."""
NO_BREAK = "\u00a0"
"""No-break space: between a number and its unit."""

UNITS = ("%", "Ko", "Kio", "Mo", "Mio", "Go", "Gio", "To", "Tio", "KB", "KiB", "MB", "MiB",
         "GB", "GiB", "TB", "TiB", "bit", "bits", "kbit", "Mbit", "Gbit", "Gb", "W", "kW", "Hz",
         "kHz", "MHz", "GHz", "ns", "µs", "ms", "s", "min", "h", "°C", "€", "FLOPS", "GFLOPS",
         "TFLOPS", "PFLOPS", "cm", "mm")
"""The units that a no-break space ties to the number before them."""

SPACES = " \u00a0\u202f"
"""The spaces that `french` replaces: plain, no-break, narrow no-break."""
# Both start a match at the first space or sign of a run only (not inside a run of signs:
# their opening bracket or space left them alone): trying again from each is quadratic.
_PUNCTUATION = re.compile(rf"(?<![(\[{SPACES}])(?!(?<=[;:!?])[;:!?])[{SPACES}]*([;:!?]+)(?=[\s»)\].,]|$)")
_OPEN_QUOTE = re.compile(rf"«[{SPACES}]*")
_CLOSE_QUOTE = re.compile(rf"(?<![{SPACES}])[{SPACES}]*»")
_THOUSANDS = re.compile(rf"(?<![\d.,])\d{{1,3}}(?:[{SPACES}]\d{{3}})+(?!\d)")
_UNIT_NAMES = "|".join(sorted(map(re.escape, UNITS), key=len, reverse=True))
_UNIT = re.compile(rf"(?<=\d)[{SPACES}]({_UNIT_NAMES})(?!\w)")


_LEADING_UNIT = re.compile(rf"[{SPACES}]({_UNIT_NAMES})(?!\w)")


def tie_leading_unit(text: str) -> str:
    """`text` that follows a number shown apart (an inline value): a unit it starts with
    is tied to that number by a no-break space, as `french` ties ``80 Go``."""
    return _LEADING_UNIT.sub(lambda m: NO_BREAK + m.group(1), text, count=1) \
        if _LEADING_UNIT.match(text) else text


def starts_with_punctuation(text: str) -> bool:
    """Whether `text` begins with a sign that `french` puts a narrow space before."""
    return _PUNCTUATION.match(text) is not None and text[:1] in ";:!?"


def french(text: str) -> str:
    """`text` with French spacing (see the module's docstring); idempotent."""
    text = _THOUSANDS.sub(lambda m: re.sub(f"[{SPACES}]", NARROW, m.group(0)), text)
    text = _UNIT.sub(lambda m: NO_BREAK + m.group(1), text)
    text = _OPEN_QUOTE.sub("«" + NARROW, text)
    text = _CLOSE_QUOTE.sub(NARROW + "»", text)
    return _PUNCTUATION.sub(lambda m: NARROW + m.group(1), text)


def typeset(text: str, language: Language) -> str:
    """`text` in the typography of `language`: French spacing for a French book, the text
    as written otherwise."""
    return french(text) if language.french else text
