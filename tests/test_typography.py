"""French typography at render time: the rules of `tabbook.output.typography.french`, their
exceptions (code, URLs, mathematics), and every page of this repository's built book."""
from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from conftest import LINEAR_GROWTH, growth, site_pages
from tabbook.output.markup import render_prose
from tabbook.output.typography import NARROW, NO_BREAK, UNITS, french
from test_markup import context

N, B = NARROW, NO_BREAK


# -- the rules ------------------------------------------------------------------
@pytest.mark.parametrize("written, shown", [
    ("Pourquoi ?", f"Pourquoi{N}?"),                        # a plain space becomes narrow
    (f"Pourquoi{B}?", f"Pourquoi{N}?"),                     # so does a no-break space
    ("Note: voir", f"Note{N}: voir"),                        # a missing one is added
    ("un; deux", f"un{N}; deux"),
    ("Vraiment ?!", f"Vraiment{N}?!"),                       # one space before a run of signs
    ("« Quoi? »", f"«{N}Quoi{N}?{N}»"),                      # before a closing sign
    ("(encore ?)", f"(encore{N}?)"),
    ("fin :", f"fin{N}:"),                                   # at the end of the text
    (": suite", f"{N}: suite"),                              # at its start (after code, a link)
    ("« bonjour »", f"«{N}bonjour{N}»"),
    ("«bonjour»", f"«{N}bonjour{N}»"),
    (f"«{B}bonjour{B}»", f"«{N}bonjour{N}»"),
    ("1 200 W", f"1{N}200{B}W"),                             # thousands, then the unit
    ("12 345 678 octets", f"12{N}345{N}678 octets"),          # octets is a word, not a unit
    ("80 Go, 16 Gio, 50 %", f"80{B}Go, 16{B}Gio, 50{B}%"),
    ("2,5 GHz et 12 ms", f"2,5{B}GHz et 12{B}ms"),
    ("936 Go/s", f"936{B}Go/s"),
])
def test_french_spacing(written, shown):
    assert french(written) == shown
    assert french(shown) == shown   # never doubled: applying it again changes nothing


@pytest.mark.parametrize("text", [
    "http://example.org/a?b=1",   # a URL: its signs are followed by letters
    "a::b et f(x)!=y",            # code-like text
    "à 10:30, un rapport 1:2",    # times and ratios: digits on both sides
    "(?) et [!]",                 # a sign right after an opening bracket
    "(?!) et [:!]",               # so is a run of them (no space inside the run)
    "H100, 8 H100 et 2 secondes",  # no unit: a letter follows
    "80Go",                       # a unit glued to its number is left as written
    "en 2026 100 fois",           # four digits first: not a grouped number
    "1,234 567",                  # a decimal part is not grouped
])
def test_what_french_leaves_alone(text):
    assert french(text) == text


def test_long_runs_of_signs_or_spaces_take_time_in_proportion_to_their_length():
    """A match was tried again from each sign of a run of ; : ! ? and from each space before
    a », each reading the run to its end: quadratic in the run's length."""
    def runs(length: int) -> str:
        return "Quoi" + "?!" * length + "x" + " " * length + "»"

    assert growth(french, runs, 500) < LINEAR_GROWTH
    assert french(runs(2)) == f"Quoi?!?!x{N}»"


def test_every_unit_is_tied_to_its_number():
    for unit in UNITS:
        assert french(f"3 {unit}.") == f"3{B}{unit}."


# -- in the renderer: text only, never code, URLs or mathematics --------------------
def test_the_renderer_spaces_text_but_not_code_urls_or_math(tmp_path):
    ctx, _ = context(tmp_path)
    text = ("# Titre ?\n\nLa fonction `f(a: int) -> bool` ; voir <https://x.org/?q=1> : "
            "[ici](https://x.org/a?b=c), « $a:b$ » et 16 Go!\n\n"
            "| quoi | taille |\n| --- | --- |\n| mémoire : | 80 Go |\n\n"
            "![Une figure : légende](x.svg)\n\n"
            "```\nx = a ? b : c\n```\n\nUn calcul au long cours\n: la suite.\n")
    figure = ctx.project_root / Path(ctx.display_path).parent / "x.svg"
    figure.write_text("<svg xmlns='http://www.w3.org/2000/svg'/>")
    html = render_prose(text, 1, ctx)
    assert f"Titre{N}?<a class=\"anchor\"" in html
    assert "<code>f(a: int) -&gt; bool</code>" in html and f"</code>{N}; voir" in html
    assert '<a href="https://x.org/?q=1">https://x.org/?q=1</a>' + N + ":" in html
    assert 'href="https://x.org/a?b=c">ici</a>' in html
    assert f'«{N}<span class="math inline"><math' in html and f"</math></span>{N}»" in html
    assert "<mi>a</mi><mi>:</mi><mi>b</mi>" in html   # mathematics as written
    assert f"16{B}Go{N}!" in html
    assert f"<td>mémoire{N}:</td>" in html and f"<td>80{B}Go</td>" in html
    assert f'alt="Une figure{N}: légende"' in html
    assert "x = a ? b : c" in html   # a code block as written
    assert f"au long cours{N}: la suite" in html   # a line starting with ':' joins the text


# -- every page of the built book ------------------------------------------------------
NOT_PROSE = {"code", "pre", "math", "script", "style", "kbd", "samp"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}
PUNCTUATION = re.compile(r"(.?)([;:!?]+)(?=[\s»)\].,]|$)", re.S)
UNIT = re.compile(rf"\d (?:{'|'.join(map(re.escape, UNITS))})(?!\w)")


class ProseText(HTMLParser):
    """The text nodes of a page outside code, preformatted text and mathematics, each with
    the element that holds it."""

    def __init__(self):
        super().__init__()
        self.open: list[str] = []
        self.texts: list[tuple[str, str]] = []

    def handle_starttag(self, tag, attrs):
        if tag not in VOID:
            self.open.append(tag)

    def handle_endtag(self, tag):
        if tag in self.open:
            while self.open.pop() != tag:
                pass

    def handle_data(self, data):
        if not NOT_PROSE & set(self.open):
            self.texts.append((self.open[-1] if self.open else "", data))


def typography_faults(text: str) -> list[str]:
    """What a prose text node does against French spacing."""
    faults = [f"no narrow space before {m.group(2)!r}" for m in PUNCTUATION.finditer(text)
              if m.group(1) != NARROW]
    faults += [f"{m.group(0)!r}: no narrow space inside the quotes"
               for m in re.finditer(rf"«(?!{N})|(?<!{N})»", text)]
    faults += [f"{m.group(0)!r}: an ordinary space before a unit" for m in UNIT.finditer(text)]
    return faults


def site_typography_faults(site: Path) -> tuple[list[str], int]:
    """Each fault with its page, element and text; the number of text nodes read."""
    faults, read = [], 0
    for name in site_pages(site):
        parser = ProseText()
        parser.feed((site / name).read_text(encoding="utf-8"))
        read += len(parser.texts)
        faults += [f"{name} <{tag}> {fault} in {' '.join(text.split())[:80]!r}"
                   for tag, text in parser.texts for fault in typography_faults(text)]
    return faults, read


def test_every_page_of_the_book_has_french_spacing(built_repository):
    for site in ("html", "html-pytorch"):
        faults, read = site_typography_faults(built_repository / "_build" / site)
        assert read > 2000   # the pages' prose was read
        assert not faults, f"{len(faults)} faults:\n" + "\n".join(faults[:40])
