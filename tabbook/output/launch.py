"""Launch stage: executed notebooks made ready for Colab and Kaggle.

A launch notebook is the executed notebook of one section and tab, with two
cells in front: what it is and how to get a GPU on each platform, then a setup
cell that installs what the platform lacks (this repository's d2l at the tag of
the version its files give, the d2l the notebook was executed with; the framework
where the platform has none; the section's ``#required_libs``). An installed d2l of
any other version is replaced. Images point to the published site, since Colab cannot
read paths relative to the notebook; references and citations (author, year) are links
to its pages and its bibliography. The prose, captions included, is in the book's
typography, as on the pages (French spacing for a French book).

Outputs are kept: a student sees the expected results before running anything,
the first cell says where and when they were produced, and every run replaces
them. They are a preview, so one too long to be published whole is cut to its
beginning and end, as on the page (notebooks/long_outputs.py). The first cells
speak the book's language (``[project] lang``).
"""
from __future__ import annotations

import copy
import json
import shutil
import textwrap
import tomllib
from dataclasses import dataclass
from pathlib import Path

import nbformat
from markdown_it.token import Token

from ..bootstrap.errors import BookError
from ..bootstrap.records import fingerprint, read_record, write_record
from ..core.config import CONFIG_FILE, Config
from ..core.files import read_notebook, tool_files, write_notebook_if_changed
from ..core.frameworks import display_name, framework
from ..core.language import Language
from ..core.layout import Layout, published_path
from ..core.model import METADATA_KEY, Section, project_path
from ..features.extension import ShownRole
from ..features.registry import BLOCK_ROLES, ROLES
from ..source.numbering import Numbers
from ..notebooks.library import library_tag, library_version
from ..execution.provenance import describe, provenance_of
from ..notebooks.long_outputs import cut_outputs
from .markdown_typography import typeset_markdown
from .typography import typeset
from ..source.roles import (LABEL_ROLES, REFERENCE_ROLES, edited, has_scheme, prose_tokens,
                            source_spans, split_reference)

# Kaggle's notebook settings that a GPU section asks for.
KAGGLE_GPU = {"accelerator": "nvidiaTeslaT4", "isGpuEnabled": True, "isInternetEnabled": True,
              "language": "python", "sourceType": "notebook", "dataSources": []}


@dataclass(frozen=True)
class LaunchLinks:
    """Where a reader opens one section's notebook for one framework."""
    colab: str
    kaggle: str


def requirements(config: Config, tabs: tuple[str, ...]) -> list[str]:
    """What launch notebooks need of config.ini, for a command to check before it does any
    work: the repository they install d2l from, which the site's buttons open them in."""
    if config.launch_settings is not None:
        return []
    return [f"{CONFIG_FILE}: the launch notebooks (and the site, which offers them) need a "
            "[launch] section with github_repo = owner/name (or d2lbook's [colab] "
            "github_repo) — add it"]


def launch_links(config: Config, tab: str, section: Section) -> LaunchLinks:
    repo, branch = config.launch.github_repo, config.launch.branch
    path = published_path(tab, section)
    blob = f"https://github.com/{repo}/blob/{branch}/{path}"
    return LaunchLinks(
        colab=f"https://colab.research.google.com/github/{repo}/blob/{branch}/{path}",
        kaggle=f"https://www.kaggle.com/kernels/welcome?src={blob}")


def library_distribution(root: Path) -> str | None:
    """The d2l package's distribution name, as the book's pyproject.toml declares it (None
    for a book without one: a d2lbook book's library is not pip-installable from it)."""
    if not (root / "pyproject.toml").is_file():
        return None
    with open(root / "pyproject.toml", "rb") as handle:
        return tomllib.load(handle)["project"]["name"]


def library_requirement(config: Config, version: str) -> str:
    """The pip requirement that installs the book's d2l at `version` (its git tag)."""
    url = f"git+https://github.com/{config.launch.github_repo}@{library_tag(version)}"
    distribution = library_distribution(config.root)
    return f"{distribution} @ {url}" if distribution else url


