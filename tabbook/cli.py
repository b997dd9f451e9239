"""The command line behind build.py: parses options, runs the stages, reports."""
from __future__ import annotations

import argparse
import contextlib
import fcntl
import fnmatch
import json
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .check import check_book
from .config import Config, ConfigError, load_config
from .environments import ensure_test_tools
from .execute import Executor, Outcome, Task, summary_table
from .kernels import (Runtime, RuntimeSetupError, default_jobs, detect_gpus, framework_gpus,
                      isolate_jupyter, prepare_runtime, python_of)
from .launch import OutError, copy_tree, write_launch_notebooks
from .layout import Layout
from .library import stale_libraries, write_libraries
from .model import Book, Problem, Section, SourceError
from .numbering import number_book
from .parse import parse_book
from .render import RenderError, render_site
from .report import FrameworkInfo, Run, build_report, write_report
from .split import split_section, write_notebooks


class UsageError(Exception):
    """A bad option value (unknown tab, --only matching nothing)."""


def _add_selection(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tab", action="append", metavar="T",
                        help="build this framework only (repeatable; default: all book tabs)")
    parser.add_argument("--only", action="append", metavar="GLOB",
                        help="build the sections matching GLOB only, e.g. 'chapter_gpu/*' "
                             "(repeatable)")
    parser.add_argument("--gpu-only", action="store_true",
                        help="build only the sections that declare #gpus(N) (the GPU job)")


def _add_execution(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-j", "--jobs", type=int, metavar="N",
                        help="kernels at once (default: [execute] jobs, else from the machine)")
    parser.add_argument("--force", action="store_true", help="ignore the execution cache")
    parser.add_argument("--python", action="append", metavar="TAB=PATH",
                        help="run TAB with this interpreter instead of .envs/TAB (repeatable)")
    parser.add_argument("--require-gpu", action="store_true",
                        help="fail unless every selected section that declares #gpus(N) "
                             "really computed on a GPU (the GPU job)")


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
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    # A subcommand's own -C/--strict must not reset the values given before it.
    check = commands.add_parser("check", help="lint the sources, build nothing")
    lib = commands.add_parser("lib", help="regenerate d2l/*.py from the #@save code")
    lib.add_argument("--check", action="store_true",
                     help="change nothing; fail if the committed files are out of date")
    notebooks = commands.add_parser(
        "notebooks", help="split the sources into per-framework notebooks")
    _add_selection(notebooks)
    evaluate = commands.add_parser("eval", help="execute the notebooks (cached)")
    _add_selection(evaluate)
    _add_execution(evaluate)
    launch = commands.add_parser(
        "launch", help="Colab/Kaggle notebooks from the executed ones (runs eval first)")
    _add_selection(launch)
    _add_execution(launch)
    _add_out(launch, "the launch notebooks (the tree of the published notebooks branch)")
    html = commands.add_parser(
        "html", help="render the HTML book (runs eval and launch first); with one --tab, "
                     "a single-framework site in _build/html-<tab>")
    html.add_argument("--tab", action="append", metavar="T",
                      help="frameworks of the site (repeatable; default: all book tabs)")
    _add_execution(html)
    _add_out(html, "the site")
    for command in (check, lib, notebooks, evaluate, launch, html):
        _add_book(command, default=argparse.SUPPRESS)
    test = commands.add_parser("test", help="run the test suite (extra arguments go to pytest)")
    test.add_argument("pytest_args", nargs=argparse.REMAINDER)
    return parser


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
    chosen = []
    for pattern in patterns:
        matches = [s for s in pages if fnmatch.fnmatch(s.name, pattern)
                   or fnmatch.fnmatch(s.path.as_posix(), pattern)
                   or fnmatch.fnmatch(s.display_path, pattern)]
        if not matches:
            raise UsageError(f"--only {pattern}: matches no section"
                             f"{' declaring #gpus(N)' if gpu_only else ''} "
                             "(patterns match e.g. 'chapter_gpu/use-gpu' or 'chapter_gpu/*')")
        chosen += [s for s in matches if s not in chosen]
    return [s for s in pages if s in chosen]   # keep book order


def sections_of(book: Book, args: argparse.Namespace) -> list[Section]:
    """The sections the command line selects (--only, --gpu-only)."""
    return selected_sections(book, args.only, getattr(args, "gpu_only", False))


def section_tabs(config: Config, sections: list[Section],
                 tabs: tuple[str, ...]) -> list[tuple[Section, str]]:
    """The (section, tab) pairs that have a notebook, in book order."""
    return [(section, tab) for section in sections for tab in tabs
            if tab in section.tabs]


