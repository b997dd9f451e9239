"""The site's math font cut down to the characters its pages' math shows.

STIX Two Math whole (assets/fonts) weighs 466 kB, the heaviest download of a page with
math; a book uses a few dozen of its characters. The site ships a subset (fontTools,
WOFF2 by Brotli) made from the characters of every ``<math>`` of its pages, with the
math-italic letters the browser draws single-letter identifiers with (MathML Core's
``math-auto``) and the radical of square roots, and, for each kept glyph, its MATH table's size variants and stretchy
parts and its layout features' alternates (``ssty`` script forms…): a new symbol in a
formula is in the next build's subset. Cutting takes 0.2 s: the subset is kept in the
cache under the hash of what it is made of (font, characters, fontTools), and its file
name in the site carries the hash of its bytes, so that a browser never keeps a subset
that lacks a new symbol. A site without math ships no math font (cutting an empty subset
still reads the whole font: 0.3 s). The PDF keeps the whole font: Chromium embeds only what
it uses.
"""
from __future__ import annotations

import hashlib
import html
import io
import re
from collections.abc import Iterable
from pathlib import Path

from ..bootstrap.records import FINGERPRINT, file_hash, key_of, read_record, write_stamp
from ..core.files import atomic_write

FONT = Path(__file__).parent / "assets" / "fonts" / "STIXTwoMath-Regular.woff2"
FONT_FACE = re.compile(r"@font-face\s*\{[^}]*" + re.escape(FONT.name) + r"[^}]*\}\s*")
"""The rule of a style sheet that loads the math font."""
MATH = re.compile(r"<math\b.*?</math>", re.S)
TAG = re.compile(r"<[^>]*>")
DRAWN = {"√": re.compile(r"<m(?:sqrt|root)\b")}
"""Characters the browser draws for an element that holds no text of them (a radical)."""
ITALIC_RANGES = ((ord("A"), ord("Z"), 0x1D434), (ord("a"), ord("z"), 0x1D44E),
                 (0x391, 0x3A9, 0x1D6E2), (0x3B1, 0x3C9, 0x1D6FC))
"""MathML Core's italic mapping of a single-letter <mi>: first and last letter of a range,
the italic of its first."""
ITALIC_SINGLES = {"h": 0x210E, "ı": 0x1D6A4, "ȷ": 0x1D6A5, "∇": 0x1D6FB, "∂": 0x1D715,
                  "ϵ": 0x1D716, "ϑ": 0x1D717, "ϰ": 0x1D718, "ϕ": 0x1D719, "ϱ": 0x1D71A,
                  "ϖ": 0x1D71B, "ϴ": 0x1D6F3}
"""The letters of that mapping outside its ranges (``h`` is Planck's constant's ℎ)."""


def math_characters(pages: Iterable[str]) -> set[str]:
    """The characters of the <math> elements of `pages` (HTML), entities read."""
    found: set[str] = set()
    for page in pages:
        for formula in MATH.findall(page):
            found.update(html.unescape(TAG.sub("", formula)))
            found.update(c for c, element in DRAWN.items() if element.search(formula))
    return found - {"\n"}


def _italic(character: str) -> str | None:
    code = ord(character)
    for first, last, italic in ITALIC_RANGES:
        if first <= code <= last:
            return chr(italic + code - first)
    single = ITALIC_SINGLES.get(character)
    return chr(single) if single else None


def with_italics(characters: set[str]) -> set[str]:
    """`characters` and the math italics of its letters."""
    return characters | {italic for c in characters if (italic := _italic(c))}


def _subset(characters: set[str]) -> bytes:
    from fontTools import subset   # the tools' environment only, for the site stage
    from fontTools.ttLib import TTFont
    from fontTools.ttLib.woff2 import WOFF2FlavorData

    options = subset.Options()
    options.flavor = "woff2"
    options.layout_features = ["*"]   # ssty (scripts), dtls (dotless accents), flac…
    font = TTFont(FONT)
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=sorted(map(ord, characters)))
    subsetter.subset(font)   # the MATH table's variants of the kept glyphs are kept
    # The shipped font's glyphs are stored plain (assets/fonts/README.md); the subset, which
    # every page loads, gets WOFF2's glyf transform: the smaller download.
    font.flavorData = WOFF2FlavorData()
    written = io.BytesIO()
    font.save(written)
    return written.getvalue()


def math_font(pages: Iterable[str], cache: Path) -> bytes | None:
    """The subset of the math font for the math of `pages`, from the cache at `cache`
    (with its stamp beside it) when it was made from the same font and characters; None
    when the pages show no math: the site then ships no math font."""
    from fontTools import version as fonttools_version

    characters = with_italics(math_characters(pages))
    if not characters:
        return None
    key = key_of({"font": file_hash(FONT), "characters": "".join(sorted(characters)),
                  "fontTools": fonttools_version})
    stamp = cache.with_suffix(".json")
    record = read_record(stamp, {FINGERPRINT: str, "bytes": str})
    if record is not None and record[FINGERPRINT] == key and file_hash(cache) == \
            record["bytes"]:
        return cache.read_bytes()
    data = _subset(characters)
    atomic_write(cache, data)
    write_stamp(stamp, key, bytes=file_hash(cache))
    return data


def font_file_name(data: bytes) -> str:
    """The subset's file name, stamped with its content: ``STIXTwoMath-<hash>.woff2``."""
    return f"STIXTwoMath-{hashlib.sha256(data).hexdigest()[:12]}.woff2"
