"""The command line behind build.py: a pipeline of stages over one book. Each command
parses its options, checks the book, selects tabs and sections, then holds the build lock
while its steps run in order (notebooks, eval, launch, HTML, PDF), stopping at the first
that fails; a step hands what its stage returns to the console, which alone prints.
"""
from __future__ import annotations

import argparse
import functools
import importlib
import os
import subprocess
import sys
import time
import traceback
from itertools import chain
from pathlib import Path
from typing import Callable

from ..bootstrap.environments import TOOL_ROOT, ensure_chromium, ensure_test_tools
from ..bootstrap.errors import BookError, machine_errors
from ..core.config import CONFIG_FILE, Config, ConfigError, load_config
from ..core.layout import Layout
from ..core.model import Book, SourceError
from ..notebooks.library import library_tag, library_version, stale_libraries, write_libraries
from .console import Console
from .state import Build, Step, build_lock, load_checked_book
from .options import parse_command_line, pytest_arguments
from .selection import book_folder, eval_options, select, selected_tabs

# The stages are imported by the steps that run them: `check` and `lib` load no executor,
# renderer or notebook writer (a third of a small book's `check`).

INTERRUPTED = 130
"""The status of a command stopped by Ctrl-C while its kernels ran."""


# -- commands ------------------------------------------------------------------------

def main(argv: list[str], root: Path) -> int:
    args = parse_command_line(argv)
    console = Console()
    command = COMMANDS[args.command]
    return reporting(lambda: command(args, book_folder(args, root), console), console)


def reporting(command: Callable[[], int], console: Console) -> int:
    """Run `command`; a user error it raises is printed, and its status is 1. Any other
    exception is a bug of the build: its traceback is shown, and the status is 2."""
    try:
        with machine_errors():   # a full disk, a read-only folder: the user's to fix
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


def command_test(args: argparse.Namespace, _book: Path, console: Console) -> int:
    """The build system's own test suite (whatever book -C names); with `--fast`, only
    the tests that need no framework kernel, browser, network or Slurm."""
    ensure_test_tools()
    return subprocess.call([sys.executable, "-m", "pytest",
                            *pytest_arguments(args.pytest_args, TOOL_ROOT)], cwd=TOOL_ROOT)


def command_gather(args: argparse.Namespace, root: Path, console: Console) -> int:
    """The GPU job's last step: its tasks' frozen results into frozen/, one summary. Its
    status is 0 when that is done, failed tasks or not: the summary names them, and
    the other tasks' results must still be proposed."""
    from ..execution.gather import gather

    layout = Layout(root)
    summary = args.summary.resolve() if args.summary else layout.gpu_job_summary
    with build_lock(layout, console):
        result = gather(layout, [folder.resolve() for folder in args.tasks], summary)
    console.gathered(result, layout)
    return 0


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
    config, book, _ = loaded
    if args.tag:   # the tag of files out of date would name a d2l no notebook runs with
        stale = stale_libraries(book, config)
        console.library_tag(stale, library_tag(library_version(config)))
        return 1 if stale else 0
    if args.check:
        return _libraries_status(book, config, console)
    console.libraries_written(write_libraries(book, config), root)
    return 0


def _libraries_status(book: Book, config: Config, console: Console) -> int:
    stale = stale_libraries(book, config)
    console.stale_libraries(stale)
    return 1 if stale else 0


def building(*steps: Step) -> Callable[[argparse.Namespace, Path, Console], int]:
    """The command that checks the book and what its steps need, then runs `steps` under
    the build lock."""
    def command(args: argparse.Namespace, root: Path, console: Console) -> int:
        # Nothing is written in _build before the lock is held, the cache neither.
        loaded = load_checked_book(root, args.strict, console, save=False)
        if loaded is None:
            return 1
        config, book, sections = loaded
        # Bad option values stop here, before the lock creates _build/.
        build = Build(book, config, Layout(root, config.build.eval_notebook),
                      select(book, config, args),
                      eval_options(config, args), console, args.strict or config.build.strict,
                      getattr(args, "out", None), section_keys=sections.keys)
        # All that the later steps need too, before the first one does any work.
        needed = dict.fromkeys(problem for step in steps for problem in step.needs(build))
        if needed:
            raise ConfigError("\n".join(needed))
        with build_lock(build.layout, console):   # once for the whole command
            sections.save()
            for step in steps:
                status = step.run(build)
                if status:
                    return status
        return 0
    return command


