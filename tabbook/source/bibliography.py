"""BibTeX entries for d2lbook's ``:cite:`key``` and ``:bibliography:`file.bib```.

Just what a reference list shows (authors, title, venue, year), read as BibTeX
reads it: ``@string`` macros (and the months) and ``#`` concatenation, names split
on the ``and`` outside braces, a braced name kept whole. Field values are LaTeX:
the standard accent commands (``\\'e``, ``\\'{e}``, ``{\\'e}``, ``{\\c c}``,
``\\v{s}``, ``\\"{\\i}``…), the special letters (``\\ss``, ``\\o``, ``\\ae``,
``\\l``…), escaped signs, ties, dashes and quotes become Unicode text; font
commands (``\\emph``, ``\\textbf``…) leave their argument; braces go.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from ..core.language import Language
from ..core.model import Section

ENTRY_START = re.compile(r"@(?!(?i:string|comment|preamble)\b)(\w+)\s*\{\s*([^,\s]+)\s*,")
FIELD_NAME = re.compile(r"\s*,?\s*(\w+)\s*=\s*")
STRING_START = re.compile(r"@string\s*[{(]", re.IGNORECASE)
CONCATENATION = re.compile(r"\s*#\s*")
MONTHS = {name: name.capitalize() for name in (
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december")}
STRINGS = {name[:3]: full for name, full in MONTHS.items()}
"""BibTeX's predefined macros: the months (``month = jan``)."""


@dataclass(frozen=True)
class Name:
    """One author, decoded: ``first`` may be empty (a one-word or braced name)."""
    first: str
    last: str

    def __str__(self) -> str:
        return f"{self.first} {self.last}".strip()


@dataclass(frozen=True)
class Entry:
    key: str
    kind: str
    fields: dict[str, str]
    """Field name (lower case) -> its value as text (macros expanded, LaTeX decoded)."""
    names: tuple[Name, ...] = ()
    """The author field's names."""

    def label(self, language: Language) -> str:
        """How the text cites it, author and year: « Knuth, 1984 », « Patarasuk et Yuan,
        2009 », « Goyal et al., 2017 » (“Patarasuk and Yuan, 2009” in English)."""
        lasts = [name.last for name in self.names]
        who = lasts[0] if len(lasts) == 1 else \
            f"{lasts[0]} {language.text('and')} {lasts[1]}" if len(lasts) == 2 else \
            f"{lasts[0]} {language.text('et_al')}" if lasts else self.key
        return f"{who}, {self.fields.get('year', language.text('no_date'))}"

    def text(self, language: Language) -> str:
        """« Authors (year). Title. Venue, volume(number), pages. »"""
        venue = ", ".join(filter(None, [
            next((self.fields[f] for f in ("journal", "booktitle", "publisher", "institution",
                                               "school", "organization", "howpublished")
                  if f in self.fields), ""),
            self.fields.get("volume", "") + (f"({self.fields['number']})"
                                             if "number" in self.fields else ""),
            self.fields.get("pages", "")]))
        shown = [str(name) for name in self.names]
        authors = ", ".join(shown[:-1]) + f" {language.text('and')} " + shown[-1] \
            if len(shown) > 1 else "".join(shown)
        parts = [f"{authors} ({self.fields.get('year', language.text('no_date'))})".strip(),
                 self.fields.get("title", ""), venue]
        return ". ".join(p for p in parts if p) + "."


# -- LaTeX to text ------------------------------------------------------------------
ACCENTS = {"'": "\u0301", "`": "\u0300", "^": "\u0302", '"': "\u0308", "~": "\u0303",
           "=": "\u0304", ".": "\u0307", "c": "\u0327", "v": "\u030c", "u": "\u0306",
           "H": "\u030b", "k": "\u0328", "r": "\u030a", "d": "\u0323", "b": "\u0331",
           "t": "\u0361"}
"""Accent command -> the combining mark it puts on its letter."""
LETTERS = {"ss": "ß", "SS": "SS", "o": "ø", "O": "Ø", "ae": "æ", "AE": "Æ", "oe": "œ",
           "OE": "Œ", "aa": "å", "AA": "Å", "l": "ł", "L": "Ł", "i": "ı", "j": "ȷ", "dh": "ð",
           "DH": "Ð", "th": "þ", "TH": "Þ", "ng": "ŋ", "NG": "Ŋ"}
