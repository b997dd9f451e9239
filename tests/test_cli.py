"""build.py end to end, run as a user runs it, on copies of this repository."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from conftest import CONFIG, DECLARE, REPO, build, build_folder, copy_repository, md, write_book
from tabbook.cli.options import parse_command_line, pytest_arguments


def notebooks(root: Path) -> list[str]:
    base = root / "_build" / "notebooks"
    return sorted(p.relative_to(base).as_posix() for p in base.rglob("*.ipynb"))


def test_check_passes_on_the_book(repo_copy):
    copied = build_folder(repo_copy)
    result = build(repo_copy, "check")
    assert result.returncode == 0, result.stderr
    assert "no problem" in result.stdout
    assert build_folder(repo_copy) == copied


def test_check_names_an_unclosed_begin_tab(repo_copy):
    section = repo_copy / "chapters" / "chapter_gpu" / "use-gpu.md"
    lines = section.read_text(encoding="utf-8").split("\n")
    end = lines.index(":end_tab:")
    del lines[end]
    section.write_text("\n".join(lines), encoding="utf-8")
    begin = max(i for i in range(end) if lines[i].startswith(":begin_tab:")) + 1
    result = build(repo_copy, "check")
    assert result.returncode == 1
    assert f"chapters/chapter_gpu/use-gpu.md:{begin}: warning: :begin_tab: is not closed" \
        in result.stderr
    assert "nothing was built" in result.stderr


@pytest.fixture(scope="module")
def split_repository(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    """A copy of this repository split by `build.py notebooks`, once per module (per
    worker under xdist), and that command's result; `split_copy` gives one to change."""
    root = copy_repository(tmp_path_factory.mktemp("split") / "book")
    result = build(root, "notebooks")
    assert result.returncode == 0, result.stderr
    return root, result


@pytest.fixture
def split_copy(split_repository, tmp_path) -> Path:
    """A copy of `split_repository` of one's own, its _build included, to edit and build."""
    return shutil.copytree(split_repository[0], tmp_path / "book", symlinks=True)


def test_notebooks_of_the_whole_book_are_valid(split_repository):
    root, result = split_repository
    written = notebooks(root)
    for tab in ("pytorch", "mxnet", "tensorflow"):
        assert f"{tab}/chapter_gpu/use-gpu.ipynb" in written
    for name in written:
        notebook = nbformat.read(root / "_build" / "notebooks" / name, as_version=4)
        nbformat.validate(notebook)
        assert notebook.cells, name
    lines = result.stdout.strip().split("\n")
    assert lines[-1].startswith(f"notebooks: {len(written)} in _build/notebooks")
    total = len(list((root / "chapters").rglob("*.md")))
    assert any(re.fullmatch(rf"\[ ?\d+/{total}\] chapter_gpu/use-gpu: pytorch, mxnet, tensorflow",
                            line) for line in lines)


def test_one_tab_and_some_sections(repo_copy):
    result = build(repo_copy, "notebooks", "--tab", "mxnet", "--only", "chapter_gpu/*")
    assert result.returncode == 0, result.stderr
    # The chapter index has no code: like d2lbook, every tab gets its notebook.
    gpu_pages = sorted(p.stem for p in (repo_copy / "chapters/chapter_gpu").glob("*.md"))
    assert notebooks(repo_copy) == [f"mxnet/chapter_gpu/{name}.ipynb" for name in gpu_pages]
    assert f"[1/{len(gpu_pages)}] chapter_gpu/index: mxnet" in result.stdout


def test_bad_options_are_clear_errors(repo_copy):
    copied = build_folder(repo_copy)
    result = build(repo_copy, "notebooks", "--tab", "jax")
    assert result.returncode == 1
    assert "error: --tab jax: not a tab of this book" in result.stderr
    result = build(repo_copy, "--only", "nothing/*")
    assert result.returncode == 1
    assert "error: --only nothing/*: matches no section" in result.stderr
    assert build_folder(repo_copy) == copied