def command_serve(args: argparse.Namespace, root: Path, console: Console) -> int:
    """Serve the site; rebuild it (under the build lock) whenever a watched file changes.
    Ctrl-C is its normal end: status 0."""
    from ..output.serve import Rebuilt, serve
    from .preview import draft

    config = load_config(root)
    layout = Layout(root)
    eval_options(config, args)   # bad --python values stop here, not at every rebuild
    watched = [config.root / CONFIG_FILE, config.source_root, layout.root / "img",
               *{(layout.root / f).parent for f in config.library.lib_files.values()},
               *config.html.files]
    watched = [p for p in dict.fromkeys(watched)
               if p.exists() and not any(p != q and p.is_relative_to(q) for q in watched)]

    def rebuild(changed: list[Path], show_draft: Callable[[], None] | None) -> Rebuilt:
        started = time.monotonic()
        drafted = draft(root, args.tab, args.strict, changed, console) if show_draft else None
        drafted_after = drafted.seconds if drafted else None
        if drafted:   # the edited pages first, then the whole site
            show_draft()
        # The first build shows its progress; then only problems are printed.
        shown = console.recording(progress=not changed)
        status = reporting(lambda: building(*SITE_STEPS)(args, root, shown), shown)
        if status == INTERRUPTED:   # Ctrl-C while kernels ran: they are stopped
            raise KeyboardInterrupt
        if status:
            return Rebuilt(None, tuple(shown.recorded or ["the build failed"]),
                           time.monotonic() - started, drafted_after)
        site = served_site(root, args.tab)
        return Rebuilt(site, (), time.monotonic() - started, drafted_after,
                       reload=not drafted or drafted.outdated_by(site))

    try:
        serve(layout, args.port, served_site(root, args.tab), watched, rebuild, console,
              config.project.language)
    except KeyboardInterrupt:
        console.stopped()   # all stopped and written: skip the teardown, which the
        sys.stdout.flush()  # threads of interrupted kernel clients can crash (zmq)
        os._exit(0)   # (stderr is line-buffered)
    return 0


def served_site(root: Path, tabs: list[str] | None) -> Path:
    """The site folder `build.py html` makes for `tabs` (config.ini may have changed)."""
    config = load_config(root)
    return Layout(root).site(selected_tabs(config, tabs), config.build.tabs)


# -- steps ---------------------------------------------------------------------------

def check_libraries(build: Build) -> int:
    return _libraries_status(build.book, build.config, build.console)


def run_notebooks(build: Build) -> int:
    from ..notebooks.split import write_notebooks

    started = time.monotonic()
    selection = build.selection
    result = write_notebooks(selection.sections, selection.tabs, build.layout,
                             build.console.notebook_progress(len(selection.sections)),
                             prune=not selection.partial, split=build.split_notebook)
    build.console.notebooks_written(result, build.layout.shown(build.layout.split),
                                    time.monotonic() - started)
    build.split = True
    return 0


def executes(build: Build, forced: bool = False) -> bool:
    """Whether eval runs kernels: for a book that asks to be executed (not d2lbook's
    ``eval_notebook = False``), or, when `forced` (`build.py eval --force`), any book."""
    return build.layout.executes or (forced and build.options.force)


def run_eval(build: Build) -> int:
    """Execute the selected notebooks; for a book that is not executed, split them
    instead: no kernel, no framework environment."""
    if executes(build):
        return execute(build)
    build.console.not_executed()
    return 0 if build.split else run_notebooks(build)


def run_eval_command(build: Build) -> int:
    """`build.py eval`: a book that asks not to be executed is executed only with
    --force (its site still shows the split notebooks, as config.ini asks)."""
    if not build.layout.executes:
        build.console.not_executed(forced=build.options.force)
    return execute(build) if executes(build, forced=True) else 0


