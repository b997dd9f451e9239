"""Prose edits execute nothing and lose no output; tab-scoped commands touch one tab.

On a copy of this repository with its execution cache (real kernels run only
what the cache lacks), paragraphs are inserted at the top and in the middle of
sections with code. Outputs follow their cells by cell id, not by .md line:
every page, launch notebook and executed notebook keeps all its outputs and
shows the new prose and the new line numbers.
"""
from __future__ import annotations

import fcntl
import os
import re
import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest

from conftest import build
from tabbook.output.typography import french

TABS = ("pytorch", "mxnet", "tensorflow")
SECTIONS = ("chapter_gpu/use-gpu", "chapter_gpu/measure", "chapter_foundations/training-api")


@pytest.fixture(scope="module")
def pythons(framework_pythons) -> list[str]:
    """--python options for this checkout's framework environments."""
    return [arg for tab in TABS for arg in ("--python", f"{tab}={framework_pythons[tab]}")]


class Outputs(HTMLParser):
    """The text (and image sources) of each output block of a page, in page order."""

    def __init__(self):
        super().__init__()
        self.blocks: list[str] = []
        self._depth = 0   # open <div>s inside the current output block; 0: outside

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if self._depth:
            self._depth += tag == "div"
            if tag == "img":
                self.blocks[-1] += f"[img {attrs.get('src')}]"
        elif tag == "div" and attrs.get("class") == "outputs":
            self._depth = 1
            self.blocks.append("")

    def handle_endtag(self, tag):
        if self._depth and tag == "div":
            self._depth -= 1

    def handle_data(self, data):
        if self._depth:
            self.blocks[-1] += data


def page_outputs(root: Path, name: str) -> list[str]:
    parser = Outputs()
    parser.feed((root / "_build" / "html" / f"{name}.html").read_text(encoding="utf-8"))
    return parser.blocks


def notebook(root: Path, stage: str, tab: str, name: str) -> nbformat.NotebookNode:
    return nbformat.read(root / "_build" / stage / tab / f"{name}.ipynb", as_version=4)


def code_outputs(nb: nbformat.NotebookNode) -> list[list[dict]]:
    """The outputs of each code cell, without the execution-specific fields."""
    return [[{k: v for k, v in output.items() if k != "execution_count"}
             for output in cell.outputs] for cell in nb.cells if cell.cell_type == "code"]


def markdown(nb: nbformat.NotebookNode) -> str:
    return "\n".join(cell.source for cell in nb.cells if cell.cell_type == "markdown")


def snapshot(root: Path) -> dict:
    """Each edited section's HTML outputs and launch notebook outputs per tab."""
    return {name: {"html": page_outputs(root, name),
                   **{tab: code_outputs(notebook(root, "launch", tab, name)) for tab in TABS}}
            for name in SECTIONS}