def _library_missing(config: Config, version: str) -> str:
    """The setup cell's test for "the book's d2l is not installed at `version`"."""
    distribution = library_distribution(config.root)
    if distribution is None:
        return "True"   # no distribution name to ask pip about: install it
    return f"installed_version({distribution!r}) != {version!r}"


def _literals(text: str, language: Language, indent: int) -> str:
    """`text`, a message the reader reads, in the book's typography and as Python: adjacent
    double-quoted literals, one per line of the code (never cut at a no-break space)."""
    lines = textwrap.wrap(typeset(text, language), 75)
    return f"\n{' ' * indent}".join(json.dumps(line + (" " if i < len(lines) - 1 else ""),
                                                ensure_ascii=False)
                                     for i, line in enumerate(lines))


def _setup_code(config: Config, tab: str, section: Section, version: str) -> str:
    language = config.project.language
    requirements = [*config.launch.libs[tab], *section.required_libs]
    guard = ""
    needs = framework(tab).max_python
    if needs:   # Colab and Kaggle have a newer Python: say where the notebook runs
        major, minor = (int(part) for part in needs.split(".")[:2])
        message = language.text("launch_python", framework=display_name(tab), python=needs)
        guard = (f"\nif sys.version_info >= ({major}, {minor + 1}):\n"
                 f"    raise RuntimeError({_literals(message, language, 23)})\n")
    return f'''\
# Setup for Colab and Kaggle: installs what this notebook needs and the platform lacks.
import importlib.metadata, subprocess, sys
{guard}
def installed_version(distribution):
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None

requirements = {requirements!r}
if {_library_missing(config, version)}:
    requirements.append({library_requirement(config, version)!r})
if requirements:
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", *requirements],
                   check=True)
# A package already imported in this session keeps its old version until a restart.
distributions = {{'d2l': {library_distribution(config.root) or 'd2l'!r}}}
changed = [name for name, module in list(sys.modules.items())
           if "." not in name and installed_version(distributions.get(name, name))
           and getattr(module, "__version__", None)
           not in (None, installed_version(distributions.get(name, name)))]
if changed:
    print({_literals(language.text("launch_restart"), language, 10)}, ", ".join(changed), \
{_literals(language.text("launch_changed"), language, 10)})'''


def _gpu_text(tab: str, section: Section, language: Language) -> str:
    """What the section does with a GPU, and how to get one on each platform."""
    if not section.gpus:
        return language.text("launch_no_gpu")
    gpus = language.plural("gpus", section.gpus)
    if not framework(tab).gpu_on_platforms:
        return language.text("launch_cpu_only", gpus=gpus, framework=display_name(tab))
    return language.text("launch_gpu", gpus=gpus)


def _intro_text(config: Config, tab: str, section: Section, executed, version: str) -> str:
    language, release = config.project.language, config.project.release
    installs = [language.text("launch_library", version=version)]
    installs += [f"`{lib}`" for lib in (*config.launch.libs[tab], *section.required_libs)]
    setup = "launch_setup_many" if len(installs) > 1 else "launch_setup_one"
    title = language.text("launch_title", title=config.project.title, section=section.title,
                          framework=display_name(tab), release=release)
    needs = framework(tab).max_python
    if needs:   # downloaded only: where it runs, not how to set up Colab or Kaggle
        lines = [title, "", language.text("launch_python", framework=display_name(tab),
                                          python=needs)]
    else:
        lines = [title, "", language.text(setup, listed=language.join(installs)), "",
                 _gpu_text(tab, section, language)]
    produced = describe(tab, executed, language)
    if produced:
        lines += ["", language.text("launch_outputs", provenance=produced)]
    return "\n".join("> " + line if line else ">" for line in lines)


def _for_platforms(text: str, config: Config, section: Section, numbers: Numbers) -> str:
    """A notebook's Markdown for Colab and Kaggle: references become links to the
    published book, relative image paths its URLs, the features' roles what they render
    (citations: author-year links to the published bibliography), labels and attribute
    lines go."""
    edits = []
    for token, start, end in source_spans(prose_tokens(text), text):
        written = text[start:end]
        replacement = _published(token, written, config, section, numbers)
        if replacement != written:
            edits.append((start, end, replacement))
    return edited(text, edits)