def test_failed_checks_write_nothing_and_keep_earlier_results(split_copy):
    target = split_copy / "_build/notebooks/pytorch/chapter_gpu/use-gpu.ipynb"
    before = target.read_bytes()
    section = split_copy / "chapters" / "chapter_gpu" / "use-gpu.md"
    text = section.read_text(encoding="utf-8")
    section.write_text(text.replace("X = torch.ones(2, 3, device=try_gpu())",
                                    "X = torch.ones(2, 3, device=try_gpu()"), encoding="utf-8")
    result = build(split_copy, "notebooks")
    assert result.returncode == 1
    assert "chapters/chapter_gpu/use-gpu.md:" in result.stderr
    assert "[pytorch] does not compile: '(' was never closed" in result.stderr
    assert target.read_bytes() == before


def test_stale_notebooks_are_removed_and_unchanged_ones_not_rewritten(split_copy):
    stale = split_copy / "_build/notebooks/pytorch/chapter_gpu/old.ipynb"
    stale.write_text("{}")
    result = build(split_copy, "notebooks")
    assert not stale.exists()
    assert "0 written" in result.stdout and "1 stale removed" in result.stdout


def test_config_errors_stop_the_build(repo_copy):
    config = repo_copy / "config.ini"
    config.write_text(config.read_text().replace("[execute]", "[execute]\ntimout = 5"))
    result = build(repo_copy, "check")
    assert result.returncode == 1
    assert "error: config.ini:" in result.stderr and "unknown key 'timout' in [execute]" in \
        result.stderr


def test_notebook_json_is_deterministic(split_copy):
    first = {n: (split_copy / "_build/notebooks" / n).read_bytes() for n in notebooks(split_copy)}
    shutil.rmtree(split_copy / "_build")
    assert build(split_copy, "notebooks").returncode == 0
    second = {n: (split_copy / "_build/notebooks" / n).read_bytes() for n in notebooks(split_copy)}
    assert first == second
    assert json.loads(next(iter(first.values())))["nbformat"] == 4


def test_test_command_passes_options_and_named_tests_to_pytest():
    result = build(REPO, "test", "tests/test_report.py", "-k", "device_names", "-q")
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(r"\b1 passed, \d+ deselected", result.stdout), result.stdout


def test_the_fast_suite_is_spread_over_the_cores_unless_told_otherwise():
    fast = ["-m", "not kernels and not browser and not network and not slurm"]
    assert pytest_arguments(["--fast"], REPO) == [str(REPO / "tests"), *fast, "-n", "auto"]
    assert pytest_arguments(["--fast", "tests/test_report.py", "-x"], REPO) == \
        [*fast, "-n", "auto", "tests/test_report.py", "-x"]
    for told in (["-n", "1"], ["-n0"], ["--numprocesses=3"], ["-p", "no:xdist"],
                 ["-pno:xdist"]):
        assert pytest_arguments(["--fast", *told], REPO) == [str(REPO / "tests"), *fast, *told]
    # The whole suite keeps one process: its browser and Slurm layers start their own.
    assert pytest_arguments(["-k", "spelling"], REPO) == [str(REPO / "tests"), "-k", "spelling"]


def test_test_is_a_command_only_in_the_lead():
    args = parse_command_line(["eval", "--only", "test", "--force"])
    assert (args.command, args.only, args.force) == ("eval", ["test"], True)
    args = parse_command_line(["test", "-k", "spelling", "--force", "--tab", "mxnet"])
    assert args.command == "test"
    assert args.pytest_args == ["-k", "spelling", "--force", "--tab", "mxnet"]


def test_options_before_the_command_are_the_commands():
    before = parse_command_line(["-j", "1", "--tab", "mxnet", "--only", "eval", "-C", "x",
                                 "eval", "--force"])
    after = parse_command_line(["eval", "-j", "1", "--tab", "mxnet", "--only", "eval", "-C",
                                "x", "--force"])
    assert vars(before) == vars(after)
    assert (before.command, before.jobs, before.tab, before.only) == ("eval", 1, ["mxnet"],
                                                                       ["eval"])
    assert parse_command_line(["--strict", "--tab", "pytorch"]).command is None


@pytest.mark.parametrize("argv, refused", [
    (["--only", "x", "html"], "--only x"), (["--force", "check"], "--force")])
def test_an_option_its_command_does_not_take_is_an_error(argv, refused, capsys):
    with pytest.raises(SystemExit) as stopped:
        parse_command_line(argv)
    assert stopped.value.code == 2
    assert f"unrecognized arguments: {refused}" in capsys.readouterr().err