def insert_prose(path: Path, marker: str) -> list[str]:
    """Two paragraphs after the first paragraph, one before a heading in the middle.

    Returns the inserted paragraphs.
    """
    lines = path.read_text(encoding="utf-8").split("\n")
    fenced, inside = [], False
    for line in lines:
        if line.startswith("```"):
            inside = not inside
        fenced.append(inside or line.startswith("```"))
    title = next(i for i, line in enumerate(lines) if line.startswith("# ") and not fenced[i])
    start = next(i for i in range(title + 1, len(lines))
                 if lines[i].strip() and not lines[i].startswith(":"))
    end = lines.index("", start)
    headings = [i for i, line in enumerate(lines) if line.startswith("## ") and not fenced[i]]
    middle = headings[len(headings) // 2]
    top = [f"Premier paragraphe ajouté ({marker}) : le texte change, le code non.",
           f"Second paragraphe ajouté ({marker}), en haut de la section."]
    below = f"Paragraphe ajouté au milieu ({marker}), avant un intertitre."
    lines[middle:middle] = [below, ""]
    lines[end:end] = ["", top[0], "", top[1]]
    path.write_text("\n".join(lines), encoding="utf-8")
    return [*top, below]


@pytest.fixture(scope="module")
def edited(built_copy, pythons):
    """The book built, then rebuilt after prose insertions: (root, before, inserted, rebuild)."""
    root = built_copy()
    first = build(root, "html", *pythons)
    assert first.returncode == 0, first.stdout + first.stderr
    before = snapshot(root)
    inserted = {name: insert_prose(root / "chapters" / f"{name}.md", name.split("/")[-1])
                for name in SECTIONS}
    rebuild = build(root, "html", *pythons)
    assert rebuild.returncode == 0, rebuild.stdout + rebuild.stderr
    return root, before, inserted, rebuild


def test_a_prose_edit_executes_nothing(edited):
    _, _, _, rebuild = edited
    # Every result comes from the cache or from frozen/ (the GPU sections' PyTorch outputs).
    assert re.search(r"^eval: 0 ran, \d+ cached, \d+ frozen, 0 failed", rebuild.stdout, re.M), \
        rebuild.stdout


@pytest.mark.parametrize("name", SECTIONS)
def test_each_page_keeps_every_output_and_shows_the_new_prose(edited, name):
    root, before, inserted, _ = edited
    outputs = page_outputs(root, name)
    assert len(before[name]["html"]) >= 10
    assert outputs == before[name]["html"]
    page = (root / "_build" / "html" / f"{name}.html").read_text(encoding="utf-8")
    for paragraph in inserted[name]:   # shown in French typography
        assert f"<p>{french(paragraph)}</p>" in page


@pytest.mark.parametrize("name", SECTIONS)
@pytest.mark.parametrize("tab", TABS)
def test_each_launch_notebook_keeps_every_output_and_shows_the_new_prose(edited, name, tab):
    root, before, inserted, _ = edited
    launch = notebook(root, "launch", tab, name)
    assert code_outputs(launch) == before[name][tab]
    assert sum(map(len, before[name][tab])) >= 3
    text = markdown(launch)   # launch notebooks read in French typography, as pages do
    assert all(french(paragraph) in text for paragraph in inserted[name])


@pytest.mark.parametrize("name", SECTIONS)
@pytest.mark.parametrize("tab", TABS)
def test_executed_notebooks_carry_the_new_prose_and_md_lines(edited, name, tab):
    root, _, inserted, _ = edited
    executed = notebook(root, "eval", tab, name)
    assert all(paragraph in markdown(executed) for paragraph in inserted[name])
    md = (root / "chapters" / f"{name}.md").read_text(encoding="utf-8").split("\n")
    cells = [c for c in executed.cells if c.cell_type == "code"]
    assert cells and all(cell.outputs or cell.execution_count for cell in cells)
    for cell in cells:
        lines = cell.metadata["tabbook"]["lines"]
        assert [md[n - 1].strip() for n in lines] == \
            [line.strip() for line in cell.source.split("\n")]


def notebook_files(root: Path, stage: str, tabs: tuple[str, ...]) -> dict[str, bytes]:
    """The notebooks of `tabs` in _build/`stage`, with their bytes."""
    base = root / "_build" / stage
    return {p.relative_to(base).as_posix(): p.read_bytes()
            for tab in tabs for p in sorted((base / tab).rglob("*.ipynb"))}


@pytest.mark.parametrize("command", ["launch", "html"])
def test_one_tab_keeps_the_other_tabs_launch_notebooks(edited, pythons, command):
    root = edited[0]
    others = notebook_files(root, "launch", ("mxnet", "tensorflow"))
    assert len(others) > 10
    result = build(root, command, "--tab", "pytorch", *pythons)
    assert result.returncode == 0, result.stdout + result.stderr
    assert notebook_files(root, "launch", ("mxnet", "tensorflow")) == others
    assert notebook_files(root, "launch", ("pytorch",))


def test_notebooks_for_one_tab_keep_the_other_tabs_notebooks(edited):
    root = edited[0]
    assert build(root, "notebooks").returncode == 0
    others = notebook_files(root, "notebooks", ("mxnet", "tensorflow"))
    stale = root / "_build" / "notebooks" / "pytorch" / "chapter_gpu" / "old.ipynb"
    stale.write_text("{}")
    result = build(root, "notebooks", "--tab", "pytorch")
    assert result.returncode == 0, result.stdout + result.stderr
    assert notebook_files(root, "notebooks", ("mxnet", "tensorflow")) == others
    assert not stale.exists() and "1 stale removed" in result.stdout


def build_files(root: Path) -> dict[str, int]:
    return {p.relative_to(root).as_posix(): p.stat().st_mtime_ns
            for p in (root / "_build").rglob("*") if p.is_file() and p.name != ".lock"}


@pytest.mark.parametrize("command", [["notebooks"], ["eval"], ["launch"], ["html"], []])
def test_every_command_that_writes_build_waits_for_the_lock(edited, pythons, command):
    root = edited[0]
    (root / "chapters" / "chapter_gpu" / "use-gpu.md").write_text(
        (root / "chapters" / "chapter_gpu" / "use-gpu.md").read_text(encoding="utf-8")
        + f"\nUne ligne de plus pour {' '.join(command) or 'la construction'}.\n",
        encoding="utf-8")
    before = build_files(root)
    lock = open(root / "_build" / ".lock", "w")
    fcntl.flock(lock, fcntl.LOCK_EX)   # as another build would
    process = subprocess.Popen(
        [sys.executable, str(root / "build.py"), *command,
         *(pythons if command != ["notebooks"] else [])],
        cwd=root, env=dict(os.environ, TABBOOK_USE_CURRENT_PYTHON="1"),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert process.stdout.readline().startswith("waiting for another build")
        time.sleep(2)
        assert process.poll() is None and build_files(root) == before
        lock.close()
        output = process.communicate(timeout=600)[0]
    finally:
        lock.close()
        process.kill()
    assert process.returncode == 0, output
    assert build_files(root) != before   # it did write, once the lock was free