WORDS = {"textendash": "–", "textemdash": "—", "ldots": "…", "dots": "…",
         "textellipsis": "…", "textquoteleft": "‘", "textquoteright": "’",
         "textquotedblleft": "“", "textquotedblright": "”", "guillemotleft": "«",
         "guillemotright": "»", "S": "§", "P": "¶", "copyright": "©", "pounds": "£",
         "euro": "€", "textdegree": "°", "textregistered": "®", "texttrademark": "™",
         "textasciitilde": "~", "textbackslash": "\\", "textunderscore": "_"}
"""Commands that stand for a character."""
FONTS = frozenset({"emph", "textit", "textbf", "texttt", "textsc", "textrm", "textsf",
                   "textup", "textsl", "textmd", "textnormal", "mathrm", "mathit", "mathbf",
                   "mbox", "hbox", "url", "em", "it", "bf", "sc", "rm", "tt", "sf", "sl",
                   "relax", "protect", "nocase", "selectlanguage"})
"""Commands that only change how their argument looks: dropped, the argument kept."""
_ACCENT = re.compile(r"""\\(?:([`'^"~=.])|([cvuHkrdbt])(?![A-Za-z]))\s*"""
                     r"(?:\{\s*(\\[A-Za-z]+|[^{}\\\s])\s*\}|(\\[A-Za-z]+|[A-Za-z0-9]))")
_LETTER = re.compile(r"\\(" + "|".join(sorted(LETTERS, key=len, reverse=True)) +
                     r")(?![A-Za-z])\s*")
_COMMAND = re.compile(r"\\([A-Za-z]+)\s*")
_SYMBOL = re.compile(r"\\([^A-Za-z])")
_SIGNS = (("---", "—"), ("--", "–"), ("``", "“"), ("''", "”"), ("~", "\u00a0"), ("$", ""))
_KEPT = 0xE000
"""Characters that escapes and commands produce are held in the private use area from
_KEPT (code point + _KEPT) while braces, ties and math signs go, then restored."""


def _kept(text: str) -> str:
    return "".join(chr(_KEPT + ord(c)) if ord(c) < 128 else c for c in text)


def _accented(match: re.Match) -> str:
    accent = match.group(1) or match.group(2)
    letter = match.group(3) or match.group(4)
    if letter.startswith("\\"):   # \i, \j: dotless letters take the accent as i, j
        name = letter[1:]
        letter = {"i": "i", "j": "j"}.get(name) or LETTERS.get(name, name)
    return letter + ACCENTS[accent]


def _symbol(match: re.Match) -> str:
    r"""``\&`` -> &, ``\-`` (a hyphenation point) -> nothing, ``\,`` and ``\ `` -> a space."""
    sign = match.group(1)
    return "" if sign == "-" else " " if sign in ", " else _kept(sign)


def _command(match: re.Match) -> str:
    name = match.group(1)
    if name in FONTS:
        return ""
    return _kept(WORDS[name]) if name in WORDS else name   # \TeX -> TeX


def latex_text(value: str) -> str:
    """A BibTeX field's LaTeX as plain Unicode text (NFC)."""
    value = _ACCENT.sub(_accented, value)
    value = _LETTER.sub(lambda m: LETTERS[m.group(1)], value)
    value = _SYMBOL.sub(_symbol, value)
    value = _COMMAND.sub(_command, value)
    value = value.replace("{", "").replace("}", "")
    for sign, text in _SIGNS:
        value = value.replace(sign, text)
    value = re.sub("[\ue000-\ue07f]", lambda m: chr(ord(m.group(0)) - _KEPT), value)
    return unicodedata.normalize("NFC", re.sub(r"[ \t\r\n]+", " ", value).strip())


# -- names --------------------------------------------------------------------------
def _top_level_split(text: str, separator: re.Pattern) -> list[str]:
    """`text` split where `separator` matches outside braces."""
    parts, depth, start, index = [], 0, 0, 0
    while index < len(text):
        char = text[index]
        depth += {"{": 1, "}": -1}.get(char, 0)
        found = separator.match(text, index) if depth == 0 else None
        if found and found.end() > index:
            parts.append(text[start:index])
            start = index = found.end()
            continue
        index += 1
    return parts + [text[start:]]


