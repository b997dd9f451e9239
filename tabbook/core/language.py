"""The reader's language: every fixed word that readers see, in each supported language.

The site's interface, the references' text, the provenance sentence, the PDF's
title page and the launch notebooks' first cells all take their words from
`CATALOGUES`, through the book's `Language` (``[project] lang``). A catalogue
string is plain text with ``{named}`` values; the output that shows it applies
its own escaping and, for French, its typography (``output/typography.py``).

d2lbook's default language is English, and so is this build's: a book without
``lang`` (or with an empty one) reads in English, and so does a book in a
language that has no catalogue here (with a warning).
"""
from __future__ import annotations

import datetime
import re
from collections.abc import Sequence
from dataclasses import dataclass

from .catalogues import CATALOGUES

DEFAULT = "en"
"""The catalogue of a book that names no language, or one this build lacks (d2lbook's)."""


_MONTHS = {
    "fr": ("janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août",
           "septembre", "octobre", "novembre", "décembre"),
    "en": ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December"),
}


def _french_date(day: datetime.date) -> str:
    return f"{'1er' if day.day == 1 else day.day} {_MONTHS['fr'][day.month - 1]} {day.year}"


def _english_date(day: datetime.date) -> str:
    return f"{_MONTHS['en'][day.month - 1]} {day.day}, {day.year}"


def _chinese_date(day: datetime.date) -> str:
    return f"{day.year}年{day.month}月{day.day}日"


# A date and an hour (UTC): the provenance sentence's.
_DATES = {"fr": _french_date, "en": _english_date, "zh": _chinese_date}
_MOMENTS = {"fr": lambda when: when.strftime("%d/%m/%Y à %H:%M UTC"),
            "en": lambda when: f"{_english_date(when)} at {when:%H:%M} UTC",
            "zh": lambda when: f"{_chinese_date(when)} {when:%H:%M} UTC"}
_DECIMAL_COMMA = {"fr"}
_LIST_SEPARATOR = {"zh": "、"}
_AND = {"fr": " et ", "en": " and ", "zh": "和"}


@dataclass(frozen=True)
class Language:
    """The book's language: the catalogue its readers' words come from, and its tag."""
    code: str
    """The catalogue: a key of `CATALOGUES`."""
    tag: str
    """What the HTML ``lang`` attribute says: the book's language as written (``zh-CN``),
    even when its catalogue is English."""

    def text(self, key: str, **values: object) -> str:
        """The catalogue's string `key`, with its ``{named}`` values filled in."""
        return self.template(key).format(**values)

    def template(self, key: str) -> str:
        """The catalogue's string `key` as written, ``{named}`` values unfilled."""
        return CATALOGUES[self.code][key]

    def plural(self, key: str, n: int) -> str:
        """``key_one`` or ``key_many`` for `n` things, e.g. « 1 cellule », « 3 cellules »."""
        return self.text(f"{key}_one" if n == 1 else f"{key}_many", n=n)

    def join(self, items: Sequence[str]) -> str:
        """« a, b et c », “a, b and c”, 「a、b和c」."""
        if len(items) < 2:
            return "".join(items)
        separator = _LIST_SEPARATOR.get(self.code, ", ")
        return separator.join(items[:-1]) + _AND[self.code] + items[-1]

    def sentences(self, *texts: str) -> str:
        """Sentences one after the other (a space between them, none in Chinese)."""
        return ("" if self.code == "zh" else " ").join(filter(None, texts))

    def date(self, day: datetime.date) -> str:
        """« 1er novembre 2026 », “November 1, 2026”, 「2026年11月1日」."""
        return _DATES[self.code](day)

    def moment(self, when: datetime.datetime) -> str:
        """A date and time in UTC: « 21/11/2026 à 10:00 UTC »."""
        return _MOMENTS[self.code](when)

    def decimal(self, value: float) -> str:
        """`value` with one decimal, as the language writes it: « 4,2 », “4.2”."""
        text = f"{value:.1f}"
        return text.replace(".", ",") if self.code in _DECIMAL_COMMA else text

    @property
    def french(self) -> bool:
        """Whether French typography applies (``output/typography.py``)."""
        return self.code == "fr"


ENGLISH_LANGUAGE = Language(DEFAULT, DEFAULT)
_TAG = re.compile(r"[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*")


def language_of(written: str) -> tuple[Language, str | None]:
    """The `Language` of ``[project] lang = written``, and what is wrong with it (None when
    nothing): an empty value is English (d2lbook's default); a language without a
    catalogue here reads in English too (Sphinx's fallback), which the caller warns about."""
    tag = written.strip().replace("_", "-")
    if not tag:
        return ENGLISH_LANGUAGE, None
    primary, _, rest = tag.partition("-")
    primary = primary.lower()
    if primary in CATALOGUES:
        return Language(primary, "-".join(filter(None, [primary, rest]))), None
    if not _TAG.fullmatch(tag):
        return ENGLISH_LANGUAGE, f"{written!r} is not a language code"
    return Language(DEFAULT, tag), f"{written!r} has no catalogue of interface strings here"
