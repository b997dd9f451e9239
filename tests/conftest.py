"""Shared helpers and fixtures: small books written on the fly in a temporary folder, one
built copy of this repository per session, the browser.

The suite has layers (markers registered in pytest.ini): `kernels`, `browser`, `network`.
`python3 build.py test --fast` runs what is in none of them. A test module marks its own
tests (`pytestmark`, decorators); a test that uses a fixture of LAYERS_OF_FIXTURES below,
directly or through another fixture, is marked by that fixture's layer here.
"""
from __future__ import annotations

import ast
import compileall
import contextlib
import functools
import gc
import http.server
import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from tabbook.bootstrap.environments import CHROMIUM, CHROMIUM_ARGS, ensure_env, ensure_test_tools
from tabbook.source.check import check_book
from tabbook.core.config import load_config
from tabbook.core.layout import PARSED_SECTIONS, SPLIT_NOTEBOOKS
from tabbook.core.model import Cell, CellKind
from tabbook.source.parse import parse_book

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
# A real book built by its authors with d2lbook (read-only: copy it before building it).
CORPUS = SHARED / "corpus" / "d2l-zh"
# The d2lbook original of the GPU section.
SEED = SHARED / "seeds" / "003_1ebbe50d8f209f39.txt"
# What a copy of the repository needs to build the book.
PARTS = ["build.py", "config.ini", "pyproject.toml", "tabbook", "chapters", "img", "d2l",
         "frozen", "requirements"]


def shared_path(path: Path) -> Path:
    """`path`, a file or folder of ../shared (SHARED: the d2lbook corpus, the seeds). Where
    ../shared is not beside the repository the test is skipped; in CI (`CI` set), which has
    it, that is a failure."""
    if not path.exists():
        reason = f"{path} is absent: this test needs ../shared beside the repository"
        if os.environ.get("CI"):
            pytest.fail(f"{reason} (CI has it: fetch it beside the clone)")
        pytest.skip(reason)
    return path


def requirements(name: str) -> list[str]:
    """The pinned requirements of requirements/<name>.txt, e.g. ``torch==2.13.0``."""
    path = REPO / "requirements" / f"{name}.txt"
    return [line.strip() for line in path.read_text().split("\n")
            if line.strip() and not line.startswith("#")]


def pinned_version(name: str, package: str) -> str:
    """The version requirements/<name>.txt pins `package` to."""
    return next(r.split("==")[1] for r in requirements(name) if r.split("==")[0] == package)


def repository_cells(kind: CellKind) -> list[tuple[str, Cell]]:
    """(source path, cell) for every cell of `kind` in this repository's book, in book order."""
    book, problems = parse_book(load_config(REPO))
    assert not problems, problems
    return [(section.display_path, cell) for section in book.pages() for cell in section.cells
            if cell.kind is kind]


