"""The options of build.py: one parser, each command's options declared once.

`args.command` names the command (None: the whole build); cli/main.py runs it.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from ..execution.shard import parse_shard


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
    parser.add_argument("--recheck", action="store_true", default=default,
                        help="run every step even if nothing changed since this command "
                             "last succeeded (each step still keeps what is current)")


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
    answers = lib.add_mutually_exclusive_group()
    answers.add_argument("--check", action="store_true",
                         help="change nothing; fail if the committed files are out of date")
    answers.add_argument("--tag", action="store_true",
                         help="change nothing; print the git tag the launch notebooks install "
                              "d2l from (the publish workflow creates it), or fail if the "
                              "committed files are out of date")
    notebooks = commands.add_parser(
        "notebooks", help="split the sources into per-framework notebooks")
    _add_selection(notebooks)
    evaluate = commands.add_parser("eval", help="execute the notebooks (cached)")
    _add_selection(evaluate)
    _add_execution(evaluate)
    evaluate.add_argument("--shard", type=parse_shard, metavar="K/N",
                          help="execute only the K-th of N parts of the selected notebooks, "
                               "balanced by the durations frozen/ recorded (a CI matrix)")
    launch = commands.add_parser(
        "launch", help="Colab/Kaggle notebooks from the executed ones (runs eval first)")
    _add_selection(launch)
    _add_execution(launch)
    _add_out(launch, "the launch notebooks (the tree of the published notebooks branch)")
    html = commands.add_parser(
        "html", help="render the HTML book (runs eval and launch first); with one --tab, "
                     "a single-framework site in _build/html-<tab>")
    _add_tabs(html, SITE_TABS)
    _add_execution(html)
    _add_out(html, "the site")
    # The site always holds every page: links must resolve.
    html.set_defaults(only=None, gpu_only=False)
    serve = commands.add_parser(
        "serve", help="serve the HTML book on 127.0.0.1, rebuild it when the sources change "
                      "and reload the open page (Ctrl-C stops)")
    serve.add_argument("--port", type=int, default=8000,
                       help="port on 127.0.0.1 (default: 8000; 0: any free port)")
    _add_tabs(serve, SITE_TABS)
    _add_kernels(serve)
    serve.set_defaults(only=None, gpu_only=False, force=False,
                       require_gpu=False, freeze=False)
    pdf = commands.add_parser(
        "pdf", help="print each framework's book as a PDF, _build/pdf/<name>-<tab>.pdf "
                    "(runs eval first)")
    _add_tabs(pdf, "this framework's PDF only (repeatable; default: every book tab)")
    _add_execution(pdf)
    # A PDF always holds the whole book: its contents and references must resolve.
    pdf.set_defaults(only=None, gpu_only=False)
    slides = commands.add_parser(
        "slides", help="slide notebooks (RISE) of the sections with slide marks, "
                       "_build/slides/<tab>/<section>.ipynb, from the executed notebooks "
                       "(runs eval first)")
    _add_selection(slides)
    _add_execution(slides)
    gather = commands.add_parser(
        "gather", help="merge the frozen results of the GPU job's tasks into frozen/ and "
                       "write one summary of them (the GPU job's last step)")
    gather.add_argument("tasks", nargs="+", type=Path, metavar="TASK_DIR",
                        help="what a task left: a book folder after its `eval --freeze "
                             "--shard K/N` (frozen/, _build/eval/report.json)")
    gather.add_argument("--summary", type=Path, metavar="FILE",
                        help="where to write the summary (default: "
                             "_build/gpu-job/summary.md)")
    for command in (check, lib, notebooks, evaluate, launch, html, serve, pdf, slides, gather):
        _add_book(command, default=argparse.SUPPRESS)
    test = commands.add_parser("test", help="run the test suite (extra arguments go to pytest; "
                                            "--fast: only the tests that need no kernel, "
                                            "browser, network or Slurm)")
    test.add_argument("pytest_args", nargs=argparse.REMAINDER)
    return parser


def command_first(parser: argparse.ArgumentParser, argv: list[str]) -> list[str]:
    """`argv` with its command moved in front: options written before a command are that
    command's, so `build.py -j 1 --tab mxnet eval` is `build.py eval -j 1 --tab mxnet`,
    and an option the command does not take is an error instead of being dropped."""
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    # argparse keeps no public list of the options that take a value (-C DIR, --tab T…).
    with_value = {option for action in parser._actions if action.nargs != 0
                  for option in action.option_strings}
    position = 0
    while position < len(argv):
        if argv[position] in subparsers.choices:
            return [argv[position], *argv[:position], *argv[position + 1:]]
        position += 2 if argv[position] in with_value else 1
    return argv


def parse_command_line(argv: list[str]) -> argparse.Namespace:
    """The options of `argv`; after a leading `test`, every argument is pytest's."""
    parser = make_parser()
    if argv[:1] == ["test"]:
        # Options included (`test -k spelling`): pytest's, not ours.
        args = parser.parse_args(argv[:1])
        args.pytest_args = argv[1:]
        return args
    return parser.parse_args(command_first(parser, argv))


def pytest_arguments(given: list[str], root: Path) -> list[str]:
    """pytest's arguments for `build.py test <given>`, run in `root`. --fast: the tests in
    none of the slow layers of pytest.ini, spread over the machine's cores (pytest-xdist)
    unless the command line says how (-n, -p no:xdist)."""
    pytest_args = [arg for arg in given if arg != "--fast"]
    layers = ["-m", "not kernels and not browser and not network and not slurm"] \
        if "--fast" in given else []
    if layers and not any(arg.startswith(("-n", "--numprocesses", "-pno:xdist"))
                          or arg == "no:xdist" for arg in pytest_args):
        layers += ["-n", "auto"]
    # The whole suite unless some tests are named (`test tests/test_report.py`).
    named = any(not arg.startswith("-") and (root / arg.split("::")[0]).exists()
                for arg in pytest_args)
    return [*([] if named else [str(root / "tests")]), *layers, *pytest_args]
