"""The command line behind build.py: a pipeline of stages over one book.

Each command parses its options, checks the book, selects tabs and sections,
then holds the build lock while its steps run in order (notebooks, eval,
launch, HTML, PDF), stopping at the first that fails. A step runs a stage on the
book, the config and the output layout, and hands what the stage returns to
the console, which alone prints.
"""
from __future__ import annotations

import argparse
import contextlib
import fcntl
import fnmatch
import functools
import subprocess
import sys
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..bootstrap.errors import BookError
from ..source.check import check_book
from ..core.config import CONFIG_FILE, Config, ConfigError, load_config
from .console import Console
from ..bootstrap.environments import TOOL_ROOT, ensure_chromium, ensure_test_tools
from ..execution.execute import Execution, Executor, Task, read_executed
from ..execution.frozen import FrozenError, freeze, recorded_seconds, use_frozen
from ..execution.kernels import (Gpu, Runtime, RuntimeSetupError, default_jobs, detect_gpus,
                      framework_gpus, prepare_runtime, python_of)
from ..output.launch import OutError, copy_tree, write_launch_notebooks
from ..core.layout import Layout
from ..notebooks.library import stale_libraries, write_libraries
from ..core.model import Book, Section, SourceError
from ..source.numbering import Numbers, number_book
from ..source.parse import parse_book
from ..output.pdf import PdfError, write_pdfs
from ..output.render import RenderError, render_site
from ..execution.report import FrameworkInfo, Report, build_report, write_report
from ..output.serve import Rebuilt, ServeError, serve
from ..execution.shard import Shard, parse_shard, shard_items
from ..notebooks.split import split_section, write_notebooks


class UsageError(BookError):
    """A bad option value (unknown tab, --only matching nothing, no GPU for --require-gpu)."""


INTERRUPTED = 130
"""The status of a command stopped by Ctrl-C while its kernels ran."""


# -- options -------------------------------------------------------------------------

def _add_selection(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tab", action="append", metavar="T",
                        help="build this framework only (repeatable; default: all book tabs)")
    parser.add_argument("--only", action="append", metavar="GLOB",
                        help="build the sections matching GLOB only, e.g. 'chapter_gpu/*' "
                             "(repeatable)")
    parser.add_argument("--gpu-only", action="store_true",
                        help="build only the sections that declare #gpus(N) (the GPU job)")


def _add_kernels(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-j", "--jobs", type=int, metavar="N",
                        help="kernels at once (default: [execute] jobs, else from the machine)")
    parser.add_argument("--python", action="append", metavar="TAB=PATH",
                        help="run TAB with this interpreter instead of .envs/TAB (repeatable)")


def _add_execution(parser: argparse.ArgumentParser) -> None:
    _add_kernels(parser)
    parser.add_argument("--force", action="store_true", help="ignore the execution cache")
    parser.add_argument("--require-gpu", action="store_true",
                        help="fail unless every selected section that declares #gpus(N) "
                             "really computed on a GPU (the GPU job)")
    parser.add_argument("--freeze", action="store_true",
                        help="write the executed notebooks into frozen/ (committed), which "
                             "every build then uses instead of executing while their code, "
                             "d2l and framework are unchanged (the GPU job)")


SITE_TABS = "frameworks of the site (repeatable; default: all book tabs)"


def _add_tabs(parser: argparse.ArgumentParser, help: str) -> None:
    """--tab for the commands that always build every section (html, serve, pdf)."""
    parser.add_argument("--tab", action="append", metavar="T", help=help)