def report(problems: list[Problem], strict: bool = True) -> None:
    """Print the problems; say the build stops if any is an error (every one, if strict)."""
    for problem in problems:
        print(problem, file=sys.stderr)
    warnings = sum(p.warning for p in problems)
    stopping = len(problems) if strict else len(problems) - warnings
    if stopping:
        print(f"check: {stopping} problem{'s' if stopping > 1 else ''} found"
              f"{' (strict: warnings are errors)' if strict and warnings else ''}; "
              "nothing was built", file=sys.stderr)
    elif warnings:
        print(f"check: {warnings} warning{'s' if warnings > 1 else ''} (what d2lbook "
              "tolerates; --strict makes them errors)", file=sys.stderr)


def load_checked_book(root: Path, strict: bool) -> tuple[Config, Book] | None:
    """Parse and check the whole book; print the problems and return None if any stops
    the build (an error, or a warning when strict)."""
    config = load_config(root)
    strict = strict or config.build.strict
    book, problems = parse_book(config)
    problems = sorted(set(problems) | set(check_book(book, config)))
    report(problems, strict)
    if any(strict or not p.warning for p in problems):
        return None
    return config, book


def run_check(root: Path, strict: bool) -> int:
    started = time.monotonic()
    loaded = load_checked_book(root, strict)
    if loaded is None:
        return 1
    _, book = loaded
    print(f"check: {len(book.pages())} sections, no problem stops the build ({time.monotonic() - started:.2f} s)")
    return 0


def run_lib(root: Path, check_only: bool, strict: bool) -> int:
    loaded = load_checked_book(root, strict)
    if loaded is None:
        return 1
    config, book = loaded
    if check_only:
        return _report_stale_libraries(config, book)
    changed = write_libraries(book, config)
    for path in changed:
        print(f"lib: wrote {path.relative_to(root).as_posix()}")
    print(f"lib: {len(changed)} file{'s' if len(changed) != 1 else ''} changed"
          + (" (commit them with the sections)" if changed else ""))
    return 0


def _report_stale_libraries(config: Config, book: Book) -> int:
    stale = stale_libraries(book, config)
    for message in stale:
        print(f"lib: {message}", file=sys.stderr)
    if stale:
        print("lib: run `python3 build.py lib` and commit the result", file=sys.stderr)
        return 1
    print("lib: d2l files are up to date")
    return 0


def run_notebooks(root: Path, args: argparse.Namespace, config: Config, book: Book) -> int:
    started = time.monotonic()
    tabs = selected_tabs(config, args.tab)
    sections = sections_of(book, args)
    width = len(str(len(sections)))

    def progress(number: int, total: int, section: Section, made: list[str],
                 missing: list[str]) -> None:
        line = f"[{number:>{width}}/{total}] {section.name}: {', '.join(made) or '-'}"
        if missing:
            line += (f"  (no {', '.join(missing)} notebook: the section has only "
                     f"{', '.join(section.tabs)})")
        print(line, flush=True)

    result = write_notebooks(sections, tabs, Layout(root), progress,
                             prune=not (args.only or args.gpu_only))
    made = len(result.written) + len(result.unchanged)
    print(f"notebooks: {made} in _build/notebooks ({len(result.written)} written, "
          f"{len(result.unchanged)} unchanged, {len(result.removed)} stale removed), "
          f"{len(result.missing_tabs)} section/tab pairs without a notebook, "
          f"{time.monotonic() - started:.2f} s")
    return 0


