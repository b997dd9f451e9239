"""config.ini: read once, validated once, handed to the stages as a typed `Config`.

The file uses d2lbook's keys where they exist. Any unknown section or key, any
bad value is an error that names the line, so a typo never goes unnoticed.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

CONFIG_FILE = "config.ini"
TAB_NAME = re.compile(r"[a-z][a-z0-9_]*\Z")


class ConfigError(Exception):
    """A problem in config.ini; the message names the file and line."""


@dataclass(frozen=True)
class ProjectConfig:
    name: str
    title: str
    author: str
    release: str
    lang: str


@dataclass(frozen=True)
class BuildConfig:
    tabs: tuple[str, ...]
    notebooks: tuple[str, ...]
    """Globs, relative to the project, of the Markdown sources of the book."""
    exclusions: tuple[str, ...]

    @property
    def default_tab(self) -> str:
        """The tab of untagged code cells (d2lbook's rule: the first tab)."""
        return self.tabs[0]


@dataclass(frozen=True)
class ExecuteConfig:
    timeout: int
    """Seconds allowed to one cell."""
    jobs: int
    """Kernels run at once; 0 lets the build decide from the machine."""


@dataclass(frozen=True)
class LibraryConfig:
    version_file: str
    lib_files: dict[str, str]
    """Tab -> generated library file, e.g. ``pytorch`` -> ``d2l/torch.py``."""


@dataclass(frozen=True)
class LaunchConfig:
    github_repo: str
    branch: str
    library_ref: str
    """Git tag or commit of this repository that launch notebooks install d2l from."""
    site_url: str
    """Where the HTML book is published, ending in '/'; launch notebooks' images point there."""
    libs: dict[str, tuple[str, ...]]
    """Tab -> pip requirements a launch notebook installs for that framework."""


@dataclass(frozen=True)
class Config:
    root: Path
    project: ProjectConfig
    build: BuildConfig
    execute: ExecuteConfig
    library: LibraryConfig
    launch: LaunchConfig


# -- reading ---------------------------------------------------------------

Entries = dict[str, dict[str, tuple[str, int]]]


def _read_ini(path: Path) -> tuple[Entries, dict[str, int]]:
    """Parse INI text keeping the line of every section and key.

    Values may continue on indented lines, as in d2lbook's config files.
    """
    entries: Entries = {}
    section_lines: dict[str, int] = {}
    section = None
    last_key = None
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise ConfigError(f"{path.name}: not UTF-8 ({err.reason}) — save the file as UTF-8") from None
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if not stripped or stripped[0] in "#;":
            continue
        where = f"{path.name}:{number}"
        if raw[0].isspace() and last_key is not None:
            value, line = entries[section][last_key]
            entries[section][last_key] = (f"{value}\n{stripped}".strip(), line)
            continue
        if stripped.startswith("["):
            if not stripped.endswith("]"):
                raise ConfigError(f"{where}: malformed section header {stripped!r} — write it as [name]")
            section = stripped[1:-1].strip()
            if section in entries:
                raise ConfigError(f"{where}: section [{section}] appears twice "
                                  f"(first at line {section_lines[section]}) — merge them")
            entries[section] = {}
            section_lines[section] = number
            last_key = None
            continue
        key, sep, value = stripped.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ConfigError(f"{where}: expected 'key = value', got {stripped!r} — fix the line")
        if section is None:
            raise ConfigError(f"{where}: key {key!r} before any [section] — put it under a section")
        if key in entries[section]:
            raise ConfigError(f"{where}: key {key!r} appears twice in [{section}] — keep one")
        entries[section][key] = (value.strip(), number)
        last_key = key
    return entries, section_lines


def _words(value: str) -> tuple[str, ...]:
    return tuple(w for w in re.split(r"[,\s]+", value) if w)


class _Section:
    """Typed access to one INI section; remembers which keys were used."""

    def __init__(self, file: str, name: str, entries: dict[str, tuple[str, int]], line: int):
        self.file, self.name, self.entries, self.line = file, name, entries, line

    def _get(self, key: str, default: str | None) -> tuple[str, str]:
        if key in self.entries:
            value, line = self.entries[key]
            return value, f"{self.file}:{line}"
        if default is None:
            raise ConfigError(f"{self.file}:{self.line}: [{self.name}] lacks the key {key!r} — add it")
        return default, f"{self.file}:{self.line}"

    def str(self, key: str, default: str | None = None, pattern: str | None = None,
            hint: str = "") -> str:
        value, where = self._get(key, default)
        if pattern is not None and not re.fullmatch(pattern, value):
            raise ConfigError(f"{where}: [{self.name}] {key} = {value!r} is not valid — {hint}")
        return value

    def int(self, key: str, default: str | None = None, minimum: int = 0) -> int:
        value, where = self._get(key, default)
        try:
            number = int(value)
        except ValueError:
            number = minimum - 1
        if number < minimum:
            raise ConfigError(f"{where}: [{self.name}] {key} = {value!r} is not valid — "
                              f"write a whole number >= {minimum}")
        return number

    def words(self, key: str, default: str | None = None,
              check: Callable[[str], str | None] | None = None) -> tuple[str, ...]:
        value, where = self._get(key, default)
        items = _words(value)
        for item in items:
            error = check(item) if check else None
            if error:
                raise ConfigError(f"{where}: [{self.name}] {key}: {error}")
        return items


# What Colab and Kaggle lack for a framework, when [launch-<tab>] libs is not set:
# they ship PyTorch and TensorFlow, not MXNet (retired; it needs numpy < 1.24).
PLATFORM_LACKS = {"mxnet": "mxnet==1.9.1 numpy<1.24"}

_KNOWN: dict[str, set[str]] = {
    "project": {"name", "title", "author", "release", "lang"},
    "build": {"tabs", "notebooks", "exclusions"},
    "execute": {"timeout", "jobs"},
    "library": {"version_file"},
    "library-*": {"lib_file"},
    "launch": {"github_repo", "branch", "library_ref", "site_url"},
    "launch-*": {"libs"},
}


def _pattern(section: str) -> str:
    """``library-pytorch`` -> ``library-*``: per-tab sections share their keys."""
    return section.split("-")[0] + "-*" if "-" in section else section


def _check_tab(tab: str, seen: list[str]) -> str | None:
    if not TAB_NAME.match(tab) or tab == "all":
        return f"{tab!r} is not a valid tab name — use lowercase letters, digits and '_' (not 'all')"
    if tab in seen:
        return f"tab {tab!r} is listed twice — list each tab once"
    seen.append(tab)
    return None


def load_config(root: Path) -> Config:
    """Read and validate ``root/config.ini``."""
    path = root / CONFIG_FILE
    if not path.is_file():
        raise ConfigError(f"{path}: not found — run build.py from the book's folder")
    entries, section_lines = _read_ini(path)
    file = CONFIG_FILE

    # Unknown sections and keys, with the line where they are.
    for name, keys in entries.items():
        if _pattern(name) not in _KNOWN:
            known = ", ".join(f"[{s}]" for s in _KNOWN)
            raise ConfigError(f"{file}:{section_lines[name]}: unknown section [{name}] — "
                              f"known sections: {known}")
        for key, (_, line) in keys.items():
            if key not in _KNOWN[_pattern(name)]:
                raise ConfigError(f"{file}:{line}: unknown key {key!r} in [{name}] — "
                                  f"known keys: {', '.join(sorted(_KNOWN[_pattern(name)]))}")

    tabs_seen: list[str] = []
    build_entries = entries.get("build", {})
    build = _Section(file, "build", build_entries, section_lines.get("build", 1))
    tabs = build.words("tabs", check=lambda t: _check_tab(t, tabs_seen))
    if not tabs:
        raise ConfigError(f"{file}:{build_entries['tabs'][1]}: [build] tabs is empty — "
                          "list at least one framework")
    for name in entries:
        if _pattern(name) != name and name.split("-", 1)[1] not in tabs:
            raise ConfigError(f"{file}:{section_lines[name]}: section [{name}] names a tab "
                              f"that is not in [build] tabs ({', '.join(tabs)}) — fix the name")

    def section(name: str) -> _Section:
        return _Section(file, name, entries.get(name, {}), section_lines.get(name, 1))

    project = section("project")
    execute = section("execute")
    library = section("library")
    launch = section("launch")
    release = project.str("release", pattern=r"\d+(\.\d+)*([ab]|rc)?\d*",
                          hint="use a version such as 1.0.0")
    github_repo = launch.str("github_repo", pattern=r"[\w.-]+/[\w.-]+", hint="write it as owner/name")
    owner, repo_name = github_repo.split("/")
    site_url = launch.str("site_url", default=f"https://{owner.lower()}.github.io/{repo_name}/",
                          pattern=r"https?://\S+", hint="give an http(s) URL")
    return Config(
        root=root,
        project=ProjectConfig(
            name=project.str("name", pattern=r"[A-Za-z0-9][A-Za-z0-9._-]*",
                             hint="use letters, digits, '.', '_' and '-'"),
            title=project.str("title", pattern=r".+", hint="give the book a title"),
            author=project.str("author", default=""),
            release=release,
            lang=project.str("lang", default="en", pattern=r"[a-z]{2}(-[A-Z]{2})?",
                             hint="use a language code such as fr"),
        ),
        build=BuildConfig(
            tabs=tabs,
            notebooks=build.words("notebooks", default="chapters/**/*.md"),
            exclusions=build.words("exclusions", default=""),
        ),
        execute=ExecuteConfig(
            timeout=execute.int("timeout", default="600", minimum=1),
            jobs=execute.int("jobs", default="0", minimum=0),
        ),
        library=LibraryConfig(
            version_file=library.str("version_file", default="d2l/__init__.py"),
            lib_files={tab: section(f"library-{tab}").str("lib_file", pattern=r"[\w/.-]+\.py",
                                                          hint="give a .py path such as d2l/torch.py")
                       for tab in tabs},
        ),
        launch=LaunchConfig(
            github_repo=github_repo,
            branch=launch.str("branch", default="main", pattern=r"[\w./-]+",
                              hint="give a branch name"),
            library_ref=launch.str("library_ref", default=f"v{release}", pattern=r"[\w./-]+",
                                   hint="give a tag or commit, e.g. v1.0.0"),
            site_url=site_url.rstrip("/") + "/",
            libs={tab: section(f"launch-{tab}").words("libs", default=PLATFORM_LACKS.get(tab, ""))
                  for tab in tabs},
        ),
    )