def _add_out(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument("--out", type=Path, metavar="DIR",
                        help=f"also copy {what} into DIR, replacing it (for publishing)")


def _add_book(parser: argparse.ArgumentParser, default=None) -> None:
    """-C and --strict, accepted before and after the command."""
    parser.add_argument("-C", dest="directory", type=Path, metavar="DIR", default=default,
                        help="build the d2lbook book in DIR, with DIR's own config.ini "
                             "(outputs in DIR/_build)")
    parser.add_argument("--strict", action="store_true", default=default,
                        help="make warnings (what d2lbook tolerates) errors; always on for a "
                             "book whose config.ini sets [build] warning_is_error = True")


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="build.py", description="Build the book. With no command: everything.")
    _add_book(parser)
    _add_selection(parser)
    _add_execution(parser)
    parser.set_defaults(func=building(check_libraries, run_notebooks, run_eval, run_launch,
                                      run_html))
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    # A subcommand's own -C/--strict must not reset the values given before it.
    check = commands.add_parser("check", help="lint the sources, build nothing")
    check.set_defaults(func=command_check)
    lib = commands.add_parser("lib", help="regenerate d2l/*.py from the #@save code")
    lib.add_argument("--check", action="store_true",
                     help="change nothing; fail if the committed files are out of date")
    lib.set_defaults(func=command_lib)
    notebooks = commands.add_parser(
        "notebooks", help="split the sources into per-framework notebooks")
    _add_selection(notebooks)
    notebooks.set_defaults(func=building(run_notebooks))
    evaluate = commands.add_parser("eval", help="execute the notebooks (cached)")
    _add_selection(evaluate)
    _add_execution(evaluate)
    evaluate.add_argument("--shard", type=parse_shard, metavar="K/N",
                          help="execute only the K-th of N parts of the selected notebooks, "
                               "balanced by the durations frozen/ recorded (a CI matrix)")
    evaluate.set_defaults(func=building(run_eval))
    launch = commands.add_parser(
        "launch", help="Colab/Kaggle notebooks from the executed ones (runs eval first)")
    _add_selection(launch)
    _add_execution(launch)
    _add_out(launch, "the launch notebooks (the tree of the published notebooks branch)")
    launch.set_defaults(func=building(run_eval, run_launch))
    html = commands.add_parser(
        "html", help="render the HTML book (runs eval and launch first); with one --tab, "
                     "a single-framework site in _build/html-<tab>")
    _add_tabs(html, SITE_TABS)
    _add_execution(html)
    _add_out(html, "the site")
    # The site always holds every page: links must resolve.
    html.set_defaults(func=building(*SITE_STEPS), only=None, gpu_only=False)
    serve = commands.add_parser(
        "serve", help="serve the HTML book on 127.0.0.1, rebuild it when the sources change "
                      "and reload the open page (Ctrl-C stops)")
    serve.add_argument("--port", type=int, default=8000,
                       help="port on 127.0.0.1 (default: 8000; 0: any free port)")
    _add_tabs(serve, SITE_TABS)
    _add_kernels(serve)
    serve.set_defaults(func=command_serve, only=None, gpu_only=False, force=False,
                       require_gpu=False, freeze=False)
    pdf = commands.add_parser(
        "pdf", help="print each framework's book as a PDF, _build/pdf/<name>-<tab>.pdf "
                    "(runs eval first)")
    _add_tabs(pdf, "this framework's PDF only (repeatable; default: every book tab)")
    _add_execution(pdf)
    # A PDF always holds the whole book: its contents and references must resolve.
    pdf.set_defaults(func=building(run_eval, run_pdf), only=None, gpu_only=False)
    for command in (check, lib, notebooks, evaluate, launch, html, serve, pdf):
        _add_book(command, default=argparse.SUPPRESS)
    test = commands.add_parser("test", help="run the test suite (extra arguments go to pytest; "
                                            "--fast: only the tests that need no kernel, "
                                            "browser or network)")
    test.add_argument("pytest_args", nargs=argparse.REMAINDER)
    test.set_defaults(func=command_test)
    return parser


def parse_command_line(argv: list[str]) -> argparse.Namespace:
    """The options of `argv`; after a leading `test`, every argument is pytest's."""
    if argv[:1] == ["test"]:
        # Options included (`test -k spelling`): pytest's, not ours.
        args = make_parser().parse_args(argv[:1])
        args.pytest_args = argv[1:]
        return args
    return make_parser().parse_args(argv)


# -- selection -----------------------------------------------------------------------

@dataclass(frozen=True)
class Selection:
    """The tabs and sections a command builds."""
    tabs: tuple[str, ...]
    sections: list[Section]
    partial: bool
    """Some sections only (--only, --gpu-only): the others' outputs stay as they are."""

    def pairs(self) -> list[tuple[Section, str]]:
        """The (section, tab) pairs that have a notebook, in book order."""
        return [(section, tab) for section in self.sections for tab in self.tabs
                if tab in section.tabs]