_AND = re.compile(r"\s+and\s+", re.IGNORECASE)


def _name(written: str) -> Name:
    """BibTeX's « Last, First » or « First Last » (a braced last word, kept whole)."""
    parts = [p.strip() for p in _top_level_split(written.strip(), re.compile(","))]
    if len(parts) > 1:   # Last, First or Last, Jr, First
        return Name(latex_text(parts[-1]), latex_text(parts[0]))
    words = _top_level_split(parts[0], re.compile(r"\s+"))
    return Name(latex_text(" ".join(words[:-1])), latex_text(words[-1]))


def names(author: str) -> tuple[Name, ...]:
    """The names of an author field, as written in the .bib file."""
    return tuple(_name(n) for n in _top_level_split(author.strip(), _AND) if n.strip())


# -- reading the file ---------------------------------------------------------------
def _piece(text: str, start: int, strings: dict[str, str]) -> tuple[str, int]:
    """One part of a value at `start`: {braced}, "quoted" (braces may hold a quote), a
    number or a macro's name; and where it ends."""
    if start < len(text) and text[start] in "{\"":
        depth, index = 0, start + 1
        closing = "}" if text[start] == "{" else '"'
        while index < len(text) and not (depth == 0 and text[index] == closing):
            depth += {"{": 1, "}": -1}.get(text[index], 0)
            index += 1
        return text[start + 1:index], min(index + 1, len(text))
    word = re.match(r"[^,}#\s)]*", text[start:]).group(0)
    return (word if word.isdigit() else strings.get(word.lower(), word)), start + len(word)


def _value(text: str, start: int, strings: dict[str, str]) -> tuple[str, int]:
    """A field value at `start`, its parts joined by ``#``; and where it ends."""
    pieces = []
    while True:
        piece, start = _piece(text, start, strings)
        pieces.append(piece)
        joined = CONCATENATION.match(text, start)
        if not joined:
            return "".join(pieces), start
        start = joined.end()


def _strings(text: str) -> dict[str, str]:
    """The ``@string{name = value}`` macros of a file, in order (one may use an earlier one),
    with BibTeX's months."""
    strings = dict(STRINGS)
    for match in STRING_START.finditer(text):
        name = FIELD_NAME.match(text, match.end())
        if name:
            strings[name.group(1).lower()], _ = _value(text, name.end(), strings)
    return strings


def read_bibliography(path: Path) -> dict[str, Entry]:
    """Key -> entry for every entry of a .bib file."""
    text = path.read_text(encoding="utf-8", errors="replace")
    strings = _strings(text)
    entries = {}
    for match in ENTRY_START.finditer(text):
        raw, index = {}, match.end()
        while True:
            name = FIELD_NAME.match(text, index)
            if not name or name.end() >= len(text):
                break
            raw[name.group(1).lower()], index = _value(text, name.end(), strings)
        fields = {name: latex_text(value) for name, value in raw.items()}
        entries[match.group(2)] = Entry(match.group(2), match.group(1).lower(), fields,
                                        names(raw.get("author", "")))
    return entries


def unclosed_entries(path: Path) -> list[tuple[int, str]]:
    """(line, key) of each entry whose braces are still open where the next entry, or the
    file, begins: BibTeX would read the next entry into it."""
    text = path.read_text(encoding="utf-8", errors="replace")
    starts = list(ENTRY_START.finditer(text))
    unclosed = []
    for match, following in zip(starts, starts[1:] + [None]):
        end = following.start() if following else len(text)
        body = text[text.index("{", match.start()):end]
        if body.count("{") > body.count("}"):
            unclosed.append((text.count("\n", 0, match.start()) + 1, match.group(2)))
    return unclosed


def entries_by_page(root: Path, sections: list[Section]) -> dict[str, tuple[str, Entry]]:
    """Key -> (name of the page whose ``:bibliography:`` file holds it, the entry), for
    every bibliography of `sections` that exists (a missing one is a check error)."""
    entries: dict[str, tuple[str, Entry]] = {}
    for section in sections:
        if section.bibliography:
            file = (root / section.path).parent / section.bibliography.path
            if file.is_file():
                entries.update((key, (section.name, entry))
                               for key, entry in read_bibliography(file).items())
    return entries
