"""Unit tests of cli/selection.py: the tabs, sections and eval options a command's options
select, and the `UsageError` of each bad value."""
from __future__ import annotations

from pathlib import Path

import pytest

from tabbook.cli.options import parse_command_line
from tabbook.cli.selection import UsageError, eval_options, select, selected_sections, selected_tabs
from tabbook.core.config import load_config
from tabbook.source.parse import parse_book

from conftest import DECLARE, md, write_book

CHAPTER = md("""
    # Chapitre

    ```toc
    one
    two
    ```
    """)
GPU_DECLARATION = DECLARE.replace("%load_ext d2lbook.tab", "%load_ext d2lbook.tab\n#gpus(2)")


@pytest.fixture(scope="module")
def book_and_config(tmp_path_factory):
    root = write_book(tmp_path_factory.mktemp("book"), {
        "chap/index.md": CHAPTER,
        "chap/one.md": md("# Un", DECLARE),
        "chap/two.md": md("# Deux", GPU_DECLARATION)})
    config = load_config(root)
    book, problems = parse_book(config)
    assert not problems, problems
    return book, config


def names(sections) -> list[str]:
    return [section.name for section in sections]


def test_tabs_default_to_the_books_and_keep_the_order_asked(book_and_config):
    _, config = book_and_config
    assert selected_tabs(config, None) == ("pytorch", "mxnet", "tensorflow")
    assert selected_tabs(config, ["tensorflow", "pytorch", "tensorflow"]) == ("tensorflow",
                                                                             "pytorch")
    with pytest.raises(UsageError) as raised:
        selected_tabs(config, ["pytorch", "jax"])
    assert str(raised.value) == ("--tab jax: not a tab of this book (config.ini [build] tabs: "
                                 "pytorch, mxnet, tensorflow)")


def test_sections_by_pattern_in_book_order(book_and_config):
    book, _ = book_and_config
    assert names(selected_sections(book, None)) == ["index", "chap/index", "chap/one",
                                                    "chap/two"]
    # By name, by path, by display path; in book order whatever the patterns' order.
    assert names(selected_sections(book, ["chapters/chap/two.md", "chap/o*"])) == [
        "chap/one", "chap/two"]
    assert names(selected_sections(book, ["chap/one.md"])) == ["chap/one"]
    with pytest.raises(UsageError, match=r"^--only chap/three: matches no section \(patterns "
                       r"match e\.g\. 'chapter_gpu/use-gpu' or 'chapter_gpu/\*'\)$"):
        selected_sections(book, ["chap/one", "chap/three"])


def test_gpu_only_keeps_the_sections_declaring_gpus(book_and_config):
    book, _ = book_and_config
    assert names(selected_sections(book, None, gpu_only=True)) == ["chap/two"]
    with pytest.raises(UsageError, match=r"^--only chap/one: matches no section declaring "
                       r"#gpus\(N\) "):
        selected_sections(book, ["chap/one"], gpu_only=True)


def test_no_section_declaring_gpus(tmp_path):
    root = write_book(tmp_path, {"chap/sec.md": md("# S", DECLARE)})
    book, _ = parse_book(load_config(root))
    with pytest.raises(UsageError, match=r"^--gpu-only: no section declares #gpus\(N\)$"):
        selected_sections(book, None, gpu_only=True)


def test_select_from_the_command_line(book_and_config):
    book, config = book_and_config
    whole = select(book, config, parse_command_line(["html"]))
    assert not whole.partial and whole.tabs == ("pytorch", "mxnet", "tensorflow")
    some = select(book, config, parse_command_line(["eval", "--only", "chap/two",
                                                    "--tab", "mxnet"]))
    assert some.partial
    assert [(section.name, tab) for section, tab in some.pairs()] == [("chap/two", "mxnet")]


def test_eval_options(book_and_config):
    _, config = book_and_config
    options = eval_options(config, parse_command_line(
        ["eval", "-j", "3", "--python", "mxnet=/opt/py/bin/python"]))
    assert (options.jobs, options.pythons) == (3, {"mxnet": Path("/opt/py/bin/python")})
    assert eval_options(config, parse_command_line(["eval"])).jobs >= 1
    with pytest.raises(UsageError, match=r"^-j 0: the number of kernels at once must be at "
                       r"least 1 \(leave -j out"):
        eval_options(config, parse_command_line(["eval", "-j", "0"]))
    with pytest.raises(UsageError, match=r"^--tab jax: not a tab of this book"):
        eval_options(config, parse_command_line(["eval", "--python", "jax=/usr/bin/python3"]))