@contextlib.contextmanager
def build_lock(root: Path):
    """One build at a time in a folder: a second one waits for the first."""
    path = Layout(root).lock
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print("waiting for another build of this book to finish...", flush=True)
            fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def run_eval(root: Path, args: argparse.Namespace, config: Config, book: Book) -> int:
    started = time.monotonic()
    tabs = selected_tabs(config, args.tab)
    sections = sections_of(book, args)
    pythons = {}
    for value in args.python or []:
        tab, path = python_of(value)
        selected_tabs(config, [tab])
        pythons[tab] = path
    gpus = detect_gpus()
    if gpus:
        print("devices: " + "; ".join(f"GPU {g.index} {g.name} ({g.memory_mib} MiB, driver "
                                      f"{g.driver}, CUDA {g.cuda})" for g in gpus))
    else:
        print("devices: no GPU visible, every notebook runs on the CPU")
    if args.require_gpu:
        needing = [s for s in sections if s.gpus]
        if needing and not gpus:
            print("error: --require-gpu: no GPU is visible, but "
                  + ", ".join(f"{s.name} declares #gpus({s.gpus})" for s in needing)
                  + " — run on a machine whose GPUs nvidia-smi lists, or drop --require-gpu",
                  file=sys.stderr)
            return 1
        for section in needing:
            if section.gpus > len(gpus):
                print(f"note: {section.name} declares #gpus({section.gpus}) and gets the "
                      f"{len(gpus)} GPU(s) there are")
    tasks = [Task(section, tab, split_section(section, tab))
             for section, tab in section_tabs(config, sections, tabs)]
    order = {id(task): number for number, task in enumerate(tasks)}
    layout = Layout(root)
    isolate_jupyter(layout)
    needed = list(dict.fromkeys(t.tab for t in tasks))
    # Probing imports each framework (seconds each): do them side by side.
    with ThreadPoolExecutor(max(len(needed), 1)) as pool:
        runtimes = dict(zip(needed, pool.map(
            lambda tab: prepare_runtime(layout, tab, pythons.get(tab)), needed)))
    frameworks = framework_infos(runtimes, gpus)
    # The GPU job must not run a framework that cannot use the GPUs: it would
    # only prove that the CPU works.
    blocked = {tab for tab, info in frameworks.items()
               if args.require_gpu and info.gpus_seen == 0}
    skipped = [t for t in tasks if t.tab in blocked and t.section.gpus]
    jobs = args.jobs or default_jobs(config.execute.jobs)
    executor = Executor(layout, runtimes, gpus, jobs, config.execute.timeout, args.force,
                        colour=sys.stdout.isatty())
    libraries = {tab: (root / config.library.lib_files[tab]).read_text(encoding="utf-8")
                 for tab in runtimes}
    queue = executor.plan([t for t in tasks if t not in skipped], libraries)
    print(f"eval: {len(tasks)} notebooks, {len(tasks) - len(queue) - len(skipped)} cached, "
          f"{len(queue)} to run with up to {min(jobs, max(len(queue), 1))} kernels"
          + (f", {len(skipped)} skipped" if skipped else ""), flush=True)
    try:
        executor.run(queue)
    except KeyboardInterrupt:
        print("\neval: interrupted; kernels stopped, unfinished notebooks keep their "
              "previous results", file=sys.stderr)
        return 130
    executor.outcomes += [Outcome(task, "skipped") for task in skipped]
    outcomes = sorted(executor.outcomes, key=lambda o: order[id(o.task)])
    print(summary_table(outcomes, tabs))
    failed = [o for o in outcomes if o.status == "failed"]
    for outcome in failed:
        print(outcome.message, file=sys.stderr)
    report = build_report([run_of(root, o) for o in outcomes], gpus, frameworks,
                          args.require_gpu)
    _, markdown = write_report(report, layout.eval)
    doubtful = [row for row in report.problems if row.status not in ("failed", "interrupted")]
    for row in doubtful:
        print(f"{'error' if args.require_gpu else 'warning'}: {row.section} [{row.framework}] "
              f"declares #gpus({row.declared_gpus}): {row.verdict}"
              + (f" ({frameworks[row.framework].problem})" if row.verdict.startswith("framework")
                 else " — its tensors and models stayed on the CPU; check the code moves them "
                      "to try_gpu()"), file=sys.stderr)
    print(f"eval: {sum(o.status == 'ran' for o in outcomes)} ran, "
          f"{sum(o.status == 'cached' for o in outcomes)} cached, {len(failed)} failed, "
          f"{time.monotonic() - started:.1f} s; report in {markdown.relative_to(root)} (and .json)")
    return 1 if failed or (args.require_gpu and doubtful) else 0


def framework_infos(runtimes: dict[str, Runtime], gpus: list) -> dict[str, FrameworkInfo]:
    """Each framework's version, and, on a GPU machine, how many GPUs its build sees."""
    infos = {tab: FrameworkInfo(r.framework_version, r.python_version)
             for tab, r in runtimes.items()}
    if gpus:
        with ThreadPoolExecutor(max(len(runtimes), 1)) as pool:
            counts = dict(zip(runtimes, pool.map(framework_gpus, runtimes.values())))
        for tab, (seen, problem) in counts.items():
            infos[tab].gpus_seen, infos[tab].problem = seen, problem
            print(f"{tab} {infos[tab].version}: sees {seen} GPU(s)"
                  + (f" — {problem}" if problem else ""))
    return infos


def run_of(root: Path, outcome: Outcome) -> Run:
    """What the report needs of an outcome, with its executed notebook if there is one."""
    path = Layout(root).executed(outcome.task.tab, outcome.task.section)
    notebook = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None
    section = outcome.task.section
    return Run(section.name, outcome.task.tab, section.gpus, outcome.status, outcome.seconds,
               notebook)


