"""The schema of config.ini, declared once, and the reader it drives.

`SCHEMA` names every section and key this build reads, with its type, its
default and what a valid value looks like, and the keys and sections of d2lbook
that are accepted and ignored (so that any d2lbook book builds with its own
config.ini). `read_config_file` reads the INI text keeping every line number,
then checks every section and key against the schema, collecting every mistake
of the file at its line instead of stopping at the first.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ..bootstrap.errors import BookError

CONFIG_FILE = "config.ini"
TAB_NAME = re.compile(r"[a-z][a-z0-9_]*\Z")


class ConfigError(BookError):
    """Problems in config.ini, one per line of the message, each naming its line."""


class _Marker:
    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return self.name


REQUIRED = _Marker("REQUIRED")
"""The key must be written."""
DERIVED = _Marker("DERIVED")
"""Without the key, config.py derives its value from other keys (read as None here)."""


@dataclass(frozen=True)
class Key:
    kind: type | str
    """``str``, ``int``, ``bool``, ``"words"`` (comma or space separated), ``"text"``
    (several lines, as written)."""
    default: object = REQUIRED
    pattern: str = ""
    """A regular expression the whole value matches (``str`` keys)."""
    hint: str = ""
    """How to write a valid value, shown after an invalid one."""
    minimum: int = 0
    check: Callable[[str, list[str]], str | None] | None = None
    """For ``words``: a problem with one word (given the words before it), or None."""


@dataclass(frozen=True)
class SectionSpec:
    keys: dict[str, Key]
    d2lbook_only: frozenset[str] = frozenset()
    """d2lbook's keys that this build does not use: accepted and ignored."""
    any_key: bool = False
    """A section of d2lbook's other builders (Sphinx, PDF, slides…): any key is accepted."""
    required: bool = False


def _tab_name_problem(tab: str, before: list[str]) -> str | None:
    if not TAB_NAME.match(tab) or tab == "all":
        return f"{tab!r} is not a valid tab name — use lowercase letters, digits and '_' (not 'all')"
    if tab in before:
        return f"tab {tab!r} is listed twice — list each tab once"
    return None


REPOSITORY = r"[\w.-]+/[\w.-]+"
GIT_REF = r"[\w./-]+"
# A section named ``<name>-*`` exists once per tab of [build] tabs (``library-pytorch``).
SCHEMA: dict[str, SectionSpec] = {
    # d2lbook's defaults (its config_default.ini): a book may leave out [project].
    "project": SectionSpec(keys={
        "name": Key(str, default="d2lbook", pattern=r"[A-Za-z0-9][A-Za-z0-9._-]*",
                    hint="use letters, digits, '.', '_' and '-'"),
        "title": Key(str, default=""),
        "author": Key(str, default=""),
        "release": Key(str, default="0.0.1", pattern=r"\d+(\.\d+)*([ab]|rc)?\d*",
                       hint="use a version such as 1.0.0"),
        # Any value: one without a catalogue here is a warning (config.py), as in d2lbook.
        "lang": Key(str, default=""),
        "copyright": Key(str, default=""),
    }),
    "build": SectionSpec(required=True, keys={
        # d2lbook runs a book without tabs in a plain kernel; here each tab has its own.
        "tabs": Key("words", check=_tab_name_problem,
                    hint="the frameworks the code runs with, the first one the default, "
                         "e.g. tabs = pytorch; for a book without tabs, the one it imports"),
        "notebooks": Key("words", default=("**/*.md",)),
        "exclusions": Key("words", default=()),
        "source_dir": Key(str, default=".", pattern=r"[^\s]+",
                          hint="give a folder relative to config.ini"),
        "index": Key(str, default="index", pattern=r"[\w./-]+",
                     hint="name the root page without .md, e.g. index"),
        "warning_is_error": Key(bool, default=False),
        "eval_notebook": Key(bool, default=True),
        "resources": Key("words", default=()),
    }, d2lbook_only=frozenset({"rsts", "non-notebooks", "dependencies", "output_dir",
                               "sphinx_extensions", "sphinx_configs", "origin_repo"})),
    "execute": SectionSpec(keys={
        "timeout": Key(int, default=600, minimum=1),
        "jobs": Key(int, default=0, minimum=0),
    }),
    "library": SectionSpec(keys={
        "version_file": Key(str, default=""),
    }, d2lbook_only=frozenset({"save_filename", "save_mark", "save_patterns", "version",
                               "root_dir"})),
    "library-*": SectionSpec(keys={
        "lib_file": Key(str, pattern=r"[\w/.-]+\.py", hint="give a .py path such as d2l/torch.py"),
        "lib_name": Key(str, default=""),
        "alias": Key("text", default=""),
        "simple_alias": Key("text", default=""),
        "fluent_alias": Key("text", default=""),
        "args_alias": Key("text", default=""),
    }, d2lbook_only=frozenset({"reverse_alias"})),
    "launch": SectionSpec(keys={
        "github_repo": Key(str, pattern=REPOSITORY, hint="write it as owner/name"),
        "branch": Key(str, default="main", pattern=GIT_REF, hint="give a branch name"),
        "library_ref": Key(str, default=DERIVED, pattern=GIT_REF,
                           hint="give a tag or commit, e.g. v1.0.0"),
        "site_url": Key(str, default=DERIVED, pattern=r"https?://\S+", hint="give an http(s) URL"),
    }),
    "launch-*": SectionSpec(keys={"libs": Key("words", default=DERIVED)}),
    # d2lbook's other builders; [colab] github_repo stands in for [launch] github_repo.
    "colab": SectionSpec(keys={"github_repo": Key("text", default=DERIVED)}, any_key=True),
    # What the site shows of the book's own (files relative to the book's folder; the
    # style sheets to the sources' folder, as d2lbook reads them); d2lbook's other keys
    # (include_js…) are accepted and ignored.
    "html": SectionSpec(keys={
        "header_links": Key("text", default=""),
        "favicon": Key(str, default=""),
        "html_logo": Key(str, default=""),
        "include_css": Key("words", default=()),
    }, any_key=True),
    **{name: SectionSpec(keys={}, any_key=True)
       for name in ("deploy", "pdf", "sagemaker", "slides", "translation")},
}
D2LBOOK_SECTIONS = sorted(name for name, spec in SCHEMA.items() if spec.any_key)


