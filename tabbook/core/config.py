"""config.ini: read once, validated once, handed to the stages as a typed `Config`.

The file uses d2lbook's keys where they exist. Each section is a frozen dataclass
declared here, each of its keys a field made by `config_options.option` (its type,
default, check and hint in one place), from which the reader and its checks are
derived; the fields that are not options hold the values derived from the keys. Any
unknown section or key, any bad value is an error that names the line, and all of
them are reported in one run.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from pathlib import Path

from .config_options import (CONFIG_FILE, ConfigError, Settings, d2lbook_sections, option,
                             raise_problems, read_config_file, section, spec_name, words)
from .frameworks import framework
from .html_settings import HtmlSettings, html_settings
from .language import CATALOGUES, Language, language_of
from .model import Problem

__all__ = ["CONFIG_FILE", "Config", "ConfigError", "load_config"]

TAB_NAME = re.compile(r"[a-z][a-z0-9_]*\Z")
REPOSITORY = r"[\w.-]+/[\w.-]+"
GIT_REF = r"[\w./-]+"


def _tab_name_problem(tab: str, before: list[str]) -> str | None:
    if not TAB_NAME.match(tab) or tab == "all":
        return f"{tab!r} is not a valid tab name — use lowercase letters, digits and '_' (not 'all')"
    if tab in before:
        return f"tab {tab!r} is listed twice — list each tab once"
    return None


@section("project")
@dataclass(frozen=True)
class ProjectConfig:
    """The defaults are d2lbook's (its config_default.ini): a book may leave out [project]."""
    name: str = option("d2lbook", pattern=r"[A-Za-z0-9][A-Za-z0-9._-]*",
                       hint="use letters, digits, '.', '_' and '-'")
    title: str = option("")
    author: str = option("")
    release: str = option("0.0.1", pattern=r"\d+(\.\d+)*([ab]|rc)?\d*",
                          hint="use a version such as 1.0.0")
    lang: str = option("")
    """As written; "" when not written (d2lbook's default: English). Any value: one
    without a catalogue here is a warning, as in d2lbook."""
    copyright: str = option("")
    """d2lbook's copyright line, shown in the site's footer ("" for none)."""

    @property
    def language(self) -> Language:
        """The readers' words (site, PDF, launch notebooks): `lang`'s catalogue, or English."""
        return language_of(self.lang)[0]


@section("build", required=True, d2lbook_keys="rsts non-notebooks dependencies output_dir "
         "sphinx_extensions sphinx_configs origin_repo")
@dataclass(frozen=True)
class BuildConfig:
    tabs: tuple[str, ...] = option(
        check=_tab_name_problem, hint="the frameworks the code runs with, the first one the "
        "default, e.g. tabs = pytorch; for a book without tabs, the one it imports")
    """d2lbook runs a book without tabs in a plain kernel; here each tab has its own."""
    source_dir: str = option(".", pattern=r"[^\s]+", hint="give a folder relative to config.ini")
    """Folder of the sources, relative to the project (d2lbook's key)."""
    index: str = option("index", pattern=r"[\w./-]+",
                        hint="name the root page without .md, e.g. index")
    """The root page, relative to `source_dir`, without ``.md`` (d2lbook's key)."""
    notebooks: tuple[str, ...] = option(("**/*.md",))
    """Globs, relative to `source_dir`, of the Markdown sources of the book."""
    exclusions: tuple[str, ...] = option(())
    strict: bool = option(False, key="warning_is_error")
    """d2lbook's ``warning_is_error``: warnings (what d2lbook tolerates) stop the build."""
    eval_notebook: bool = option(True)
    """d2lbook's key: False renders the split notebooks, no code executed."""
    resources: tuple[str, ...] = option(())
    """d2lbook's globs of files the site copies (found once: `Config.html`)."""

    @property
    def default_tab(self) -> str:
        """The tab of untagged code cells (d2lbook's rule: the first tab)."""
        return self.tabs[0]


@section("execute")
@dataclass(frozen=True)
class ExecuteConfig:
    timeout: int = option(600, minimum=1)
    """Seconds allowed to one cell."""
    jobs: int = option(0)
    """Kernels run at once; 0 lets the build decide from the machine."""


@section("library", d2lbook_keys="save_filename save_mark save_patterns version root_dir")
@dataclass(frozen=True)
class LibraryConfig:
    version_file: str = option("")
    """The file whose ``__version__`` line follows [project] release; "" for none."""
    tabs: dict[str, TabLibrary] = field(default_factory=dict)
    """Tab -> its library; a tab without a ``[library-<tab>]`` section has none."""

    @property
    def lib_files(self) -> dict[str, str]:
        """Tab -> generated library file, e.g. ``pytorch`` -> ``d2l/torch.py``."""
        return {tab: library.lib_file for tab, library in self.tabs.items()}


@section("library-*", d2lbook_keys="reverse_alias")
@dataclass(frozen=True)
class TabLibrary:
    """One ``[library-<tab>]`` section: where the tab's #@save code goes, and its aliases."""
    lib_file: str = option(pattern=r"[\w/.-]+\.py", hint="give a .py path such as d2l/torch.py")
    """The generated file, e.g. ``d2l/torch.py``."""
    lib_name: str = option("")
    """The framework's module name that d2lbook's simple aliases point into (``torch``)."""
    alias: str = option("")
    simple_alias: str = option("")
    fluent_alias: str = option("")
    args_alias: str = option("")
    line: int = 0
    """The line of ``lib_file`` in config.ini."""

    @property
    def aliases(self) -> str:
        """The alias lines d2lbook's ``save_alias`` appends to the library, as Python."""
        return _alias_code(self)