def run_launch(root: Path, args: argparse.Namespace, config: Config, book: Book) -> int:
    started = time.monotonic()
    tabs = selected_tabs(config, args.tab)
    pairs = section_tabs(config, sections_of(book, args), tabs)
    layout = Layout(root)
    result = write_launch_notebooks(config, number_book(book), pairs, layout,
                                    prune=() if args.only or args.gpu_only else tabs)
    for section, tab in result.missing:
        print(f"launch: {section.display_path} [{tab}] has no executed notebook — "
              "run `python3 build.py eval` and fix its errors", file=sys.stderr)
    print(f"launch: {len(result.written) + len(result.unchanged)} notebooks in "
          f"{layout.shown(layout.launch)} ({len(result.written)} written, "
          f"{len(result.unchanged)} unchanged), {time.monotonic() - started:.2f} s")
    if result.missing:
        return 1
    if getattr(args, "out", None):
        copied = copy_tree(layout.launch, args.out)
        print(f"launch: {copied} notebooks copied to {args.out}")
    return 0


def run_html(root: Path, args: argparse.Namespace, config: Config, book: Book) -> int:
    started = time.monotonic()
    tabs = selected_tabs(config, args.tab)
    pages = book.pages()
    width = len(str(len(pages)))

    def progress(number: int, total: int, section: Section, seconds: float) -> None:
        print(f"[{number:>{width}}/{total}] html {section.name} ({seconds:.2f} s)", flush=True)

    result = render_site(book, config, number_book(book), tabs, Layout(root), progress)
    site = result.folder.relative_to(root).as_posix()
    done = "search index built" if result.rendered else \
        "unchanged: nothing it is made from changed"
    print(f"html: {result.pages} pages in {site}/ ({'one framework, no tabs' if len(tabs) == 1 else ', '.join(tabs)}), "
          f"{done}, {time.monotonic() - started:.1f} s — open {site}/index.html")
    if getattr(args, "out", None):
        copied = copy_tree(result.folder, args.out)
        print(f"html: {copied} files copied to {args.out}")
    return 0


def run_tests(root: Path, pytest_args: list[str]) -> int:
    ensure_test_tools()
    # The whole suite unless some tests are named (`test tests/test_report.py`).
    named = any(not arg.startswith("-") and (root / arg.split("::")[0]).exists()
                for arg in pytest_args)
    return subprocess.call([sys.executable, "-m", "pytest",
                            *([] if named else [str(root / "tests")]), *pytest_args],
                           cwd=root)


def main(argv: list[str], root: Path) -> int:
    if "test" in argv:
        # Everything after `test` is pytest's, options included (`test -k spelling`).
        at = argv.index("test")
        args = make_parser().parse_args(argv[:at + 1])
        args.pytest_args = argv[at + 1:]
    else:
        args = make_parser().parse_args(argv)
    if args.command == "test":
        return run_tests(root, args.pytest_args)
    if args.directory is not None:
        root = args.directory.resolve()
        if not root.is_dir():
            print(f"error: -C {args.directory}: no such folder", file=sys.stderr)
            return 1
    try:
        if args.command == "check":
            return run_check(root, args.strict)
        if args.command == "lib":
            return run_lib(root, args.check, args.strict)
        loaded = load_checked_book(root, args.strict)
        if loaded is None:
            return 1
        if args.command == "html":
            args.only = None   # the site always holds every page: links must resolve
        # Bad --tab or --only values stop here, before the lock creates _build/.
        selected_tabs(loaded[0], args.tab)
        sections_of(loaded[1], args)
        with build_lock(root):   # once for the whole command: each stage below writes _build/
            if args.command == "eval":
                return run_eval(root, args, *loaded)
            if args.command == "notebooks":
                return run_notebooks(root, args, *loaded)
            if args.command == "launch":
                return run_eval(root, args, *loaded) or run_launch(root, args, *loaded)
            if args.command == "html":
                return (run_eval(root, args, *loaded) or run_launch(root, args, *loaded)
                        or run_html(root, args, *loaded))
            # The whole build: checks, library check, notebooks, execution, launch, HTML.
            return (_report_stale_libraries(*loaded) or run_notebooks(root, args, *loaded)
                    or run_eval(root, args, *loaded) or run_launch(root, args, *loaded)
                    or run_html(root, args, *loaded))
    except (ConfigError, UsageError, FileNotFoundError, RuntimeSetupError, ValueError,
            OutError, RenderError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    except SourceError as err:
        report(err.problems)
        return 1