def _published(token: Token, written: str, config: Config, section: Section,
               numbers: Numbers) -> str:
    """What a role, attribute line or image `written` in the sources becomes."""
    if token.type == "image":
        path = token.meta["path"]
        at = written.rfind(path)
        if has_scheme(path) or at < 0:
            return written
        return (written[:at] + config.launch.site_url + project_path(section.display_path, path)
                + written[at + len(path):])
    role = token.meta["role"]
    if role in (*LABEL_ROLES, "width", "height"):
        return ""
    if role not in REFERENCE_ROLES:
        return _feature_role(token, written, config, section, numbers)
    custom, label = split_reference(token.meta["content"])
    target = numbers.targets.get(label)
    if target is None:
        return written
    url = _published_url(config, target.page, target.anchor)
    return f"[{target.text(role, custom, config.project.language)}]({url})"


def _published_url(config: Config, page: str, anchor: str) -> str:
    """The URL of a place in the published book."""
    return f"{config.launch.site_url}{page}.html#{anchor}"


def _feature_role(token: Token, written: str, config: Config, section: Section,
                  numbers: Numbers) -> str:
    """A feature's role (or block role) as the feature renders it in a launch notebook,
    linking to the published book; as written if it renders none."""
    feature = {"role": ROLES, "role_block": BLOCK_ROLES}.get(token.type, {}).get(
        token.meta["role"])
    render = feature and (feature.render_block_launch_markdown if token.type == "role_block"
                          else feature.render_launch_markdown)
    if not render:
        return written
    language = config.project.language
    return render(token.meta["content"], ShownRole(
        {}, {}, language, lambda text: typeset(text, language), section.name,
        lambda page, anchor: _published_url(config, page, anchor),
        numbers.features.get(feature.key)))


def published_markdown(text: str, config: Config, section: Section, numbers: Numbers) -> str:
    """A notebook's Markdown as published notebooks show it: typeset for the book's
    language, references and roles rendered for Colab and Kaggle (`_for_platforms`)."""
    return _for_platforms(typeset_markdown(text, config.project.language), config, section,
                          numbers)


def published_outputs(outputs: list, language: Language) -> list:
    """A code cell's outputs as published notebooks show them: those too long to be
    published whole cut, with a notice."""
    return cut_outputs(outputs, lambda shown: typeset(shown.notice(language), language))


def make_launch_notebook(executed: nbformat.NotebookNode, config: Config, tab: str,
                         section: Section, numbers: Numbers, *,
                         version: str | None = None) -> nbformat.NotebookNode:
    """The Colab/Kaggle notebook of `section` for `tab`, from its executed notebook (the
    split one for a book that is not executed: no outputs, no provenance sentence).
    `version` is the d2l package's (`library_version`), when the caller has it already."""
    notebook = copy.deepcopy(executed)
    provenance = provenance_of(notebook)
    version = version or library_version(config)
    intro = nbformat.v4.new_markdown_cell(typeset_markdown(
        _intro_text(config, tab, section, executed, version), config.project.language))
    setup = nbformat.v4.new_code_cell(_setup_code(config, tab, section, version))
    intro.id, setup.id = "launch-intro", "launch-setup"
    language = config.project.language
    for cell in notebook.cells:
        cell.metadata.pop(METADATA_KEY, None)   # .md lines and timings: build-only data
        if cell.cell_type == "markdown":
            cell.source = published_markdown(cell.source, config, section, numbers)
        elif cell.cell_type == "code":
            cell.outputs = published_outputs(cell.outputs, language)
    notebook.cells = [intro, setup, *notebook.cells]
    metadata = {
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "language_info": {"name": "python"},
        METADATA_KEY: {"tab": tab, "source": section.display_path, "release": config.project.release,
                       "library_version": version, "provenance": provenance},
    }
    if section.gpus and framework(tab).gpu_on_platforms:   # no GPU to ask for otherwise
        metadata["accelerator"] = "GPU"
        metadata["colab"] = {"gpuType": "T4", "provenance": []}
        metadata["kaggle"] = dict(KAGGLE_GPU)
    notebook.metadata = metadata
    return notebook