def selected_tabs(config: Config, requested: list[str] | None) -> tuple[str, ...]:
    if not requested:
        return config.build.tabs
    unknown = [t for t in requested if t not in config.build.tabs]
    if unknown:
        raise UsageError(f"--tab {unknown[0]}: not a tab of this book "
                         f"(config.ini [build] tabs: {', '.join(config.build.tabs)})")
    return tuple(dict.fromkeys(requested))


def selected_sections(book: Book, patterns: list[str] | None,
                      gpu_only: bool = False) -> list[Section]:
    pages = book.pages()
    if gpu_only:
        pages = [s for s in pages if s.gpus]
        if not pages:
            raise UsageError("--gpu-only: no section declares #gpus(N)")
    if not patterns:
        return pages
    chosen = {id(s) for pattern in patterns for s in _matching(pages, pattern, gpu_only)}
    return [s for s in pages if id(s) in chosen]   # book order


def _matching(pages: list[Section], pattern: str, gpu_only: bool) -> list[Section]:
    matches = [s for s in pages if any(fnmatch.fnmatch(name, pattern) for name in
                                       (s.name, s.path.as_posix(), s.display_path))]
    if not matches:
        raise UsageError(f"--only {pattern}: matches no section"
                         f"{' declaring #gpus(N)' if gpu_only else ''} "
                         "(patterns match e.g. 'chapter_gpu/use-gpu' or 'chapter_gpu/*')")
    return matches


def select(book: Book, config: Config, args: argparse.Namespace) -> Selection:
    return Selection(selected_tabs(config, args.tab),
                     selected_sections(book, args.only, args.gpu_only),
                     partial=bool(args.only or args.gpu_only))


@dataclass(frozen=True)
class EvalOptions:
    jobs: int
    force: bool
    pythons: dict[str, Path]
    """The interpreters given with --python, by tab."""
    require_gpu: bool
    freeze: bool = False
    shard: Shard | None = None


def eval_options(config: Config, args: argparse.Namespace) -> EvalOptions:
    pythons = dict(python_of(value) for value in args.python or [])
    selected_tabs(config, list(pythons))   # each one a tab of this book
    return EvalOptions(args.jobs or default_jobs(config.execute.jobs), args.force, pythons,
                       args.require_gpu, args.freeze, getattr(args, "shard", None))


# -- commands ------------------------------------------------------------------------

def main(argv: list[str], root: Path) -> int:
    args = parse_command_line(argv)
    console = Console()
    return reporting(lambda: args.func(args, book_folder(args, root), console), console)


def reporting(command: Callable[[], int], console: Console) -> int:
    """Run `command`; a user error it raises is printed, and its status is 1. Any other
    exception is a bug of the build: its traceback is shown, and the status is 2."""
    try:
        return command()
    except SourceError as err:
        console.problems(err.problems)
        return 1
    except BookError as err:
        console.error(err)
        return 1
    except KeyboardInterrupt:
        console.cancelled()
        return INTERRUPTED
    except Exception:
        console.bug(traceback.format_exc())
        return 2


def book_folder(args: argparse.Namespace, root: Path) -> Path:
    """The folder of the book to build: `root`, or the one of -C."""
    if args.directory is None:
        return root
    folder = args.directory.resolve()
    if not folder.is_dir():
        raise UsageError(f"-C {args.directory}: no such folder")
    return folder


def command_test(args: argparse.Namespace, _book: Path, console: Console) -> int:
    """The build system's own test suite (whatever book -C names); with `--fast`, only
    the tests that need no framework kernel, browser or network."""
    ensure_test_tools()
    root = TOOL_ROOT
    pytest_args = [arg for arg in args.pytest_args if arg != "--fast"]
    # --fast: the tests in none of the slow layers that pytest.ini declares.
    layers = ["-m", "not kernels and not browser and not network"] \
        if "--fast" in args.pytest_args else []
    # The whole suite unless some tests are named (`test tests/test_report.py`).
    named = any(not arg.startswith("-") and (root / arg.split("::")[0]).exists()
                for arg in pytest_args)
    return subprocess.call([sys.executable, "-m", "pytest",
                            *([] if named else [str(root / "tests")]), *layers, *pytest_args],
                           cwd=root)


