"""The pages' templates: the Jinja2 environment every HTML and PDF page is written with, the
words it takes from the book's catalogue (`say`), and the macros of cells and outputs."""
from __future__ import annotations

import hashlib
from pathlib import Path

import jinja2
from markupsafe import Markup, escape

from ..core.frameworks import display_name
from ..core.language import Language
from .typography import typeset

ASSETS = Path(__file__).parent / "assets"
TEMPLATES = Path(__file__).parent / "templates"
COMPILED_TEMPLATES = Path(__file__).parent / "__pycache__" / "templates"
"""Where the templates' compiled code is kept, beside this package's own bytecode (see
bootstrap/bytecode.py): compiling them costs each rendering command 0.04 to 0.1 s. Jinja
checks each template's source, not the environment's options: a subfolder per version
of this file, which sets them."""


class _CompiledTemplates(jinja2.FileSystemBytecodeCache):
    """Jinja's cache of compiled templates (checked against each template's source), in
    a folder that may not be writable: the templates are then compiled each time."""

    def __init__(self, folder: Path):
        folder.mkdir(parents=True, exist_ok=True)
        super().__init__(str(folder))

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().dump_bytecode(bucket)
        except OSError:
            pass


def _compiled_templates() -> jinja2.BytecodeCache | None:
    version = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]
    try:
        return _CompiledTemplates(COMPILED_TEMPLATES / version)
    except OSError:
        return None


ENVIRONMENT = jinja2.Environment(
    loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=jinja2.select_autoescape(["html"]),
    undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
    keep_trailing_newline=True, bytecode_cache=_compiled_templates())


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
