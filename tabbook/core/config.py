"""config.ini: read once, validated once, handed to the stages as a typed `Config`.

The file uses d2lbook's keys where they exist. Any unknown section or key, any
bad value is an error that names the line, so a typo never goes unnoticed.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..bootstrap.errors import BookError
from .frameworks import framework

CONFIG_FILE = "config.ini"
TAB_NAME = re.compile(r"[a-z][a-z0-9_]*\Z")


class ConfigError(BookError):
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
    source_dir: str
    """Folder of the sources, relative to the project (d2lbook's key; ``.`` by default)."""
    index: str
    """The root page, relative to `source_dir`, without ``.md`` (d2lbook's key)."""
    notebooks: tuple[str, ...]
    """Globs, relative to `source_dir`, of the Markdown sources of the book."""
    exclusions: tuple[str, ...]
    strict: bool
    """d2lbook's ``warning_is_error``: warnings (what d2lbook tolerates) stop the build."""

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
class TabLibrary:
    """One ``[library-<tab>]`` section: where the tab's #@save code goes, and its aliases."""
    lib_file: str
    """The generated file, e.g. ``d2l/torch.py``."""
    lib_name: str = ""
    """The framework's module name that d2lbook's simple aliases point into (``torch``)."""
    aliases: str = ""
    """The alias lines d2lbook appends to the library (alias, simple_alias, fluent_alias,
    args_alias), already written out as Python."""


@dataclass(frozen=True)
class LibraryConfig:
    version_file: str
    """The file whose ``__version__`` line follows [project] release; "" for none."""
    tabs: dict[str, TabLibrary]
    """Tab -> its library; a tab without a ``[library-<tab>]`` section has none."""

    @property
    def lib_files(self) -> dict[str, str]:
        """Tab -> generated library file, e.g. ``pytorch`` -> ``d2l/torch.py``."""
        return {tab: library.lib_file for tab, library in self.tabs.items()}


@dataclass(frozen=True)
class LaunchConfig:
    github_repo: str
    """The book's repository (owner/name): where launch notebooks install d2l from."""
    notebook_repos: dict[str, str]
    """Tab -> the repository holding that tab's published notebooks."""
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
    launch_settings: LaunchConfig | None
    """None when config.ini has neither [launch] nor d2lbook's [colab] github_repo."""

    @property
    def source_root(self) -> Path:
        """The folder the book's sources are in (``[build] source_dir``)."""
        return self.root / self.build.source_dir

    @property
    def launch(self) -> LaunchConfig:
        """The launch settings, for the commands that need them (launch, html)."""
        if self.launch_settings is None:
            raise ConfigError(f"{CONFIG_FILE}: the launch and html commands need a [launch] "
                              "section with github_repo = owner/name (or d2lbook's [colab] "
                              "github_repo) — add it")
        return self.launch_settings


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


class _IniSection:
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


_KNOWN: dict[str, set[str]] = {
    "project": {"name", "title", "author", "release", "lang"},
    "build": {"tabs", "notebooks", "exclusions", "source_dir", "index", "warning_is_error"},
    "execute": {"timeout", "jobs"},
    "library": {"version_file"},
    "library-*": {"lib_file", "lib_name", "alias", "simple_alias", "fluent_alias",
                  "args_alias"},
    "launch": {"github_repo", "branch", "library_ref", "site_url"},
    "launch-*": {"libs"},
}
# Keys that d2lbook defines and this tool does not use: accepted, so that any
# d2lbook book builds with its own config.ini.
_D2LBOOK_ONLY: dict[str, set[str]] = {
    "project": {"copyright"},
    "build": {"rsts", "non-notebooks", "dependencies", "resources", "eval_notebook",
              "output_dir", "sphinx_extensions", "sphinx_configs", "origin_repo"},
    "library": {"save_filename", "save_mark", "save_patterns", "version", "root_dir"},
    "library-*": {"reverse_alias"},
}
# Sections of d2lbook's other builders (Sphinx, PDF, slides, deployment): any key.
_D2LBOOK_SECTIONS = {"html", "pdf", "colab", "sagemaker", "deploy", "translation", "slides"}


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


def _mapping(text: str, split_lines: bool = True) -> list[tuple[str, str]]:
    """d2lbook's ``a -> b, c`` alias lists as (a, b) pairs; ``c`` stands for (c, c)."""
    terms = [term for line in text.splitlines()
             for term in (line.split(",") if split_lines else [line])]
    pairs = []
    for term in (t.strip() for t in terms):
        if term:
            a, arrow, b = term.partition("->")
            pairs.append((a.strip(), b.strip()) if arrow else (term, term))
    return pairs


def _alias_code(section: _IniSection) -> str:
    """The alias lines d2lbook's ``save_alias`` appends to a library, from [library-<tab>]."""
    code = section.str("alias", default="").strip()
    code = code + "\n" if code else ""
    lib_name = section.str("lib_name", default="")
    if lib_name:
        for a, b in _mapping(section.str("simple_alias", default="")):
            code += f"\n{a.rstrip('(')} = {lib_name}.{b.rstrip('(')}"
        fluent = _mapping(section.str("fluent_alias", default=""))
        if fluent:
            code += "\n" + "\n".join(f"{a} = lambda x, *args, **kwargs: x.{b}(*args, **kwargs)"
                                      for a, b in fluent)
        for a, b in _mapping(section.str("args_alias", default=""), split_lines=False):
            code += f"\ndef {a}:\n    return {b}"
    return code


def _notebook_repos(value: str, where: str, tabs: tuple[str, ...]) -> dict[str, str]:
    """d2lbook's [colab] github_repo: one owner/name, or one ``tab, owner/name`` per line."""
    repos = {}
    for line in value.splitlines():
        tab, _, repo = line.rpartition(",")
        tab, repo = tab.strip(), repo.strip()
        if not re.fullmatch(r"[\w.-]+/[\w.-]+", repo) or (tab and tab not in tabs):
            raise ConfigError(f"{where}: [colab] github_repo line {line!r} is not valid — "
                              "write owner/name, or one 'tab, owner/name' per line")
        for name in ([tab] if tab else tabs):
            repos[name] = repo
    return repos


def _launch(section: Callable[[str], _IniSection], entries: Entries, release: str,
            tabs: tuple[str, ...]) -> LaunchConfig | None:
    launch, colab = section("launch"), section("colab")
    if "launch" in entries:
        github_repo = launch.str("github_repo", pattern=r"[\w.-]+/[\w.-]+",
                                 hint="write it as owner/name")
        notebook_repos = dict.fromkeys(tabs, github_repo)
    elif "github_repo" in entries.get("colab", {}):
        value, line = entries["colab"]["github_repo"]
        notebook_repos = _notebook_repos(value, f"{colab.file}:{line}", tabs)
        github_repo = next(iter(notebook_repos.values()))
    else:
        return None
    owner, repo_name = github_repo.split("/")
    site_url = launch.str("site_url", default=f"https://{owner.lower()}.github.io/{repo_name}/",
                          pattern=r"https?://\S+", hint="give an http(s) URL")
    return LaunchConfig(
        github_repo=github_repo,
        notebook_repos=notebook_repos,
        branch=launch.str("branch", default="main", pattern=r"[\w./-]+",
                          hint="give a branch name"),
        library_ref=launch.str("library_ref", default=f"v{release}", pattern=r"[\w./-]+",
                               hint="give a tag or commit, e.g. v1.0.0"),
        site_url=site_url.rstrip("/") + "/",
        libs={tab: section(f"launch-{tab}").words("libs", default=framework(tab).platform_lacks)
              for tab in tabs},
    )


def _check_known(entries: Entries, section_lines: dict[str, int]) -> None:
    """Unknown sections and keys are errors, at their line."""
    for name, keys in entries.items():
        pattern = _pattern(name)
        if name in _D2LBOOK_SECTIONS:
            continue
        if pattern not in _KNOWN:
            known = ", ".join(f"[{s}]" for s in _KNOWN)
            raise ConfigError(f"{CONFIG_FILE}:{section_lines[name]}: unknown section [{name}] — "
                              f"known sections: {known} (and d2lbook's "
                              f"{', '.join(f'[{s}]' for s in sorted(_D2LBOOK_SECTIONS))})")
        for key, (_, line) in keys.items():
            if key not in _KNOWN[pattern] | _D2LBOOK_ONLY.get(pattern, set()):
                raise ConfigError(f"{CONFIG_FILE}:{line}: unknown key {key!r} in [{name}] — "
                                  f"known keys: {', '.join(sorted(_KNOWN[pattern]))}")


def load_config(root: Path) -> Config:
    """Read and validate ``root/config.ini``."""
    path = root / CONFIG_FILE
    if not path.is_file():
        raise ConfigError(f"{path}: not found — run build.py from the book's folder, "
                          "or name it with -C DIR")
    entries, section_lines = _read_ini(path)
    file = CONFIG_FILE
    _check_known(entries, section_lines)

    tabs_seen: list[str] = []
    build_entries = entries.get("build", {})
    build = _IniSection(file, "build", build_entries, section_lines.get("build", 1))
    tabs = build.words("tabs", check=lambda t: _check_tab(t, tabs_seen))
    if not tabs:
        raise ConfigError(f"{file}:{build_entries['tabs'][1]}: [build] tabs is empty — "
                          "list at least one framework")
    for name in entries:
        if _pattern(name) != name and name not in _D2LBOOK_SECTIONS and \
                name.split("-", 1)[1] not in tabs:
            raise ConfigError(f"{file}:{section_lines[name]}: section [{name}] names a tab "
                              f"that is not in [build] tabs ({', '.join(tabs)}) — fix the name")

    def section(name: str) -> _IniSection:
        return _IniSection(file, name, entries.get(name, {}), section_lines.get(name, 1))

    project = section("project")
    execute = section("execute")
    library = section("library")
    release = project.str("release", pattern=r"\d+(\.\d+)*([ab]|rc)?\d*",
                          hint="use a version such as 1.0.0")
    source_dir = build.str("source_dir", default=".", pattern=r"[^\s]+",
                           hint="give a folder relative to config.ini")
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
            source_dir=source_dir,
            index=build.str("index", default="index", pattern=r"[\w./-]+",
                            hint="name the root page without .md, e.g. index"),
            notebooks=build.words("notebooks", default="**/*.md"),
            exclusions=build.words("exclusions", default=""),
            strict=build.str("warning_is_error", default="False",
                             pattern=r"(?i)true|false", hint="write True or False"
                             ).lower() == "true",
        ),
        execute=ExecuteConfig(
            timeout=execute.int("timeout", default="600", minimum=1),
            jobs=execute.int("jobs", default="0", minimum=0),
        ),
        library=LibraryConfig(
            version_file=library.str("version_file", default=""),
            tabs={tab: TabLibrary(
                lib_file=section(f"library-{tab}").str(
                    "lib_file", pattern=r"[\w/.-]+\.py", hint="give a .py path such as d2l/torch.py"),
                lib_name=section(f"library-{tab}").str("lib_name", default=""),
                aliases=_alias_code(section(f"library-{tab}")))
                for tab in tabs if f"library-{tab}" in entries},
        ),
        launch_settings=_launch(section, entries, release, tabs),
    )
