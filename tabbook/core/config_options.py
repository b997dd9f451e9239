"""How an option of config.ini is declared, and the reader derived from the declarations.

A section of config.ini is a frozen dataclass registered with `section`; each key of
the section is a field made by `option`, declared there once: the field's type says
how the value is written (``str``, ``int``, ``bool``, or ``tuple[str, ...]`` for words
separated by commas or spaces), the field's default is the value of a key that is not
written (no default: the key is required; None: `config` derives the value from other
keys), and the option adds the rest (the INI key where it differs from the field's
name, a pattern, a minimum, a check, how to write a valid value). The fields that are
not options hold what `config` derives. `read_config_file` reads the INI text keeping
every line number and checks every section and key against the declared sections;
`Settings.read` then builds a section's dataclass from its checked values, collecting
every mistake of the file at its line instead of stopping at the first.
"""
from __future__ import annotations

import dataclasses
import difflib
import re
import typing
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Callable, TypeVar

from ..bootstrap.errors import BookError

CONFIG_FILE = "config.ini"
T = TypeVar("T")


class ConfigError(BookError):
    """Problems in config.ini, one per line of the message, each naming its line."""


@dataclass(frozen=True)
class Option:
    """What the reader needs of a key beyond its field's type and default."""
    key: str = ""
    """The key as written in config.ini; "" when it is the field's name."""
    pattern: str = ""
    """A regular expression the whole value matches (``str`` keys)."""
    hint: str = ""
    """How to write a valid value, shown after an invalid or missing one."""
    minimum: int = 0
    """The smallest valid value (``int`` keys)."""
    check: Callable[[str, list[str]], str | None] | None = None
    """For word lists: a problem with one word (given the words before it), or None."""


def option(default: object = dataclasses.MISSING, **details) -> Any:
    """A field of a section's dataclass that is a key of config.ini; `details` are
    `Option`'s. Without `default` the key is required."""
    return field(default=default, metadata={Option: Option(**details)})


# -- reading one value: its text -> (typed value, what is wrong or None) ---------

def words(value: str) -> tuple[str, ...]:
    """``a, b c`` -> ``('a', 'b', 'c')``."""
    return tuple(w for w in re.split(r"[,\s]+", value) if w)


def _whole_number(option: Option, value: str) -> tuple[object, str | None]:
    number = int(value) if re.fullmatch(r"[+-]?\d+", value) else option.minimum - 1
    return number, None if number >= option.minimum else \
        f"write a whole number >= {option.minimum}"


def _boolean(option: Option, value: str) -> tuple[object, str | None]:
    ok = re.fullmatch(r"(?i)true|false", value) is not None
    return value.lower() == "true", None if ok else "write True or False"


def _word_list(option: Option, value: str) -> tuple[object, str | None]:
    items = words(value)
    problems = (option.check(item, list(items[:i])) for i, item in enumerate(items)) \
        if option.check else ()
    return items, next((p for p in problems if p), None)


def _text(option: Option, value: str) -> tuple[object, str | None]:
    ok = not option.pattern or re.fullmatch(option.pattern, value) is not None
    return value, None if ok else option.hint


_READERS = {str: _text, int: _whole_number, bool: _boolean, tuple[str, ...]: _word_list}


@dataclass(frozen=True)
class Key:
    """One key of a section: the field it fills, how its value is read and checked."""
    attribute: str
    default: object
    """The value when the key is not written; `dataclasses.MISSING`: required."""
    option: Option
    read: Callable[[Option, str], tuple[object, str | None]]

    @property
    def required(self) -> bool:
        return self.default is dataclasses.MISSING


# -- the sections ------------------------------------------------------------

@dataclass(frozen=True)
class Section:
    name: str
    """``<name>-*`` for a section written once per tab of [build] tabs
    (``library-pytorch``)."""
    options: type | None = None
    """The dataclass whose `option` fields are the section's keys."""
    required: bool = False
    any_key: bool = False
    """A section of d2lbook's other builders (Sphinx, PDF, slides…): any key is accepted."""
    d2lbook_keys: frozenset[str] = frozenset()
    """d2lbook's keys that this build does not use: accepted and ignored."""

    @cached_property
    def keys(self) -> dict[str, Key]:
        """INI key -> `Key`, in the order of the fields (read when first needed: the
        types of the fields name classes declared after this one)."""
        if self.options is None:
            return {}
        types = typing.get_type_hints(self.options)
        keys = {}
        for f in dataclasses.fields(self.options):
            if Option not in f.metadata:
                continue
            if types[f.name] not in _READERS:
                raise TypeError(f"{self.options.__name__}.{f.name}: config.ini has no way to "
                                f"write a {types[f.name]}")
            option = f.metadata[Option]
            keys[option.key or f.name] = Key(f.name, f.default, option, _READERS[types[f.name]])
        return keys