@dataclass
class LaunchResult:
    written: list[Path]
    unchanged: list[Path]
    missing: list[tuple[Section, str]]
    """Section/tab pairs without an executed notebook (eval failed or not run)."""


def has_launch_notebook(section: Section, tab: str) -> bool:
    """Only sections with code for `tab` get one: a prose page has nothing to run."""
    return any(cell.in_tab(tab) for cell in section.code_cells())


def write_launch_notebooks(config: Config, numbers: Numbers, pairs: list[tuple[Section, str]],
                           layout: Layout, prune: tuple[str, ...] = ()) -> LaunchResult:
    """Write the launch notebooks of the (section, tab) pairs from their executed notebooks.

    A notebook whose inputs (executed notebook, config, numbers, the d2l package, the
    build's code) are those it was made from, and which is still as written, is left as it is. The
    files of the `prune` tabs' folders that no pair produces are removed; other tabs'
    notebooks are never touched.
    """
    result = LaunchResult([], [], [])
    # Launch notebook (as shown) -> the fingerprint of what it was made from; none yet, or
    # unreadable: every notebook is made again.
    recorded = read_record(layout.launch_record) or {}
    record = dict(recorded)
    version = library_version(config)
    common = fingerprint(config.root, [*tool_files(), config.root / CONFIG_FILE,
                                       config.root / "pyproject.toml"],
                         repr((sorted(numbers.targets.items()), numbers.features)), version)
    for section, tab in pairs:
        if not has_launch_notebook(section, tab):
            continue
        executed_path = layout.shown_notebook(tab, section)
        if not executed_path.is_file():
            result.missing.append((section, tab))
            continue
        path = layout.launch_notebook(tab, section)
        key = layout.shown(path)
        # What it is made from, and the notebook itself as this stage last wrote it.
        made_from = [executed_path, path], common, tab, repr(section_facts(section))
        if path.is_file() and record.get(key) == fingerprint(config.root, *made_from):
            result.unchanged.append(path)
            continue
        notebook = make_launch_notebook(read_notebook(executed_path), config, tab, section,
                                        numbers, version=version)
        changed = write_notebook_if_changed(path, notebook)
        (result.written if changed else result.unchanged).append(path)
        record[key] = fingerprint(config.root, *made_from)
    _prune(layout, prune, set(result.written + result.unchanged), record)
    if record != recorded:
        write_record(layout.launch_record, record)
    return result


def _prune(layout: Layout, tabs: tuple[str, ...], kept: set[Path], record: dict) -> None:
    """Remove the files of the `tabs`' launch folders but `kept`, and their records: the
    published tree holds nothing else (no removed section's notebook, no killed write's
    temporary)."""
    for tab in tabs:
        for path in sorted((layout.launch / tab).rglob("*")):
            if path.is_file() and path not in kept:
                path.unlink()
                record.pop(layout.shown(path), None)


def section_facts(section: Section) -> tuple:
    """What a launch notebook takes from its section besides the executed notebook."""
    return (section.title, section.display_path, section.gpus, section.required_libs)


OUT_MARKER = ".written-by-build-py"


class OutError(BookError):
    """--out names a folder that build.py must not replace."""


def copy_tree(source: Path, destination: Path) -> int:
    """Mirror `source` into `destination` (for --out); returns the files copied.

    The destination is replaced, so it must be new, empty, or written by an
    earlier --out (it then holds a marker file): never a folder of the user's.
    """
    if destination.exists() and any(destination.iterdir()) and \
            not (destination / OUT_MARKER).is_file():
        raise OutError(f"--out {destination}: the folder exists and was not written by "
                       "build.py — choose a new or empty folder")
    if destination.exists():
        shutil.rmtree(destination)
    shutil.copytree(source, destination)
    (destination / OUT_MARKER).write_text("Written by build.py --out; replaced at each run.\n")
    return sum(1 for p in destination.rglob("*") if p.is_file() and p.name != OUT_MARKER)