def copy_repository(target: Path, executed: bool = False) -> Path:
    """Copy the parts of this repository the build needs into `target`.

    This repository's parsed sections and split notebooks come too, when there are
    some: entries keyed by everything they are made from (the file's bytes, the config
    values read, the build system's code), so an unchanged source is not parsed again —
    as in a user's second command — and one a test edits, or a build system it changes,
    is. With `executed`, the executed notebooks and the execution cache come as well: a
    notebook whose cache key is unchanged is not run again (the key covers code, d2l and
    packages, so a stale result cannot be reused).
    """
    target.mkdir(parents=True, exist_ok=True)
    for part in (PARSED_SECTIONS, SPLIT_NOTEBOOKS, *(("eval", "cache") if executed else ())):
        if (REPO / "_build" / part).is_dir():
            shutil.copytree(REPO / "_build" / part, target / "_build" / part)
    for part in PARTS:
        source = REPO / part
        if part == "tabbook":
            copy_build_system(target)
        elif source.is_dir():
            shutil.copytree(source, target / part, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(source, target / part)
    return target


@functools.cache
def _compiled_build_system() -> None:
    """Byte-compile this repository's `tabbook` once per test process (compileall skips
    what is current). A shell with PYTHONDONTWRITEBYTECODE=1 compiles the whole package at
    every `build.py` otherwise: ~0.15 s each, for hundreds of runs. Only a saving: what
    cannot be written (a read-only checkout) is compiled by each run, and a source that
    does not compile fails the tests that import it."""
    compileall.compile_dir(REPO / "tabbook", quiet=2)


def copy_build_system(target: Path) -> None:
    """Copy `tabbook` into `target`, compiled: the copies keep the sources' times, so
    Python takes their byte code as current (and compiles a source a test edits again)."""
    _compiled_build_system()
    shutil.copytree(REPO / "tabbook", target / "tabbook")


@pytest.fixture
def repo_copy(tmp_path) -> Path:
    """A copy of this repository's sources (nothing built, parse caches aside)."""
    return copy_repository(tmp_path)


def build_folder(root: Path) -> dict[str, tuple[int, int]]:
    """The files of `root`'s _build, each with its size and time, the parse cache aside:
    equal before and after a command that builds nothing (a copy of this repository starts
    with the parse caches, and a command run in a built book refreshes the parse cache)."""
    return {path.relative_to(root).as_posix(): (path.stat().st_size, path.stat().st_mtime_ns)
            for path in (root / "_build").rglob("*")
            if PARSED_SECTIONS not in path.relative_to(root).parts}


def build(root: Path, *args: str) -> subprocess.CompletedProcess:
    """`build.py *args` run in `root` as a user runs it (with the tools' interpreter)."""
    env = dict(os.environ, TABBOOK_USE_CURRENT_PYTHON="1")
    return subprocess.run([sys.executable, str(root / "build.py"), *args], cwd=root, env=env,
                          capture_output=True, text=True, timeout=1800)


def with_build_system(root: Path) -> Path:
    """Put this repository's build system beside a book in `root`, with a one-line
    d2l stub per framework (a book that saves nothing in d2l)."""
    shutil.copy(REPO / "build.py", root)
    copy_build_system(root)
    (root / "d2l").mkdir()
    for name in ("torch", "mxnet", "tensorflow"):
        (root / "d2l" / f"{name}.py").write_text(f"# {name} library\n")
    return root


CONFIG = """\
[project]
name = test-book
title = Un livre de test
release = 1.0.0
lang = fr

[build]
tabs = pytorch, mxnet, tensorflow
source_dir = chapters
warning_is_error = True

[library]
version_file = d2l/__init__.py

[library-pytorch]
lib_file = d2l/torch.py

[library-mxnet]
lib_file = d2l/mxnet.py

[library-tensorflow]
lib_file = d2l/tensorflow.py

[launch]
github_repo = owner/book
"""

INDEX = """\
# Livre

```toc
:numbered:
chap/index
```
"""

CHAPTER = """\
# Chapitre

```toc
sec
```
"""

DECLARE = """\
```{.python .input}
%load_ext d2lbook.tab
tab.interact_select(['pytorch', 'mxnet', 'tensorflow'])
```
"""


def write_book(root: Path, files: dict[str, str | bytes], config: str = CONFIG) -> Path:
    """Write a book: config.ini, chapters/index.md, chapters/chap/index.md, plus `files`.

    Paths in `files` are relative to chapters/.
    """
    contents: dict[str, str | bytes] = {"index.md": INDEX, "chap/index.md": CHAPTER}
    contents.update(files)
    (root / "config.ini").write_text(config, encoding="utf-8")
    for name, content in contents.items():
        path = root / "chapters" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def write_executed(root: Path, notebook_for, warnings: bool = False) -> tuple:
    """Parse the book in `root` and write `notebook_for(section, tab)` as every section's
    executed notebook, as eval would; (config, book, layout), for the stages that read them.
    The book has no problem, or, with `warnings`, warnings only."""
    import nbformat
    from tabbook.core.layout import Layout

    config = load_config(root)
    book, problems = parse_book(config)
    assert not [p for p in problems if not (warnings and p.warning)], problems
    layout = Layout(root)
    for section in book.pages():
        for tab in section.tabs:
            path = layout.executed(tab, section)
            path.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(notebook_for(section, tab), path)
    return config, book, layout


def md(*parts: str) -> str:
    """Join dedented Markdown parts with blank lines between them."""
    return "\n".join(textwrap.dedent(part).strip("\n") + "\n" for part in parts)


TWO_TABS = (CONFIG.replace("tabs = pytorch, mxnet, tensorflow", "tabs = pytorch, mxnet")
            .replace("[library-tensorflow]\nlib_file = d2l/tensorflow.py\n", ""))
"""The config of a PyTorch and MXNet book (two kernels: what a tab's test needs, at half
the cost of three)."""


def two_tab_book(root: Path, sections: dict[str, str], pythons: dict[str, Path]):
    """A PyTorch and MXNet book of `sections` in `root`, built (HTML, launch notebooks) and
    printed (both PDFs): returns `run(*args, root=root)`, which runs build.py in it, or in
    a copy of it (`run.copy(folder)` makes one), with the tests' interpreters."""
    root = with_build_system(root)
    (root / "d2l" / "tensorflow.py").unlink()
    (root / "d2l" / "__init__.py").write_text('__version__ = "1.0.0"\n')
    write_book(root, {"chap/index.md": "# Chapitre\n\n```toc\nsec\nother\n```\n", **sections},
               TWO_TABS)
    options = [f"--python={tab}={pythons[tab]}" for tab in ("pytorch", "mxnet")]

    def run(*args: str, root: Path = root):
        return build(root, *args, *options)
    run.root = root
    run.copy = lambda folder: shutil.copytree(root, folder / "book", symlinks=True)
    for command in (("html",), ("pdf",)):
        result = run(*command)
        assert result.returncode == 0, result.stdout + result.stderr
    return run


def eval_summary(result) -> str:
    """The last line of the eval step in a build's output ("eval: N ran, ...")."""
    return next(l for l in result.stdout.splitlines() if l.startswith("eval: ") and " ran," in l)


def ran(result) -> int:
    """How many notebooks the eval step of a build's output ran."""
    return int(eval_summary(result).split()[1])


def reevaluated(result) -> int:
    """How many notebooks the eval step of a build's output re-evaluated on recorded values."""
    found = re.search(r"(\d+) re-evaluated,", eval_summary(result))
    return int(found.group(1)) if found else 0


def problems_of(root: Path) -> list[str]:
    config = load_config(root)
    book, problems = parse_book(config)
    return [str(p) for p in sorted(set(problems) | set(check_book(book, config)))]


LINEAR_GROWTH = 4.0
"""The most `growth` may give for a linear cost: 1 in theory, more where the larger input
misses the processor's caches (a rehearsal measured 2.1); a quadratic cost gives 8."""


def growth(work: Callable[[Any], object], make: Callable[[int], Any], n: int) -> float:
    """How much longer `work` takes on `make(8 * n)` than on `make(n)` eight times over:
    about 1 for a cost linear in the input, 8 for a quadratic one. The time is the thread's
    processor time (other processes' load aside), the best of three, the inputs made
    beforehand, the garbage collector paused: a ratio, not a duration, holds on a slow or
    busy machine."""
    def best(given, times: int) -> float:
        seconds = []
        for _ in range(3):
            started = time.thread_time()
            for _ in range(times):
                work(given)
            seconds.append(time.thread_time() - started)
        return min(seconds)

    small, large = make(n), make(8 * n)
    gc.collect()
    gc.disable()   # its pauses depend on what the whole session holds, not on `work`
    try:
        return best(large, 1) / best(small, 8)
    finally:
        gc.enable()


FRAMEWORK_TABS = ("pytorch", "mxnet", "tensorflow")


@pytest.fixture(scope="session")
def framework_pythons() -> dict[str, Path]:
    """Tab -> the interpreter of this checkout's environment for it, with its d2l (each
    created on first use, as the build does)."""
    return {tab: ensure_env(REPO, tab, with_d2l=True) for tab in FRAMEWORK_TABS}


@pytest.fixture(scope="session")
def built_repository(tmp_path_factory, framework_pythons) -> Path:
    """A copy of this repository with its full site and a PyTorch-only site built, once per
    test session (its executed notebooks come from this checkout's _build, so only what
    changed since runs). Tests read it; `built_copy` gives one to change."""
    root = copy_repository(tmp_path_factory.mktemp("book"), executed=True)
    pythons = [arg for tab, python in framework_pythons.items()
               for arg in ("--python", f"{tab}={python}")]
    for extra in ([], ["--tab", "pytorch", "--out", str(root / "public")]):
        result = build(root, "html", *extra, *pythons)
        assert result.returncode == 0, result.stdout + result.stderr
    return root


@pytest.fixture(scope="session")
def built_copy(built_repository, tmp_path_factory):
    """Makes a copy of `built_repository` of one's own, for the tests that edit it or build
    more in it: its executed notebooks, caches and sites come too, so nothing runs again."""
    def make() -> Path:
        return shutil.copytree(built_repository, tmp_path_factory.mktemp("built") / "book",
                               symlinks=True)
    return make


def site_pages(site: Path) -> list[str]:
    """The HTML pages of a built site (Pagefind's own files left out), relative to it."""
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html")
                  if not p.relative_to(site).as_posix().startswith("pagefind/"))