def spec_name(section: str) -> str:
    """``library-pytorch`` -> ``library-*``: per-tab sections share their keys."""
    per_tab = section.split("-")[0] + "-*"
    return per_tab if "-" in section and per_tab in SCHEMA else section


# -- reading the INI text ----------------------------------------------------

@dataclass
class IniFile:
    """The sections and keys of an INI file, with their lines, and the problems met."""
    name: str
    entries: dict[str, dict[str, tuple[str, int]]] = field(default_factory=dict)
    section_lines: dict[str, int] = field(default_factory=dict)
    problems: list[tuple[int, str]] = field(default_factory=list)
    _section: str | None = None
    _key: str | None = None
    _skipping = False
    """Under a malformed or repeated section header: its keys are not read."""

    def problem(self, line: int, message: str) -> None:
        self.problems.append((line, message))

    def read(self, text: str) -> None:
        """Values may continue on indented lines, as in d2lbook's config files."""
        for number, raw in enumerate(text.splitlines(), start=1):
            stripped = raw.strip()
            if not stripped or stripped[0] in "#;":
                continue
            if raw[0].isspace() and self._key is not None:
                value, line = self.entries[self._section][self._key]
                self.entries[self._section][self._key] = (f"{value}\n{stripped}".strip(), line)
            elif stripped.startswith("["):
                self._header(number, stripped)
            else:
                self._key_line(number, stripped)

    def _header(self, number: int, stripped: str) -> None:
        self._key, self._skipping = None, False
        if not stripped.endswith("]"):
            self._section, self._skipping = None, True
            return self.problem(number, f"malformed section header {stripped!r} — write it "
                                "as [name]")
        self._section = stripped[1:-1].strip()
        if self._section in self.entries:
            first, self._section = self.section_lines[self._section], None
            self._skipping = True
            return self.problem(number, f"section [{stripped[1:-1].strip()}] appears twice "
                                f"(first at line {first}) — merge them")
        self.entries[self._section] = {}
        self.section_lines[self._section] = number

    def _key_line(self, number: int, stripped: str) -> None:
        key, sep, value = stripped.partition("=")
        key = key.strip()
        self._key = None
        if not sep or not key:
            return self.problem(number, f"expected 'key = value', got {stripped!r} — fix the line")
        if self._section is None:
            if not self._skipping:
                self.problem(number, f"key {key!r} before any [section] — put it under a section")
            return
        if key in self.entries[self._section]:
            return self.problem(number, f"key {key!r} appears twice in [{self._section}] — "
                                "keep one")
        self.entries[self._section][key] = (value.strip(), number)
        self._key = key


# -- checking it against the schema -----------------------------------------

def words(value: str) -> tuple[str, ...]:
    """``a, b c`` -> ``('a', 'b', 'c')``."""
    return tuple(w for w in re.split(r"[,\s]+", value) if w)


def _whole_number(key: Key, value: str) -> tuple[object, str | None]:
    number = int(value) if re.fullmatch(r"[+-]?\d+", value) else key.minimum - 1
    return number, None if number >= key.minimum else f"write a whole number >= {key.minimum}"