def execute(build: Build) -> int:
    """Execute the selected notebooks (the cached ones are not run), report, judge."""
    from ..execution.evaluate import evaluate, plan_eval
    from ..features.registry import FEATURES

    started, console, options = time.monotonic(), build.console, build.options
    plan = plan_eval(build.layout, build.config, build.selection.pairs(), options,
                     full=not build.selection.partial, split=build.split_notebook)
    console.eval_plan(plan)
    try:
        result = evaluate(build.layout, build.config, plan, options, console.execution_event)
    except KeyboardInterrupt:
        console.interrupted()
        return INTERRUPTED
    console.evaluated(result, build.selection.tabs, build.layout, options.require_gpu,
                      time.monotonic() - started)
    report = build.layout.shown(result.report_markdown)   # where the listed ones are
    for feature in FEATURES:
        console.feature_findings(feature, list(result.problems.get(feature.key, ())),
                                 result.notes.get(feature.key, ()), build.strict, report)
    console.not_judged(result.not_judged, report)
    console.long_outputs(list(result.long_outputs), build.strict)
    blocking = any(build.strict or not p.warning
                   for p in (*chain.from_iterable(result.problems.values()),
                             *result.long_outputs))
    return 1 if result.failed or blocking else 0


def run_launch(build: Build) -> int:
    from ..output.launch import copy_tree, write_launch_notebooks

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
    from ..output.launch import copy_tree
    from ..output.render import render_site

    started = time.monotonic()
    tabs = build.selection.tabs
    progress = build.console.page_progress(len(build.book.pages()))
    result = render_site(build.book, build.config, build.numbers, tabs, build.layout, progress)
    build.console.site_rendered(result, build.layout.shown(result.folder), tabs,
                                time.monotonic() - started)
    if build.out:
        build.console.copied("html", copy_tree(result.folder, build.out), "files", build.out)
    return 0


def run_pdf(build: Build) -> int:
    from ..output.pdf import write_pdfs   # pikepdf: loaded by the commands that print only
    ensure_chromium()
    started = time.monotonic()
    results = write_pdfs(build.book, build.config, build.numbers, build.selection.tabs,
                         build.layout, build.console.pdf_written)
    build.console.pdfs_done(results, build.layout.shown(build.layout.pdfs),
                            time.monotonic() - started)
    return 0


def run_slides(build: Build) -> int:
    from ..output.decks import book_decks, deck_book, write_decks
    from ..output.slides import write_slide_notebooks

    started, layout, selection = time.monotonic(), build.layout, build.selection
    result = write_slide_notebooks(build.config, build.numbers, layout, selection.sections,
                                   selection.tabs, build.console.slide_progress(layout))
    write_decks(layout.decks, book_decks(result.makers(), build.book, build.numbers),
                deck_book(build.book, build.config, build.numbers))
    build.console.slides_written(result, layout.shown(layout.slides), time.monotonic() - started)
    return 0


def stage_needs(stage: str, when: Callable[[Build], bool] = lambda build: True
                ) -> Callable[[Build], list[str]]:
    """A step's needs: the `requirements` of its stage (the module `stage`, relative to
    this package) for the selected tabs, if `when` holds."""
    def needs(build: Build) -> list[str]:
        if not when(build):
            return []
        requirements = importlib.import_module(stage, __package__).requirements
        return requirements(build.config, build.selection.tabs)
    return needs


LIBRARIES, NOTEBOOKS, PDF, SLIDES = (Step(check_libraries), Step(run_notebooks), Step(run_pdf),
                                     Step(run_slides))
EVAL = Step(run_eval, stage_needs("..execution.evaluate", executes))
EVAL_COMMAND = Step(run_eval_command, stage_needs("..execution.evaluate",
                                                  functools.partial(executes, forced=True)))
LAUNCH = Step(run_launch, stage_needs("..output.launch"))
HTML = Step(run_html, stage_needs("..output.render"))

SITE_STEPS: tuple[Step, ...] = (EVAL, LAUNCH, HTML)
"""What `html` and each rebuild of `serve` run (eval writes the notebooks it needs)."""

COMMANDS: dict[str | None, Callable[[argparse.Namespace, Path, Console], int]] = {
    # The PDFs before the site, which offers them (kept when nothing they show changed).
    None: building(LIBRARIES, NOTEBOOKS, EVAL, LAUNCH, PDF, HTML),
    "check": command_check, "lib": command_lib, "notebooks": building(NOTEBOOKS),
    "eval": building(EVAL_COMMAND), "launch": building(EVAL, LAUNCH),
    "html": building(*SITE_STEPS), "serve": command_serve,
    "pdf": building(EVAL, PDF), "slides": building(EVAL, SLIDES), "gather": command_gather, "test": command_test}
"""What each command runs (None: build.py without a command builds everything)."""