def test_a_section_pattern_named_test_is_an_eval_option(repo_copy):
    copied = build_folder(repo_copy)
    result = build(repo_copy, "eval", "--only", "test", "--force")
    assert result.returncode == 1
    assert "error: --only test: matches no section" in result.stderr
    assert build_folder(repo_copy) == copied


# -- what a command's later steps need, checked before the first one works -------------------
LAUNCH_NEEDED = ("config.ini: the launch notebooks (and the site, which offers them) need a "
                 "[launch] section with github_repo = owner/name (or d2lbook's [colab] "
                 "github_repo) — add it")


def executable_book(tmp_path: Path, config: str) -> Path:
    """A small book with code to run and its library files (stubs: it saves nothing)."""
    root = write_book(tmp_path, {"chap/sec.md": md(DECLARE, """
        # Une section

        ```{.python .input}
        %%tab all
        print(6 * 7)
        ```
        """)}, config)
    (root / "d2l").mkdir()
    (root / "d2l" / "__init__.py").write_text('__version__ = "1.0.0"\n')
    for name in ("torch", "mxnet", "tensorflow"):
        (root / "d2l" / f"{name}.py").write_text(f"# {name} library\n")
    return root


@pytest.mark.parametrize("command", [["html"], ["launch"], []], ids=["html", "launch", "all"])
def test_a_missing_launch_section_stops_the_commands_that_need_it_before_any_work(
        tmp_path, command):
    root = executable_book(tmp_path, CONFIG.replace("[launch]\ngithub_repo = owner/book\n", ""))
    result = build(REPO, "-C", str(root), *command)
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"error: {LAUNCH_NEEDED}" in result.stderr.split("\n")
    assert not (root / "_build").exists()   # nothing split, executed or written


def test_a_missing_library_file_stops_eval_before_any_work(tmp_path):
    root = executable_book(tmp_path, CONFIG)
    (root / "d2l" / "torch.py").unlink()
    line = CONFIG.split("\n").index("lib_file = d2l/torch.py") + 1
    for command in (["eval", "--tab", "pytorch"], ["html"]):
        result = build(REPO, "-C", str(root), *command)
        assert result.returncode == 1, result.stdout + result.stderr
        assert result.stderr.split("\n")[-2:] == [
            f"error: config.ini:{line}: [library-pytorch] lib_file = 'd2l/torch.py': no such "
            "file, and the pytorch notebooks import it — generate it with `python3 build.py lib`",
            ""]
        assert not (root / "_build").exists()


# -- what a command loads -------------------------------------------------------------------
NOTEBOOK_STAGES = {"nbformat", "jinja2", "pygments", "jupyter_client", "nbclient", "pikepdf"}
"""What reading and checking a book never needs: notebooks, templates, highlighting,
kernels, PDFs (a third of a small book's `check` when they were loaded anyway)."""


def loaded_modules(root: Path, *args: str) -> set[str]:
    """The top-level packages `build.py *args` imports in `root` (Python's -X importtime)."""
    result = subprocess.run([sys.executable, "-X", "importtime", str(REPO / "build.py"),
                             "-C", str(root), *args], capture_output=True, text=True,
                            env=dict(os.environ, TABBOOK_USE_CURRENT_PYTHON="1"))
    assert result.returncode == 0, result.stderr
    return {line.rsplit("|", 1)[1].strip().split(".")[0]
            for line in result.stderr.split("\n") if line.startswith("import time:")}


def test_check_and_lib_load_no_notebook_stage(tmp_path):
    root = executable_book(tmp_path, CONFIG)
    for command in ("check", "lib"):
        assert not loaded_modules(root, command) & NOTEBOOK_STAGES, command
    # What the measure sees: a command that writes notebooks loads nbformat.
    assert "nbformat" in loaded_modules(root, "notebooks")


def test_eval_with_nothing_to_run_loads_no_kernel_client(tmp_path):
    """A prose edit runs nothing: Jupyter's client (0.4 s to import) is not loaded."""
    root = executable_book(tmp_path, CONFIG)
    (root / "chapters" / "chap" / "sec.md").write_text(md(DECLARE, """
        # Une section

        Rien à exécuter.
        """), encoding="utf-8")
    loaded = loaded_modules(root, "eval")
    assert "nbformat" in loaded   # the notebooks written, none executed
    assert not loaded & {"jupyter_client", "nbclient", "zmq"}
