"""BibTeX entries of the citations feature (citations.py): the .bib files it reads.

pybtex reads the file as BibTeX does (``@string`` macros and the months, ``#``
concatenation, names split on the ``and`` outside braces, von and Jr parts) and
reports what it cannot read with its line; pylatexenc turns the LaTeX of the values
into Unicode text (accents, special letters, escaped signs, ties, dashes, quotes,
math, font commands). What this module adds is what a reference list shows
(authors, title, venue, year) in the book's language.

Reading a .bib file is slow (0.2 s for d2l's, plus 0.1 s to import pybtex and
pylatexenc), and every command reads it: once `keep_parsed` names a folder of the build,
what a file's text gives is kept there, and pybtex is imported only to read a new text.
"""
from __future__ import annotations

import functools
import hashlib
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..bootstrap.records import kept_result
from ..core.files import PACKAGE
from ..core.language import Language

if TYPE_CHECKING:
    from pybtex.database import Person
    from pylatexenc.latex2text import LatexNodes2Text

PINS = PACKAGE.parent / "requirements" / "tools.txt"
"""Where pybtex's and pylatexenc's versions are pinned, with the other tools'."""
VERSION = hashlib.sha256(Path(__file__).read_bytes() + (
    PINS.read_bytes() if PINS.is_file() else b"")).hexdigest()
"""What a kept reading depends on besides the text: this code, and the tools' versions."""
_kept_in: Path | None = None


def keep_parsed(cache: Path) -> None:
    """Keep what each .bib file gives in `cache` (a folder of the build), from now on."""
    global _kept_in
    _kept_in = cache


@dataclass(frozen=True)
class Name:
    """One author, decoded: ``first`` may be empty (a one-word or braced name); ``last``
    holds the von part (« de Jong »)."""
    first: str
    last: str
    lineage: str = ""
    """« Jr » of « King, Jr, Martin Luther »."""

    def __str__(self) -> str:
        return " ".join(filter(None, (self.first, self.last, self.lineage)))


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


@dataclass(frozen=True)
class BibError:
    """What pybtex could not read as written (it read on as best it could)."""
    line: int
    message: str
    fix: str


SYNTAX_FIX = "check the entry's key, its braces and quotes, and the comma between two fields"
FIXES = {"syntax error": SYNTAX_FIX, "undefined string": "define it with @string{name = {…}} "
         "before the entry, or write the value in braces"}


@functools.cache
def _to_text() -> LatexNodes2Text:
    """pylatexenc's converter with its macros, but a URL is shown bare and the TeX logos
    by their name."""
    from pylatexenc.latex2text import (LatexNodes2Text, MacroTextSpec,
                                       get_default_latex_context_db)
    context = get_default_latex_context_db()
    context.add_context_category("tabbook", prepend=True, macros=[
        MacroTextSpec("url", "%s"), *(MacroTextSpec(logo, logo)
                                      for logo in ("TeX", "LaTeX", "BibTeX"))])
    return LatexNodes2Text(latex_context=context, math_mode="text")


PLAIN = re.compile(r"[^\\$%&~^_`'\-]*")
"""A field without LaTeX but braces: most of them, which pylatexenc reads slowly."""


def latex_text(value: str) -> str:
    """A BibTeX field's LaTeX as plain Unicode text (NFC, one space between words; a tie
    stays a no-break space)."""
    plain = PLAIN.fullmatch(value)
    text = value.replace("{", "").replace("}", "") if plain else _to_text().latex_to_text(value)
    text = re.sub(r"[ \t\r\n]+", " ", text).strip()
    return unicodedata.normalize("NFC", text)


def _name(person: Person) -> Name:
    return Name(latex_text(" ".join(person.first_names + person.middle_names)),
                latex_text(" ".join(person.prelast_names + person.last_names)),
                latex_text(" ".join(person.lineage_names)))


def _parse(path: Path) -> tuple[dict[str, Entry], list[BibError]]:
    """The entries of a .bib file, and what could not be read as written."""
    entries, errors = _kept_parse(str(path), path.read_text(encoding="utf-8", errors="replace"))
    return dict(entries), list(errors)


Parsed = tuple[dict[str, Entry], tuple[BibError, ...]]


@functools.lru_cache(maxsize=8)
def _kept_parse(filename: str, text: str) -> Parsed:
    """`_parse` of a file's text, once per text: the check, the numbering and the
    renderers each read the bibliography; from the folder of `keep_parsed` when it was
    read there before (one entry per file, replaced when its text changes)."""
    if _kept_in is None:
        return _parse_text(filename, text)
    key = hashlib.sha256(f"{VERSION}\0{filename}\0{text}".encode()).hexdigest()
    # No .pickle suffix: no source file's entry has this name.
    kept = _kept_in / f"bibliography-{hashlib.sha256(filename.encode()).hexdigest()[:16]}"
    return kept_result(kept, key, lambda: _parse_text(filename, text))


def _parse_text(filename: str, text: str) -> Parsed:
    """Read a .bib file's text with pybtex."""
    import pybtex.errors
    from pybtex.database import Person
    from pybtex.database.input.bibtex import LowLevelParser, month_names, split_name_list
    from pybtex.scanner import PybtexSyntaxError
    from pybtex.textutils import normalize_whitespace
    from pybtex.utils import CaseInsensitiveDict

    errors: list[BibError] = []

    def start_line() -> int:
        return text.count("\n", 0, commands.command_start) + 1

    def report(error: PybtexSyntaxError) -> None:
        key = commands.current_entry_key
        entry = f"the entry {key!r}" if key else "an entry"
        if start_line() != error.lineno:
            entry += f" (line {start_line()})"
        errors.append(BibError(error.lineno, f"{error.error_type} in {entry}: {error.args[0]}",
                               FIXES.get(error.error_type, SYNTAX_FIX)))

    # The parser adds each @string to the macros it is given: a copy of BibTeX's months.
    commands = LowLevelParser(text, handle_error=report, filename=filename,
                              macros=CaseInsensitiveDict(month_names))
    entries: dict[str, Entry] = {}
    for command, body in commands:   # body: (key, fields) for an entry
        if command.lower() in ("string", "preamble") or body[0] is None:   # None: reported
            continue
        key, written = body
        if key in entries:
            errors.append(BibError(start_line(), f"the key {key!r} is that of an earlier entry "
                                                 "too; the first is kept",
                                   "give one of them another key"))
            continue
        fields: dict[str, str] = {}
        for name, parts in written:
            if name.lower() in fields:
                errors.append(BibError(start_line(), f"the entry {key!r} has two {name.lower()} "
                                                     "fields; the first is kept",
                                       "remove one of them"))
            fields.setdefault(name.lower(), normalize_whitespace("".join(parts)))
        # pybtex reports a name with too many commas through its global error handler.
        with pybtex.errors.capture() as name_errors:
            people = tuple(_name(Person(name))
                           for name in split_name_list(fields.pop("author", "")))
        errors += [BibError(start_line(), f"in the entry {key!r}: {error}; the rest is read "
                                          "as the first name", "write it « Last, Jr, First »")
                   for error in name_errors]
        entries[key] = Entry(key, command.lower(),
                             {name: latex_text(value) for name, value in fields.items()},
                             people)
    return entries, tuple(sorted(errors, key=lambda error: error.line))


def read_bibliography(path: Path) -> dict[str, Entry]:
    """Key -> entry for every entry of a .bib file."""
    return _parse(path)[0]


def bibliography_errors(path: Path) -> list[BibError]:
    """What pybtex could not read as written in a .bib file, with its line."""
    return _parse(path)[1]