def _boolean(key: Key, value: str) -> tuple[object, str | None]:
    ok = re.fullmatch(r"(?i)true|false", value) is not None
    return value.lower() == "true", None if ok else "write True or False"


def _word_list(key: Key, value: str) -> tuple[object, str | None]:
    items = words(value)
    problems = (key.check(item, list(items[:i])) for i, item in enumerate(items)) \
        if key.check else ()
    return items, next((p for p in problems if p), None)


def _text(key: Key, value: str) -> tuple[object, str | None]:
    ok = not key.pattern or re.fullmatch(key.pattern, value) is not None
    return value, None if ok else key.hint


# Each kind of key: its value as written -> (typed value, what is wrong or None).
_READERS = {int: _whole_number, bool: _boolean, "words": _word_list, str: _text, "text": _text}


class Settings:
    """The typed values of config.ini, each checked against `SCHEMA`; defaults filled in."""

    def __init__(self, ini: IniFile):
        self.ini = ini
        self.values: dict[str, dict[str, object]] = {}
        self._check_sections()

    def problem(self, line: int, message: str) -> None:
        self.ini.problem(line, message)

    def has(self, section: str) -> bool:
        return section in self.ini.entries

    def line(self, section: str, key: str = "") -> int:
        """The line of a key, or of its section when the key is not written."""
        entries = self.ini.entries.get(section, {})
        return entries[key][1] if key in entries else self.ini.section_lines.get(section, 1)

    def get(self, section: str, key: str):
        """A checked value; for a key that is not written, its default (None if derived);
        None for a value that is not valid (reported)."""
        if section not in self.values:
            self.values[section] = self._read(section)
        value = self.values[section].get(key)
        return None if value is DERIVED else value

    def _check_sections(self) -> None:
        misspelt = set()
        for name, line in self.ini.section_lines.items():
            spec = SCHEMA.get(spec_name(name))
            if spec is None:
                close = difflib.get_close_matches(name, list(SCHEMA), n=1)
                misspelt.update(close)
                guess = f"did you mean [{close[0]}]? " if close else ""
                self.problem(line, f"unknown section [{name}] — {guess}known sections: "
                             f"{_known_sections()}")
            elif not spec.any_key:
                self._check_keys(name, spec)
        for name, spec in SCHEMA.items():
            # A misspelt section is reported as such, not as a missing one too.
            if spec.required and name not in self.ini.entries and name not in misspelt:
                required = [k for k, key in spec.keys.items() if key.default is REQUIRED]
                self.problem(1, f"no [{name}] section — add it, with {', '.join(required)}")

    def _check_keys(self, section: str, spec: SectionSpec) -> None:
        allowed = set(spec.keys) | spec.d2lbook_only
        for key, (_, line) in self.ini.entries[section].items():
            if key not in allowed:
                close = difflib.get_close_matches(key, sorted(allowed), n=1)
                guess = f"did you mean {close[0]!r}? " if close else ""
                self.problem(line, f"unknown key {key!r} in [{section}] — {guess}known keys: "
                             f"{', '.join(sorted(spec.keys))}")

    def _read(self, section: str) -> dict[str, object]:
        spec = SCHEMA[spec_name(section)]
        entries = self.ini.entries.get(section, {})
        values = {}
        for name, key in spec.keys.items():
            if name not in entries:
                if key.default is REQUIRED and section in self.ini.entries:
                    hint = f" ({key.hint})" if key.hint else ""
                    self.problem(self.line(section),
                                 f"[{section}] lacks the key {name!r} — add it{hint}")
                values[name] = None if key.default is REQUIRED else key.default
                continue
            text, line = entries[name]
            values[name], wrong = _READERS[key.kind](key, text)
            if wrong:   # reported here; what depends on the value is not checked
                values[name] = None
                self.problem(line, f"[{section}] {name}: {wrong}" if key.kind == "words" else
                             f"[{section}] {name} = {text!r} is not valid — {wrong}")
        return values


def _known_sections() -> str:
    ours = ", ".join(f"[{s}]" for s, spec in SCHEMA.items() if not spec.any_key)
    theirs = ", ".join(f"[{s}]" for s in D2LBOOK_SECTIONS)
    return f"{ours} (and d2lbook's {theirs})"


def read_config_file(path: Path) -> Settings:
    """Read config.ini and check its sections and keys (values are checked when read)."""
    ini = IniFile(path.name)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as err:
        raise ConfigError(f"{path.name}: not UTF-8 ({err.reason}) — save the file as UTF-8") \
            from None
    ini.read(text)
    return Settings(ini)


def raise_problems(ini: IniFile) -> None:
    """Every problem of the file at once, in line order."""
    if ini.problems:
        raise ConfigError("\n".join(f"{ini.name}:{line}: {message}"
                                    for line, message in sorted(set(ini.problems))))
