"""What the search index holds besides a page's visible text: the dotted parts of the
identifiers in its code (`tf.GradientTape` -> `GradientTape`).

Pagefind indexes `tf.GradientTape()` as the whole word `tfgradienttape` and as the
parts it cuts it into (`tf`, `gradient`, `tape`: at dots, underscores, case changes and
digits), so that a reader's « GradientTape », « float16 » or « no_grad » begins no
indexed word. The parts after the first dot that Pagefind would cut again are given to
it whole, in an attribute that it indexes (``data-pagefind-index-attrs``) and that the
page does not show. Pagefind puts the attribute's words in the text its excerpts are cut
from: each begins with a word joiner (TERM_MARK, which its index leaves out), by which
the search page removes them from the excerpts (book.js).
"""
from __future__ import annotations

import re

from markupsafe import Markup

DOTTED = re.compile(r"\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
KEPT_WHOLE = re.compile(r"[a-z]+")
"""A part that Pagefind keeps whole already (`matmul` in `torch.matmul`)."""
TERM_MARK = "\u2060"


def dotted_parts(text: str) -> list[str]:
    """The parts after a dot of the identifiers in `text` that Pagefind would cut, each
    once, in order: `tf.GradientTape`, `torch.no_grad` -> GradientTape, no_grad."""
    parts = (part for name in DOTTED.findall(text) for part in name.split(".")[1:])
    return list(dict.fromkeys(part for part in parts if not KEPT_WHOLE.fullmatch(part)))


def index_attributes(text: str) -> Markup:
    """The attributes of an element holding the code `text` that give Pagefind its
    dotted parts (nothing if it has none)."""
    parts = dotted_parts(text)
    if not parts:
        return Markup("")
    return Markup(' data-pagefind-index-attrs="data-search-terms" '
                  'data-search-terms="{}"').format(" ".join(TERM_MARK + part for part in parts))