def load_checked_book(root: Path, strict: bool, console: Console) -> tuple[Config, Book] | None:
    """Parse and check the whole book; print the problems and return None if any stops
    the build (an error, or a warning when strict)."""
    config = load_config(root)
    strict = strict or config.build.strict
    book, problems = parse_book(config)
    problems = sorted(set(problems) | set(check_book(book, config)))
    console.problems(problems, strict)
    if any(strict or not p.warning for p in problems):
        return None
    return config, book


def command_check(args: argparse.Namespace, root: Path, console: Console) -> int:
    started = time.monotonic()
    loaded = load_checked_book(root, args.strict, console)
    if loaded is None:
        return 1
    console.checked(len(loaded[1].pages()), time.monotonic() - started)
    return 0


def command_lib(args: argparse.Namespace, root: Path, console: Console) -> int:
    loaded = load_checked_book(root, args.strict, console)
    if loaded is None:
        return 1
    config, book = loaded
    if args.check:
        return _libraries_status(book, config, console)
    console.libraries_written(write_libraries(book, config), root)
    return 0


def _libraries_status(book: Book, config: Config, console: Console) -> int:
    stale = stale_libraries(book, config)
    console.stale_libraries(stale)
    return 1 if stale else 0


@dataclass
class Build:
    """What the steps of a command share: the book, its config, the output layout, the
    selection and options, the console."""
    book: Book
    config: Config
    layout: Layout
    selection: Selection
    options: EvalOptions
    console: Console
    out: Path | None = None
    """--out: where to copy the launch notebooks or the site."""

    @functools.cached_property
    def numbers(self) -> Numbers:
        """The book's numbers, computed once for the launch and HTML steps."""
        return number_book(self.book)


Step = Callable[[Build], int]


def building(*steps: Step) -> Callable[[argparse.Namespace, Path, Console], int]:
    """The command that checks the book, then runs `steps` under the build lock."""
    def command(args: argparse.Namespace, root: Path, console: Console) -> int:
        loaded = load_checked_book(root, args.strict, console)
        if loaded is None:
            return 1
        config, book = loaded
        # Bad option values stop here, before the lock creates _build/.
        build = Build(book, config, Layout(root), select(book, config, args),
                      eval_options(config, args), console, getattr(args, "out", None))
        with build_lock(build.layout, console):   # once for the whole command
            for step in steps:
                status = step(build)
                if status:
                    return status
        return 0
    return command


def command_serve(args: argparse.Namespace, root: Path, console: Console) -> int:
    """Serve the site; rebuild it (under the build lock) whenever a watched file changes.
    Ctrl-C is its normal end: status 0."""
    config = load_config(root)
    layout = Layout(root)
    eval_options(config, args)   # bad --python values stop here, not at every rebuild
    watched = [config.root / CONFIG_FILE, config.source_root, layout.root / "img",
               *{(layout.root / f).parent for f in config.library.lib_files.values()}]
    watched = [p for p in dict.fromkeys(watched)
               if p.exists() and not any(p != q and p.is_relative_to(q) for q in watched)]

    def rebuild(changed: list[Path]) -> Rebuilt:
        started = time.monotonic()
        # The first build shows its progress; then only problems are printed.
        shown = console.recording(progress=not changed)
        status = reporting(lambda: building(*SITE_STEPS)(args, root, shown), shown)
        if status == INTERRUPTED:   # Ctrl-C while kernels ran: they are stopped
            raise KeyboardInterrupt
        if status:
            return Rebuilt(None, tuple(shown.recorded or ["the build failed"]),
                           time.monotonic() - started)
        return Rebuilt(served_site(root, args.tab), (), time.monotonic() - started)

    try:
        serve(layout, args.port, served_site(root, args.tab), watched, rebuild, console)
    except KeyboardInterrupt:
        console.stopped()
    return 0


def served_site(root: Path, tabs: list[str] | None) -> Path:
    """The site folder `build.py html` makes for `tabs` (config.ini may have changed)."""
    config = load_config(root)
    return Layout(root).site(selected_tabs(config, tabs), config.build.tabs)