def code_blocks(page: str) -> list[str]:
    """The text of every code block of a built page (`<pre class="code …">`), as readers
    copy it."""
    parser = _CodeBlocks()
    parser.feed(page)
    return parser.blocks


class _CodeBlocks(HTMLParser):
    def __init__(self):
        super().__init__()
        self.blocks: list[str] = []
        self._depth = 0

    def handle_starttag(self, tag, attrs):
        if tag == "pre" and "code" in (dict(attrs).get("class") or "").split():
            self.blocks.append("")
            self._depth = 1
        elif tag == "pre" and self._depth:
            self._depth += 1

    def handle_endtag(self, tag):
        if tag == "pre" and self._depth:
            self._depth -= 1

    def handle_data(self, data):
        if self._depth:
            self.blocks[-1] += data


# -- the browser -------------------------------------------------------------------
class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@contextlib.contextmanager
def served(folder: Path):
    """`folder` served on 127.0.0.1 (search needs a server, not file://): its address."""
    handler = functools.partial(QuietHandler, directory=str(folder))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()


@pytest.fixture(scope="module")
def chromium():
    """Debian's Chromium, driven by Playwright: one browser per module, closed at its end,
    because the PDF stage starts Playwright's synchronous API itself and two cannot run
    in one thread."""
    from playwright.sync_api import sync_playwright

    ensure_test_tools()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM),
                                             args=list(CHROMIUM_ARGS))
        yield browser
        browser.close()