SECTIONS: dict[str, Section] = {}
"""Every section of config.ini, in the order of their declarations."""


def section(name: str, required: bool = False, any_key: bool = False,
            d2lbook_keys: str = "") -> Callable[[type[T]], type[T]]:
    """Declares the decorated dataclass as section [name]; `d2lbook_keys`: d2lbook's
    keys accepted and ignored, separated by spaces."""
    def declare(options: type[T]) -> type[T]:
        SECTIONS[name] = Section(name, options, required, any_key,
                                 frozenset(d2lbook_keys.split()))
        return options
    return declare


def d2lbook_sections(*names: str) -> None:
    """d2lbook's sections that this build does not read: accepted with any key."""
    SECTIONS.update((name, Section(name, any_key=True)) for name in names)


def spec_name(section: str) -> str:
    """``library-pytorch`` -> ``library-*``: per-tab sections share their keys."""
    per_tab = section.split("-")[0] + "-*"
    return per_tab if "-" in section and per_tab in SECTIONS else section


def _known_sections() -> str:
    ours = ", ".join(f"[{s}]" for s, spec in SECTIONS.items() if not spec.any_key)
    theirs = ", ".join(f"[{s}]" for s in sorted(s for s, spec in SECTIONS.items()
                                               if spec.any_key))
    return f"{ours} (and d2lbook's {theirs})"


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


# -- checking it against the declared sections ---------------------------------

class Settings:
    """config.ini read, its sections and keys checked against `SECTIONS`; `read` builds
    a section's dataclass from its checked values."""

    def __init__(self, ini: IniFile):
        self.ini = ini
        self._check_sections()

    def problem(self, line: int, message: str) -> None:
        self.ini.problem(line, message)

    def has(self, section: str) -> bool:
        return section in self.ini.entries

    def line(self, section: str, key: str = "") -> int:
        """The line of a key, or of its section when the key is not written."""
        entries = self.ini.entries.get(section, {})
        return entries[key][1] if key in entries else self.ini.section_lines.get(section, 1)

    def read(self, options: type[T], section: str = "", **derived) -> T:
        """[section] (the one `options` declares by default) as `options`, with the
        `derived` fields: a key that is not written has its default (None if required,
        reported when the section is written); an invalid value is None (reported)."""
        section = section or next(name for name, spec in SECTIONS.items()
                                  if spec.options is options)
        entries = self.ini.entries.get(section, {})
        values = {}
        for name, key in SECTIONS[spec_name(section)].keys.items():
            if name in entries:
                values[key.attribute] = self._value(section, name, key, *entries[name])
                continue
            if key.required and section in self.ini.entries:
                hint = f" ({key.option.hint})" if key.option.hint else ""
                self.problem(self.line(section), f"[{section}] lacks the key {name!r} — "
                             f"add it{hint}")
            values[key.attribute] = None if key.required else key.default
        return options(**values, **derived)

    def _value(self, section: str, name: str, key: Key, text: str, line: int) -> object:
        value, wrong = key.read(key.option, text)
        if not wrong:
            return value
        # Reported here; what depends on the value is not checked.
        self.problem(line, f"[{section}] {name}: {wrong}" if key.read is _word_list else
                     f"[{section}] {name} = {text!r} is not valid — {wrong}")
        return None

    def _check_sections(self) -> None:
        misspelt = set()
        for name, line in self.ini.section_lines.items():
            spec = SECTIONS.get(spec_name(name))
            if spec is None:
                close = difflib.get_close_matches(name, list(SECTIONS), n=1)
                misspelt.update(close)
                guess = f"did you mean [{close[0]}]? " if close else ""
                self.problem(line, f"unknown section [{name}] — {guess}known sections: "
                             f"{_known_sections()}")
            elif not spec.any_key:
                self._check_keys(name, spec)
        for name, spec in SECTIONS.items():
            # A misspelt section is reported as such, not as a missing one too.
            if spec.required and name not in self.ini.entries and name not in misspelt:
                required = [k for k, key in spec.keys.items() if key.required]
                self.problem(1, f"no [{name}] section — add it, with {', '.join(required)}")

    def _check_keys(self, section: str, spec: Section) -> None:
        allowed = set(spec.keys) | spec.d2lbook_keys
        for key, (_, line) in self.ini.entries[section].items():
            if key not in allowed:
                close = difflib.get_close_matches(key, sorted(allowed), n=1)
                guess = f"did you mean {close[0]!r}? " if close else ""
                self.problem(line, f"unknown key {key!r} in [{section}] — {guess}known keys: "
                             f"{', '.join(sorted(spec.keys))}")


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
