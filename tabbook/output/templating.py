"""The pages' templates: the Jinja2 environment every HTML and PDF page is written with, the
words it takes from the book's catalogue (`say`), and the macros of cells and outputs."""
from __future__ import annotations

from pathlib import Path

import jinja2
from markupsafe import Markup, escape

from ..core.frameworks import display_name
from ..core.language import Language
from .typography import typeset

ASSETS = Path(__file__).parent / "assets"
TEMPLATES = Path(__file__).parent / "templates"
ENVIRONMENT = jinja2.Environment(
    loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=jinja2.select_autoescape(["html"]),
    undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
    keep_trailing_newline=True)


def say(language: Language, key: str, **values: object) -> Markup:
    """The catalogue's string `key` for a page: in the book's typography, escaped, with
    `values` escaped unless they are Markup already (an element, code)."""
    return Markup(escape(typeset(language.template(key), language))).format(**values)


SCRIPT_STRINGS = ("copy", "copy_label", "copied", "theme", "theme_change", "theme_auto",
                  "theme_light", "theme_dark", "search_found", "search_found_first")
"""The catalogue's strings that book.js shows (its ``{named}`` values filled in there)."""


def script_strings(language: Language) -> dict[str, str]:
    """What book.js says, in the book's language and typography (``<body data-ui>``)."""
    return {key: typeset(language.template(key), language) for key in SCRIPT_STRINGS}


ENVIRONMENT.filters["framework"] = display_name
ENVIRONMENT.filters["typeset"] = typeset   # titles outside the prose: TOC, pager, <title>
ENVIRONMENT.globals.update(say=say, script_strings=script_strings)
MACROS = ENVIRONMENT.get_template("macros.html").module