class Visitor:
    """A browser page that records console errors and refuses non-local requests."""

    def __init__(self, browser, **options):
        self.context = browser.new_context(**options)
        self.errors: list[str] = []
        self.outside: list[str] = []
        self.context.route("**/*", self._route)
        self.page = self.context.new_page()
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("response", lambda r: r.status >= 400 and self.errors.append(
            f"HTTP {r.status} {r.url}"))

    def _route(self, route):
        url = route.request.url
        if url.startswith(("http://127.0.0.1:", "file://", "data:", "blob:")):
            route.continue_()
        else:
            self.outside.append(url)
            route.abort()

    def visible_panels(self) -> list[str]:
        return self.page.eval_on_selector_all(
            ".tab-panel", "els => els.filter(e => e.offsetParent !== null)"
                          ".map(e => e.dataset.tab)")

    def close(self):
        self.context.close()


@pytest.fixture
def visitor(chromium):
    """Makes Visitors (`visitor(viewport=...)`), closed after the test."""
    visitors = []

    def make(**options) -> Visitor:
        visitors.append(Visitor(chromium, **options))
        return visitors[-1]
    yield make
    for made in visitors:
        made.close()


# -- layers --------------------------------------------------------------------------
LAYERS_OF_FIXTURES = {"framework_pythons": "kernels", "chromium": "browser"}
"""A test that uses one of these fixtures, even through another, is in that layer."""


def pytest_configure(config: pytest.Config) -> None:
    # A harness started in a shell's background ignores SIGINT, and every process it starts
    # inherits that: the builds the tests stop with Ctrl-C would run on. A handler of our
    # own is reset to the default in each child, as from a terminal.
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        for fixture, layer in LAYERS_OF_FIXTURES.items():
            if fixture in getattr(item, "fixturenames", ()):
                item.add_marker(layer)


@pytest.fixture
def book(tmp_path):
    """Write a book with one section `chap/sec.md` whose text is given."""
    def make(section: str, extra: dict[str, str | bytes] | None = None, config: str = CONFIG):
        return write_book(tmp_path, {"chap/sec.md": section, **(extra or {})}, config)
    return make


def _without_docstrings(node: ast.AST) -> ast.AST:
    for inner in ast.walk(node):
        if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and \
                inner.body and isinstance(inner.body[0], ast.Expr) and \
                isinstance(inner.body[0].value, ast.Constant) and \
                isinstance(inner.body[0].value.value, str):
            inner.body = inner.body[1:] or [ast.Pass()]
    return node


def library_definitions(text: str) -> dict[str, str]:
    """Name -> syntax tree dump, docstrings aside, of each top-level function, class and
    assignment of a library file (the last one of a name wins, as when the module runs)."""
    found = {}
    for node in ast.parse(text).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            name = node.name
        elif isinstance(node, ast.Assign):
            name = " = ".join(ast.unparse(target) for target in node.targets)
        else:
            continue
        found[name] = ast.dump(_without_docstrings(node))
    return found


def raising_on_call(number: int, error: BaseException, function):
    """`function`, except that its call `number` (counted from 0) raises `error`: a stage
    stopped half-way (Ctrl-C, a full disk) at a known point."""
    calls = iter(range(number + 1))

    def stand_in(*args, **kwargs):
        if next(calls, None) == number:
            raise error
        return function(*args, **kwargs)
    return stand_in
