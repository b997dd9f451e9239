"""Where every output of a build goes: the one place that names ``_build/…`` and
``frozen/…`` paths.

A stage asks the layout for a folder or file; none joins path pieces itself, so
moving an output (or adding one) is a change here alone.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .model import Section

BUILD_DIR = "_build"
FROZEN_DIR = "frozen"
PARSED_SECTIONS = "parsed-sections"
"""The folder of `_build` holding the section cache (`source/section_cache.py`)."""
SPLIT_NOTEBOOKS = "split-notebooks"
"""The folder of `_build` holding the split notebooks kept by section key
(`notebooks/split_store.py`)."""


@dataclass(frozen=True)
class Layout:
    root: Path
    """The book's folder (where config.ini is); outputs go to ``root/_build``."""
    executes: bool = True
    """False for a book that is not executed (d2lbook's ``eval_notebook = False``): what
    readers get is made from the split notebooks (`shown_notebook`)."""

    @property
    def build(self) -> Path:
        return self.root / BUILD_DIR

    @property
    def outputs(self) -> tuple[Path, ...]:
        """The folders builds write into: never read as sources, as d2lbook never reads
        its build folder."""
        return self.build, self.frozen_store

    @property
    def lock(self) -> Path:
        """Held for the whole of a command that writes into ``_build``."""
        return self.build / ".lock"

    # -- per-framework notebooks, one per section ------------------------------
    @property
    def split(self) -> Path:
        """The split, not yet executed, notebooks: one folder per tab."""
        return self.build / "notebooks"

    def notebooks(self, tab: str) -> Path:
        return self.split / tab

    def notebook(self, tab: str, section: Section) -> Path:
        return self.notebooks(tab) / _notebook_name(section)

    @property
    def eval(self) -> Path:
        """Executed notebooks (one folder per tab) and the execution report."""
        return self.build / "eval"

    def executed_notebooks(self, tab: str) -> Path:
        return self.eval / tab

    def executed(self, tab: str, section: Section) -> Path:
        return self.executed_notebooks(tab) / _notebook_name(section)

    def shown_notebooks(self, tab: str) -> Path:
        """The notebooks the site, the PDF and the launch notebooks are made from: the
        executed ones, or the split ones for a book that is not executed."""
        return self.executed_notebooks(tab) if self.executes else self.notebooks(tab)

    def shown_notebook(self, tab: str, section: Section) -> Path:
        return self.shown_notebooks(tab) / _notebook_name(section)

    def cache_records(self, tab: str) -> Path:
        return self.cache / tab

    def cache_record(self, tab: str, section: Section) -> Path:
        """A notebook's execution record: its cache key and outputs by cell id."""
        return self.cache_records(tab) / section.path.with_suffix(".json")

    @property
    def parsed(self) -> Path:
        """What reading the sources gave, kept by key for the next commands: each file's
        parsed section, each .bib file's entries (`features/bibliography.py`)."""
        return self.build / PARSED_SECTIONS

    def parsed_section(self, relative: Path) -> Path:
        """A source file's parsed Section and its own problems (`source/section_cache.py`);
        `relative` to the source folder."""
        return self.parsed / relative.with_suffix(".pickle")

    def kept_split(self, tab: str, section: Section) -> Path:
        """`section`'s split notebook for `tab`, kept under its key (`notebooks/split_store.py`)."""
        return self.build / SPLIT_NOTEBOOKS / tab / section.path.with_suffix(".pickle")

    def runtime_record(self, tab: str) -> Path:
        """What the last probe of `tab`'s interpreter found."""
        return self.cache / f"runtime-{tab}.json"

    @property
    def jupyter(self) -> Path:
        """Jupyter's runtime files and IPython's profile for the build's kernels."""
        return self.build / "kernels"

    @property
    def jupyter_data(self) -> Path:
        """The build's Jupyter data folder: its kernel specs are under ``kernels/``."""
        return self.jupyter / "share" / "jupyter"

    @property
    def gpu_job_summary(self) -> Path:
        """What `build.py gather` writes by default: the GPU job's tasks, failures and
        reports in one Markdown file."""
        return self.build / "gpu-job" / "summary.md"

    # -- committed beside the sources ---------------------------------------------
    @property
    def frozen_store(self) -> Path:
        """Executed notebooks committed with the book (``frozen/<tab>/…``), reused by
        every build while their key matches."""
        return self.root / FROZEN_DIR

    def frozen(self, tab: str, section: Section) -> Path:
        return self.frozen_store / tab / _notebook_name(section)

    # -- what readers get -------------------------------------------------------
    @property
    def slides(self) -> Path:
        """The slide notebooks (RISE), one folder per tab: ``<tab>/<section>.ipynb``."""
        return self.build / "slides"

    def slide_notebook(self, tab: str, section: Section) -> Path:
        return self.slides / tab / _notebook_name(section)

    @property
    def decks(self) -> Path:
        """The HTML decks that `build.py slides` writes beside its notebooks, to be used
        without the site (the site has its own, under ``slides/``)."""
        return self.slides / "html"

    @property
    def launch(self) -> Path:
        """The tree of the published notebooks branch: ``<tab>/<section>.ipynb``."""
        return self.build / "launch"

    def launch_notebook(self, tab: str, section: Section) -> Path:
        return self.launch / published_path(tab, section)

    @property
    def executed_record(self) -> Path:
        """What each executed notebook written without a kernel was made from."""
        return self.cache / "executed.json"

    @property
    def launch_record(self) -> Path:
        """What each launch notebook was made from (kept out of the published tree)."""
        return self.cache / "launch.json"

    def site(self, tabs: tuple[str, ...], book_tabs: tuple[str, ...]) -> Path:
        """``_build/html`` for every tab of the book, ``_build/html-<tabs>`` for a subset."""
        if tuple(tabs) == tuple(book_tabs):
            return self.build / "html"
        return self.build / ("html-" + "-".join(tabs))

    @property
    def pdfs(self) -> Path:
        return self.build / "pdf"

    def pdf(self, name: str, tab: str) -> Path:
        """One framework's book as a PDF: ``_build/pdf/<name>-<tab>.pdf``."""
        return self.pdfs / f"{name}-{tab}.pdf"

    def print_folder(self, tab: str) -> Path:
        """The print layout a PDF is printed from: its HTML documents and their images."""
        return self.build / "print" / tab

    @property
    def math_font(self) -> Path:
        """The site's math font cut to its pages' math, kept between builds (its stamp
        beside it, ``.json``)."""
        return self.cache / "math-font.woff2"

    @property
    def cache(self) -> Path:
        """What a command keeps for the next ones: execution records, runtimes,
        highlighted code, the math font, the print layout's pages."""
        return self.build / "cache"

    @property
    def highlighted(self) -> Path:
        """Code blocks highlighted by Pygments, kept between builds (output/highlighting.py)."""
        return self.cache / "highlighted"

    def print_bodies(self, tab: str) -> Path:
        """The pages of the last print layout of `tab`, each with its key."""
        return self.cache / f"print-{tab}.json"

    def print_parts(self, tab: str) -> Path:
        """The prints of the print layout's documents, by the hash of what each is made of."""
        return self.cache / f"pdf-{tab}-parts"

    def print_record(self, tab: str) -> Path:
        """What the last PDF of `tab` was printed from, and what it holds."""
        return self.cache / f"pdf-{tab}.json"

    def shown(self, path: Path) -> str:
        """`path` as messages show it: relative to the book's folder."""
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return str(path)


def _notebook_name(section: Section) -> Path:
    return section.path.with_suffix(".ipynb")


def published_path(tab: str, section: Section) -> str:
    """Path of a launch notebook inside the published notebooks branch."""
    return f"{tab}/{_notebook_name(section).as_posix()}"


def published_pdf(pdf: Path) -> str:
    """Path of a PDF inside the HTML site, which offers it for download."""
    return f"pdf/{pdf.name}"
