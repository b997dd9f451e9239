"""BibTeX entries for d2lbook's ``:cite:`key``` and ``:bibliography:`file.bib```.

Just what a reference list shows (authors, title, venue, year); no LaTeX is
interpreted beyond dropping braces and a few accents' markup.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..core.model import Section

ENTRY_START = re.compile(r"@(\w+)\s*\{\s*([^,\s]+)\s*,")
FIELD_NAME = re.compile(r"\s*,?\s*(\w+)\s*=\s*")


@dataclass(frozen=True)
class Entry:
    key: str
    kind: str
    fields: dict[str, str]

    @property
    def authors(self) -> list[str]:
        """The author field's names, as BibTeX writes them."""
        return [a for a in self.fields.get("author", "").split(" and ") if a.strip()]

    def label(self) -> str:
        """How the text cites it, author and year: « Knuth, 1984 », « Patarasuk et Yuan,
        2009 », « Goyal et al., 2017 »."""
        lasts = [_last(a) for a in self.authors]
        who = (" et ".join(lasts) if len(lasts) <= 2 else f"{lasts[0]} et al.") or self.key
        return f"{who}, {self.fields.get('year', 's. d.')}"

    def text(self) -> str:
        """« Authors (year). Title. Venue, volume(number), pages. »"""
        names = [_first_last(a) for a in self.authors]
        authors = ", ".join(names[:-1]) + " et " + names[-1] if len(names) > 1 else "".join(names)
        venue = ", ".join(filter(None, [
            next((self.fields[f] for f in ("journal", "booktitle", "publisher", "howpublished")
                  if f in self.fields), ""),
            self.fields.get("volume", "") + (f"({self.fields['number']})"
                                             if "number" in self.fields else ""),
            self.fields.get("pages", "").replace("--", "–")]))
        parts = [f"{authors} ({self.fields.get('year', 's. d.')})".strip(),
                 self.fields.get("title", ""), venue]
        return ". ".join(p for p in parts if p) + "."


def _last(name: str) -> str:
    """The family name of a BibTeX « Last, First » or « First Last »."""
    last, comma, _ = name.strip().partition(",")
    return last.strip() if comma else last.strip().split()[-1]


def _first_last(name: str) -> str:
    """BibTeX's « Last, First » as « First Last »."""
    last, comma, first = name.strip().partition(",")
    return f"{first.strip()} {last.strip()}" if comma else last.strip()


def _value(text: str, start: int) -> tuple[str, int]:
    """A field value at `start`: {braced}, "quoted" or a bare word; and where it ends."""
    if text[start] == "{":
        depth, index = 0, start
        while index < len(text):
            depth += {"{": 1, "}": -1}.get(text[index], 0)
            if depth == 0:
                return text[start + 1:index], index + 1
            index += 1
        return text[start + 1:], len(text)
    if text[start] == '"':
        end = text.find('"', start + 1)
        end = len(text) if end < 0 else end
        return text[start + 1:end], end + 1
    word = re.match(r"[^,}\s]*", text[start:]).group(0)
    return word, start + len(word)


def _plain(value: str) -> str:
    value = re.sub(r"\\[`'^\"~=.]\{?(\w)\}?", r"\1", value)   # accents: keep the letter
    value = re.sub(r"\\([A-Za-z]+)\s*", r"\1", value)          # \TeX -> TeX
    return re.sub(r"\s+", " ", value.replace("{", "").replace("}", "")).strip()


def read_bibliography(path: Path) -> dict[str, Entry]:
    """Key -> entry for every entry of a .bib file."""
    text = path.read_text(encoding="utf-8", errors="replace")
    entries = {}
    for match in ENTRY_START.finditer(text):
        fields, index = {}, match.end()
        while True:
            name = FIELD_NAME.match(text, index)
            if not name or name.end() >= len(text):
                break
            value, index = _value(text, name.end())
            fields[name.group(1).lower()] = _plain(value)
        entries[match.group(2)] = Entry(match.group(2), match.group(1).lower(), fields)
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