@section("launch")
@dataclass(frozen=True)
class LaunchConfig:
    github_repo: str = option(pattern=REPOSITORY, hint="write it as owner/name")
    """The book's repository (owner/name): where launch notebooks install d2l from, at
    the tag of its content (notebooks/library.py's `library_tag`)."""
    branch: str = option("main", pattern=GIT_REF, hint="give a branch name")
    site_url: str = option(None, pattern=r"https?://\S+", hint="give an http(s) URL")
    """Where the HTML book is published, ending in '/'; launch notebooks' images point
    there (not written: the repository's GitHub Pages)."""
    notebook_repos: dict[str, str] = field(default_factory=dict)
    """Tab -> the repository holding that tab's published notebooks."""
    libs: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Tab -> pip requirements a launch notebook installs for that framework."""


@section("launch-*")
@dataclass(frozen=True)
class TabLaunch:
    libs: tuple[str, ...] = option(None)
    """Not written: the packages the tab's framework lacks on the platform."""


@section("colab", any_key=True)
@dataclass(frozen=True)
class ColabSettings:
    """d2lbook's [colab]: its github_repo stands in for [launch] github_repo."""
    github_repo: str = option(None)
    """One owner/name, or one ``tab, owner/name`` per line."""


@section("slides", any_key=True)
@dataclass(frozen=True)
class SlidesSettings:
    """d2lbook's [slides]: what the top corners of every slide show (HTML)."""
    top_right: str = option("")
    top_left: str = option("")


d2lbook_sections("deploy", "pdf", "sagemaker", "translation")


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
    slides: SlidesSettings = SlidesSettings()
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


# -- the values derived from the checked keys ----------------------------------

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


def _alias_code(library: TabLibrary) -> str:
    """d2lbook's ``save_alias``: ``alias`` as written, then the others written out."""
    code = library.alias.strip()
    code = code + "\n" if code else ""
    if library.lib_name:
        for a, b in _mapping(library.simple_alias):
            code += f"\n{a.rstrip('(')} = {library.lib_name}.{b.rstrip('(')}"
        fluent = _mapping(library.fluent_alias)
        if fluent:
            code += "\n" + "\n".join(f"{a} = lambda x, *args, **kwargs: x.{b}(*args, **kwargs)"
                                      for a, b in fluent)
        for a, b in _mapping(library.args_alias, split_lines=False):
            code += f"\ndef {a}:\n    return {b}"
    return code


def _notebook_repos(settings: Settings, written: str, tabs: tuple[str, ...]) -> dict[str, str]:
    """d2lbook's [colab] github_repo: one owner/name, or one ``tab, owner/name`` per line."""
    repos = {}
    for line in written.splitlines():
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


def _launch(settings: Settings, tabs: tuple[str, ...]) -> LaunchConfig | None:
    launch, colab = settings.read(LaunchConfig), settings.read(ColabSettings)
    if settings.has("launch"):
        github_repo = launch.github_repo
        notebook_repos = dict.fromkeys(tabs, github_repo)
    elif colab.github_repo is not None:
        notebook_repos = _notebook_repos(settings, colab.github_repo, tabs)
        github_repo = next(iter(notebook_repos.values()), None)
    else:
        return None
    if not github_repo or not re.fullmatch(REPOSITORY, github_repo):
        return None   # reported where it is written
    owner, repo_name = github_repo.split("/")
    site_url = launch.site_url or f"https://{owner.lower()}.github.io/{repo_name}/"
    return dataclasses.replace(
        launch, github_repo=github_repo, notebook_repos=notebook_repos,
        site_url=site_url.rstrip("/") + "/",
        libs={tab: settings.read(TabLaunch, f"launch-{tab}").libs or
              words(framework(tab).platform_lacks) for tab in tabs})


def _build(settings: Settings) -> BuildConfig:
    """[build], and the per-tab sections that name a tab its tabs do not list."""
    build = settings.read(BuildConfig)
    if not build.tabs:   # not written, not valid or empty: the per-tab sections can't be checked
        if build.tabs == ():
            settings.problem(settings.line("build", "tabs"), "[build] tabs is empty — list at "
                             "least one framework")
        return dataclasses.replace(build, tabs=())
    for name, line in settings.ini.section_lines.items():
        if spec_name(name) != name and name.split("-", 1)[1] not in build.tabs:
            settings.problem(line, f"section [{name}] names a tab that is not in [build] tabs "
                             f"({', '.join(build.tabs)}) — fix the name")
    return build


def _language_warnings(settings: Settings, project: ProjectConfig) -> tuple[Problem, ...]:
    """A warning where [project] lang falls back to English."""
    wrong = language_of(project.lang)[1]
    if wrong is None:
        return ()
    return (Problem(
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
    build = _build(settings)
    project = settings.read(ProjectConfig)
    libraries = {tab: settings.read(TabLibrary, f"library-{tab}",
                                    line=settings.line(f"library-{tab}", "lib_file"))
                 for tab in build.tabs if settings.has(f"library-{tab}")}
    config = Config(
        root=root, project=project, build=build, execute=settings.read(ExecuteConfig),
        library=settings.read(LibraryConfig, tabs=libraries),
        launch_settings=_launch(settings, build.tabs),
        html=html_settings(settings, build.resources, root, root / (build.source_dir or ".")),
        slides=settings.read(SlidesSettings),
        language_warnings=_language_warnings(settings, project),
    )
    raise_problems(settings.ini)
    return config