@contextlib.contextmanager
def build_lock(layout: Layout, console: Console):
    """One build at a time in a folder: a second one waits for the first."""
    layout.lock.parent.mkdir(parents=True, exist_ok=True)
    with open(layout.lock, "w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            console.waiting_for_lock()
            fcntl.flock(handle, fcntl.LOCK_EX)
        yield


# -- steps ---------------------------------------------------------------------------

def check_libraries(build: Build) -> int:
    return _libraries_status(build.book, build.config, build.console)


def run_notebooks(build: Build) -> int:
    started = time.monotonic()
    selection = build.selection
    result = write_notebooks(selection.sections, selection.tabs, build.layout,
                             build.console.notebook_progress(len(selection.sections)),
                             prune=not selection.partial)
    build.console.notebooks_written(result, build.layout.shown(build.layout.split),
                                    time.monotonic() - started)
    return 0


def run_eval(build: Build) -> int:
    """Execute the selected notebooks (the cached ones are not run), report, judge."""
    started = time.monotonic()
    console, options = build.console, build.options
    gpus = detect_gpus()
    console.devices(gpus)
    console.fewer_gpus(gpu_policy(build.selection.sections, gpus, options.require_gpu),
                       len(gpus))
    tasks = [Task(section, tab, split_section(section, tab))
             for section, tab in build.selection.pairs()]
    if options.shard:
        tasks = shard_tasks(build.layout, tasks, options.shard, console)
    runtimes = prepare_runtimes(build.layout, [t.tab for t in tasks], options.pythons)
    frameworks = framework_infos(runtimes, gpus)
    console.frameworks(frameworks)
    plan = plan_eval(build, tasks, runtimes, gpus, frameworks)
    console.eval_plan(len(tasks), plan.frozen + plan.executor.executions, len(plan.queue),
                      len(plan.skipped),
                      min(options.jobs, max(len(plan.queue), 1)))
    console.stale_frozen(tasks)
    try:
        executions = execute(plan)
    except KeyboardInterrupt:
        console.interrupted()
        return INTERRUPTED
    report, markdown = write_eval_report(build.layout, executions, gpus, frameworks,
                                         options.require_gpu)
    if options.freeze:
        # The GPU job freezes no section that may not have computed on a GPU.
        doubtful = {(row.section, row.framework) for row in report.doubtful}
        kept = [e for e in executions if not (
            options.require_gpu and (e.task.section.name, e.task.tab) in doubtful)]
        console.frozen(freeze(build.layout, kept), build.layout)
    console.evaluated(executions, build.selection.tabs, report, options.require_gpu,
                      build.layout.shown(markdown), time.monotonic() - started)
    return 1 if report.failed or (options.require_gpu and report.doubtful) else 0


def shard_tasks(layout: Layout, tasks: list[Task], shard: Shard, console: Console) -> list[Task]:
    """The tasks of `shard`, cut by the durations the frozen store recorded."""
    chosen, loads = shard_items(
        tasks, shard, functools.partial(recorded_seconds, layout),
        lambda task: sum(c.cell_type == "code" for c in task.notebook.cells))
    console.shard(shard, len(chosen), len(tasks), loads)
    return chosen


def gpu_policy(sections: list[Section], gpus: list[Gpu], require_gpu: bool) -> list[Section]:
    """With --require-gpu, the sections that declare more GPUs than there are (they get
    those there are); an error if there is none for sections that declare some."""
    if not require_gpu:
        return []
    needing = [s for s in sections if s.gpus]
    if needing and not gpus:
        raise UsageError("--require-gpu: no GPU is visible, but "
                         + ", ".join(f"{s.name} declares #gpus({s.gpus})" for s in needing)
                         + " — run on a machine whose GPUs nvidia-smi lists, or drop "
                           "--require-gpu")
    return [s for s in needing if s.gpus > len(gpus)]


def prepare_runtimes(layout: Layout, tabs: list[str],
                     pythons: dict[str, Path]) -> dict[str, Runtime]:
    """The interpreter and kernel of each of `tabs` (--python's, else the managed one)."""
    needed = list(dict.fromkeys(tabs))
    # Probing imports each framework (seconds each): do them side by side.
    with ThreadPoolExecutor(max(len(needed), 1)) as pool:
        return dict(zip(needed, pool.map(
            lambda tab: prepare_runtime(layout, tab, pythons.get(tab)), needed)))


def framework_infos(runtimes: dict[str, Runtime], gpus: list[Gpu]) -> dict[str, FrameworkInfo]:
    """Each framework's version, and, on a GPU machine, how many GPUs its build sees."""
    infos = {tab: FrameworkInfo(r.framework_version, r.python_version)
             for tab, r in runtimes.items()}
    if gpus:
        with ThreadPoolExecutor(max(len(runtimes), 1)) as pool:
            counts = dict(zip(runtimes, pool.map(framework_gpus, runtimes.values())))
        for tab, (seen, problem) in counts.items():
            infos[tab].gpus_seen, infos[tab].problem = seen, problem
    return infos


@dataclass
class EvalPlan:
    executor: Executor
    tasks: list[Task]
    """Every selected notebook, in book order."""
    frozen: list[Execution]
    """The notebooks taken from the frozen store (written already)."""
    queue: list[Task]
    """The notebooks to run (the cached ones are written already), longest first."""
    skipped: list[Task]
    """GPU sections of frameworks blind to the GPUs (with --require-gpu)."""


def plan_eval(build: Build, tasks: list[Task], runtimes: dict[str, Runtime], gpus: list[Gpu],
              frameworks: dict[str, FrameworkInfo]) -> EvalPlan:
    options = build.options
    libraries = {tab: (build.layout.root / build.config.library.lib_files[tab])
                 .read_text(encoding="utf-8") for tab in runtimes}
    versions = {tab: runtime.framework_version for tab, runtime in runtimes.items()}
    frozen, others = use_frozen(build.layout, tasks, libraries, versions, options.force)
    # The GPU job must not run a framework that cannot use the GPUs: it would
    # only prove that the CPU works.
    blocked = {tab for tab, info in frameworks.items()
               if options.require_gpu and info.gpus_seen == 0}
    skipped = [t for t in others if t.tab in blocked and t.section.gpus]
    executor = Executor(build.layout, runtimes, gpus, options.jobs, build.config.execute.timeout,
                        options.force, log=build.console.say, colour=build.console.live)
    queue = executor.plan([t for t in others if t not in skipped], libraries)
    return EvalPlan(executor, tasks, frozen, queue, skipped)


def execute(plan: EvalPlan) -> list[Execution]:
    """Run the plan's queue; every task's execution, in book order. Ctrl-C stops every
    kernel and raises KeyboardInterrupt."""
    plan.executor.run(plan.queue)
    executions = [*plan.frozen, *plan.executor.executions,
                  *(Execution(t, "skipped") for t in plan.skipped)]
    order = {id(task): number for number, task in enumerate(plan.tasks)}
    return sorted(executions, key=lambda e: order[id(e.task)])


def write_eval_report(layout: Layout, executions: list[Execution], gpus: list[Gpu],
                      frameworks: dict[str, FrameworkInfo],
                      require_gpu: bool) -> tuple[Report, Path]:
    """The report of the executions, written beside the executed notebooks (.md, .json)."""
    report = build_report(executions, functools.partial(read_executed, layout), gpus,
                          frameworks, require_gpu)
    _, markdown = write_report(report, layout.eval)
    return report, markdown


def run_launch(build: Build) -> int:
    started = time.monotonic()
    layout, selection = build.layout, build.selection
    result = write_launch_notebooks(build.config, build.numbers, selection.pairs(), layout,
                                    prune=() if selection.partial else selection.tabs)
    build.console.launch_written(result, layout.shown(layout.launch), time.monotonic() - started)
    if result.missing:
        return 1
    if build.out:
        build.console.copied("launch", copy_tree(layout.launch, build.out), "notebooks",
                             build.out)
    return 0


def run_html(build: Build) -> int:
    started = time.monotonic()
    tabs = build.selection.tabs
    progress = build.console.page_progress(len(build.book.pages()))
    result = render_site(build.book, build.config, build.numbers, tabs, build.layout, progress)
    build.console.site_rendered(result, build.layout.shown(result.folder), tabs,
                                time.monotonic() - started)
    if build.out:
        build.console.copied("html", copy_tree(result.folder, build.out), "files", build.out)
    return 0


SITE_STEPS: tuple[Step, ...] = (run_eval, run_launch, run_html)
"""What `html` and each rebuild of `serve` run (eval writes the notebooks it needs)."""


def run_pdf(build: Build) -> int:
    ensure_chromium()
    started = time.monotonic()
    results = write_pdfs(build.book, build.config, build.numbers, build.selection.tabs,
                         build.layout, build.console.pdf_written)
    build.console.pdfs_done(results, build.layout.shown(build.layout.pdfs),
                            time.monotonic() - started)
    return 0
