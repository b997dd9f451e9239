"""French spelling of the book's prose, checked by hunspell with Debian's French dictionary.

Code (cells, inline code), mathematics, URLs and d2lbook roles are left out;
what remains is the text a reader reads. Words hunspell does not know must be
in `words-fr.txt` (kept short: technical terms and names), or be fixed.
"""
from __future__ import annotations

import re
import subprocess

from conftest import REPO, repository_cells
from tabbook.core.model import CellKind

WORD_LIST = REPO / "tests" / "words-fr.txt"

# What is not French prose, removed before spelling (order matters).
NOT_PROSE = [
    re.compile(r"\$\$.*?\$\$", re.S),                       # display math
    re.compile(r"\$[^$\n]+\$"),                             # inline math
    re.compile(r":\w+:`[^`]*`"),                            # :label:`x`, :numref:`x`...
    re.compile(r"``.*?``|`[^`\n]*`"),                       # inline code
    re.compile(r"\]\([^)]*\)"),                             # link and image targets
    re.compile(r"https?://\S+"),                            # bare URLs
    re.compile(r"<[^>\n]+>"),                               # HTML tags
    re.compile(r":(begin|end)_tab:"),
    re.compile(r"\(\*[^()\n]*\)"),                          # a gloss: (*term*, *other*), English
    re.compile(r"^[ \t]*\|?[ \t]*:?-{3,}:?[ \t]*(\|[ \t]*:?-{3,}:?[ \t]*)*\|?[ \t]*$", re.M),
]                                                           # ^ table delimiter rows


def strip_non_prose(text: str) -> str:
    for pattern in NOT_PROSE:
        # Keep line breaks so that words keep their line numbers.
        text = pattern.sub(lambda m: "\n" * m.group(0).count("\n") + " ", text)
    return text


def prose_lines(clean: bool = True) -> list[tuple[str, int, str]]:
    """(file, line, text) for every line of prose in the book, code and markup removed."""
    return [(source, cell.line + offset, line)
            for source, cell in repository_cells(CellKind.PROSE)
            for offset, line in enumerate(
                (strip_non_prose(cell.source) if clean else cell.source).split("\n"))]


def unknown_words(text: str) -> set[str]:
    result = subprocess.run(
        ["hunspell", "-d", "fr_FR", "-p", str(WORD_LIST), "-l", "-i", "utf-8"],
        input=text, capture_output=True, text=True, check=True)
    return set(result.stdout.split())


def test_word_list_is_short_and_sorted():
    words = WORD_LIST.read_text(encoding="utf-8").split()
    assert words == sorted(set(words), key=str.casefold), "keep words-fr.txt sorted, no repeats"
    assert len(words) <= 200, "the word list is for technical terms and names only"


def test_the_prose_has_no_unknown_french_word():
    lines = prose_lines()
    assert sum(len(text.split()) for _, _, text in lines) > 500, "the prose was not found"
    unknown = unknown_words("\n".join(text for _, _, text in lines))
    places = []
    for word in sorted(unknown):
        where = next(f"{path}:{line}" for path, line, text in lines
                     if re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text))
        places.append(f"{where}: {word}")
    assert not places, ("unknown words (fix the spelling, or add a technical term or a name "
                        "to tests/words-fr.txt):\n" + "\n".join(places))


def test_a_misspelt_word_is_caught():
    # The check itself must see mistakes, and ignore code and URLs.
    assert unknown_words("Une phrase corecte sur les processeurs.") == {"corecte"}
    assert not unknown_words(strip_non_prose(
        "Le code `xyzzy`, :numref:`sec_qwxz` et [un lien](https://exemple.fr/qwxz) $\\alpha_k$.\n"
        "| a | b |\n| --- | :---: |\n"))


def test_no_dollar_sign_as_currency():
    # `$` opens mathematics: « 10 $ ... 20 $ » would render as a formula.
    places = [f"{path}:{line}" for path, line, text in prose_lines(clean=False)
              if re.search(r"\d[ \u00a0\u202f]\$(?![^$\n]*\$)|\d[ \u00a0\u202f]\$[ .,;)]",
                           re.sub(r"`[^`\n]*`", "", text))]
    assert not places, "write « dollars », not « $ »: " + ", ".join(places)
