"""config.ini: read once, validated once, handed to the stages as a typed `Config`.

The file uses d2lbook's keys where they exist; its schema is declared in
`config_schema`. Any unknown section or key, any bad value is an error that
names the line, and all of them are reported in one run.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .config_schema import (CONFIG_FILE, REPOSITORY, ConfigError, Settings, raise_problems,
                            read_config_file, spec_name, words)
from .frameworks import framework
from .html_settings import HtmlSettings, html_settings
from .language import CATALOGUES, Language, language_of
from .model import Problem

__all__ = ["CONFIG_FILE", "Config", "ConfigError", "load_config"]


@dataclass(frozen=True)
class ProjectConfig:
    name: str
    title: str
    author: str
    release: str
    lang: str
    """As written; "" when not written (d2lbook's default: English)."""
    language: Language
    """The readers' words (site, PDF, launch notebooks): `lang`'s catalogue, or English."""
    copyright: str = ""
    """d2lbook's copyright line, shown in the site's footer ("" for none)."""


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
    eval_notebook: bool = True
    """d2lbook's key: False renders the split notebooks, no code executed."""

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
    line: int = 0
    """The line of ``lib_file`` in config.ini."""


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
    html: HtmlSettings = HtmlSettings()
    """d2lbook's [html] header links, favicon, logo, style sheets and [build] resources."""
    language_warnings: tuple[Problem, ...] = ()
    """A language without a catalogue here (read in English, as d2lbook does)."""

    @property
    def warnings(self) -> tuple[Problem, ...]:
        """What d2lbook tolerates in config.ini, at its line (errors when strict)."""
        return self.language_warnings + self.html.warnings

    @property
    def source_root(self) -> Path:
        """The folder the book's sources are in (``[build] source_dir``)."""
        return self.root / self.build.source_dir

    @property
    def launch(self) -> LaunchConfig:
        """The launch settings, for the stages that need them: they say so in their
        `requirements`, which every command checks before it does any work."""
        if self.launch_settings is None:
            raise ValueError("no [launch] settings: the command did not check the "
                             "requirements of its stages")
        return self.launch_settings


# -- building the typed Config from the checked settings -------------------

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


def _alias_code(settings: Settings, section: str) -> str:
    """The alias lines d2lbook's ``save_alias`` appends to a library, from [library-<tab>]."""
    code = settings.get(section, "alias").strip()
    code = code + "\n" if code else ""
    lib_name = settings.get(section, "lib_name")
    if lib_name:
        for a, b in _mapping(settings.get(section, "simple_alias")):
            code += f"\n{a.rstrip('(')} = {lib_name}.{b.rstrip('(')}"
        fluent = _mapping(settings.get(section, "fluent_alias"))
        if fluent:
            code += "\n" + "\n".join(f"{a} = lambda x, *args, **kwargs: x.{b}(*args, **kwargs)"
                                      for a, b in fluent)
        for a, b in _mapping(settings.get(section, "args_alias"), split_lines=False):
            code += f"\ndef {a}:\n    return {b}"
    return code


def _notebook_repos(settings: Settings, tabs: tuple[str, ...]) -> dict[str, str]:
    """d2lbook's [colab] github_repo: one owner/name, or one ``tab, owner/name`` per line."""
    repos = {}
    for line in settings.get("colab", "github_repo").splitlines():
        tab, _, repo = line.rpartition(",")
        tab, repo = tab.strip(), repo.strip()
        if not re.fullmatch(REPOSITORY, repo) or (tab and tab not in tabs):
            settings.problem(settings.line("colab", "github_repo"),
                             f"[colab] github_repo line {line!r} is not valid — write "
                             "owner/name, or one 'tab, owner/name' per line")
            continue
        for name in ([tab] if tab else tabs):
            repos[name] = repo
    return repos


def _launch(settings: Settings, release: str, tabs: tuple[str, ...]) -> LaunchConfig | None:
    if settings.has("launch"):
        github_repo = settings.get("launch", "github_repo")
        notebook_repos = dict.fromkeys(tabs, github_repo)
    elif settings.get("colab", "github_repo") is not None:
        notebook_repos = _notebook_repos(settings, tabs)
        github_repo = next(iter(notebook_repos.values()), None)
    else:
        return None
    if not github_repo or not re.fullmatch(REPOSITORY, github_repo):
        return None   # reported where it is written
    owner, repo_name = github_repo.split("/")
    site_url = settings.get("launch", "site_url") or \
        f"https://{owner.lower()}.github.io/{repo_name}/"
    return LaunchConfig(
        github_repo=github_repo,
        notebook_repos=notebook_repos,
        branch=settings.get("launch", "branch"),
        library_ref=settings.get("launch", "library_ref") or f"v{release}",
        site_url=site_url.rstrip("/") + "/",
        libs={tab: settings.get(f"launch-{tab}", "libs") or
              words(framework(tab).platform_lacks) for tab in tabs},
    )


def _tabs(settings: Settings) -> tuple[str, ...]:
    """[build] tabs, and the per-tab sections that name a tab it does not list."""
    tabs = settings.get("build", "tabs")
    if not tabs:   # not written, not valid or empty: the per-tab sections can't be checked
        if tabs == ():
            settings.problem(settings.line("build", "tabs"), "[build] tabs is empty — list at "
                             "least one framework")
        return ()
    for name, line in settings.ini.section_lines.items():
        if spec_name(name) != name and name.split("-", 1)[1] not in tabs:
            settings.problem(line, f"section [{name}] names a tab that is not in [build] tabs "
                             f"({', '.join(tabs)}) — fix the name")
    return tabs


def _language(settings: Settings) -> tuple[Language, tuple[Problem, ...]]:
    """[project] lang's `Language`, and a warning where it falls back to English."""
    lang = settings.get("project", "lang") or ""
    language, wrong = language_of(lang)
    if wrong is None:
        return language, ()
    return language, (Problem(
        CONFIG_FILE, settings.line("project", "lang"),
        f"[project] lang = {wrong}: the site, PDF and launch notebooks read in English",
        f"write one of {', '.join(sorted(CATALOGUES))} (or leave it: English is d2lbook's "
        "default)", warning=True),)


def load_config(root: Path) -> Config:
    """Read and validate ``root/config.ini``; every mistake is reported at once."""
    path = root / CONFIG_FILE
    if not path.is_file():
        raise ConfigError(f"{path}: not found — run build.py from the book's folder, "
                          "or name it with -C DIR")
    settings = read_config_file(path)
    tabs = _tabs(settings)
    language, warnings = _language(settings)

    def get(key: str):
        section, _, name = key.partition(".")
        return settings.get(section, name)

    config = Config(
        root=root,
        project=ProjectConfig(name=get("project.name"), title=get("project.title"),
                              author=get("project.author"), release=get("project.release"),
                              lang=get("project.lang"), language=language,
                              copyright=get("project.copyright")),
        build=BuildConfig(tabs=tabs, source_dir=get("build.source_dir"), index=get("build.index"),
                          notebooks=get("build.notebooks"), exclusions=get("build.exclusions"),
                          strict=get("build.warning_is_error"),
                          eval_notebook=get("build.eval_notebook")),
        execute=ExecuteConfig(timeout=get("execute.timeout"), jobs=get("execute.jobs")),
        library=LibraryConfig(
            version_file=get("library.version_file"),
            tabs={tab: TabLibrary(lib_file=settings.get(f"library-{tab}", "lib_file"),
                                  lib_name=settings.get(f"library-{tab}", "lib_name"),
                                  aliases=_alias_code(settings, f"library-{tab}"),
                                  line=settings.line(f"library-{tab}", "lib_file"))
                  for tab in tabs if settings.has(f"library-{tab}")}),
        launch_settings=_launch(settings, get("project.release"), tabs),
        html=html_settings(settings, root, root / (get("build.source_dir") or ".")),
        language_warnings=warnings,
    )
    raise_problems(settings.ini)
    return config
