"""Launch notebooks: structure, links, --out, and a platform-like run per framework."""
from __future__ import annotations

import ast
import base64
import errno
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import nbformat
import pytest
import yaml

from conftest import (CONFIG, DECLARE, LINEAR_GROWTH, REPO, build, growth, md,
                      raising_on_call, with_build_system, write_book)
from tabbook.bootstrap.records import read_record
from tabbook.cli.console import Console
from tabbook.cli.main import reporting
from tabbook.core.config import load_config
from tabbook.execution.kernels import write_kernel_spec
from tabbook.core.layout import Layout
from tabbook.output import launch
from tabbook.output.launch import (OUT_MARKER, OutError, copy_tree, launch_links,
                            library_requirement, make_launch_notebook, write_launch_notebooks)
from tabbook.notebooks.library import library_tag, library_version, write_libraries
from tabbook.source.numbering import number_book
from tabbook.source.parse import parse_book
from tabbook.notebooks.split import split_section

GPU_SECTION = DECLARE.replace("%load_ext", "#gpus(1)\n#required_libs('pandas==2.3.3')\n%load_ext") + """
# Sur le GPU
:label:`sec_gpu`

![Deux GPU](../../img/deux.svg)

```{.python .input}
print(1)
```
"""
CPU_SECTION = DECLARE + """
# Sur le CPU

![Schéma](https://example.org/schema.png)

Voir :numref:`sec_gpu`.

```{.python .input}
%%tab all
print(2)
```
"""
PROSE_SECTION = "# Rien à exécuter\n\nDu texte.\n"
CHAPTER = "# Chapitre\n\n```toc\ngpu\ncpu\nprose\n```\n"


@pytest.fixture
def small_book(tmp_path):
    root = write_book(tmp_path, {"chap/index.md": CHAPTER, "chap/gpu.md": GPU_SECTION,
                                 "chap/cpu.md": CPU_SECTION, "chap/prose.md": PROSE_SECTION})
    (root / "img").mkdir()
    (root / "img" / "deux.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>")
    shutil.copy(REPO / "pyproject.toml", root / "pyproject.toml")
    config = load_config(root)
    book, problems = parse_book(config)
    assert not problems
    sections = {s.name: s for s in book.pages()}
    return config, sections, number_book(book)


def executed(section, tab):
    """A split notebook with the provenance the execute stage adds."""
    notebook = split_section(section, tab)
    notebook.metadata["tabbook"]["provenance"] = {
        "date": "2026-11-21T10:00:00+00:00", "framework": tab, "framework_version": "9.9",
        "python": "3.11.7", "devices": "CPU", "cell_seconds": [0.1], "total_seconds": 0.1}
    return notebook


def test_setup_cell_first_and_gpu_metadata_exactly_with_gpus(small_book):
    config, sections, numbers = small_book
    for name, gpus in (("chap/gpu", True), ("chap/cpu", False)):
        for tab in config.build.tabs:
            notebook = make_launch_notebook(executed(sections[name], tab), config, tab,
                                            sections[name], numbers)
            nbformat.validate(notebook)
            assert notebook.cells[0].cell_type == "markdown"
            setup = notebook.cells[1]
            assert setup.cell_type == "code" and setup.source.startswith("# Setup for Colab")
            requirement = library_requirement(config, library_version(config))
            assert requirement in setup.source
            assert re.search(r"owner/book@v1\.0\.0-d2l\.[0-9a-f]{12}\Z", requirement)
            assert notebook.metadata["kernelspec"]["name"] == "python3"
            # MXNet cannot use the platforms' GPUs (nor run there): no GPU to ask for.
            asks = gpus and tab != "mxnet"
            assert ("accelerator" in notebook.metadata) is asks
            assert ("kaggle" in notebook.metadata) is asks
            assert "mxnet==" in setup.source if tab == "mxnet" else "mxnet" not in setup.source
            assert ("pandas==2.3.3" in setup.source) is gpus
            assert "exécuté le 21/11/2026 à 10:00 UTC" in notebook.cells[0].source
            compile(setup.source, "setup", "exec")
            assert not any("tabbook" in c.metadata for c in notebook.cells)


def test_no_relative_image_path(small_book):
    config, sections, numbers = small_book
    notebook = make_launch_notebook(executed(sections["chap/gpu"], "pytorch"), config,
                                    "pytorch", sections["chap/gpu"], numbers)
    text = "\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")
    assert "](https://owner.github.io/book/img/deux.svg)" in text
    cpu = make_launch_notebook(executed(sections["chap/cpu"], "mxnet"), config, "mxnet",
                               sections["chap/cpu"], numbers)
    assert "](https://example.org/schema.png)" in cpu.cells[2].source
    for cell in (*notebook.cells, *cpu.cells):
        for path in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", cell.source):
            assert path.startswith("https://"), path


def test_references_become_links_to_the_published_book(small_book):
    config, sections, numbers = small_book
    notebook = make_launch_notebook(executed(sections["chap/cpu"], "pytorch"), config,
                                    "pytorch", sections["chap/cpu"], numbers)
    text = "\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")
    assert "Voir [section 1.1](https://owner.github.io/book/chap/gpu.html#sec_gpu)." in text
    gpu = make_launch_notebook(executed(sections["chap/gpu"], "pytorch"), config,
                               "pytorch", sections["chap/gpu"], numbers)
    assert ":label:" not in "\n".join(c.source for c in gpu.cells if c.cell_type == "markdown")


def test_roles_in_code_stay_text_in_launch_notebooks(small_book):
    config, sections, numbers = small_book
    notebook = executed(sections["chap/cpu"], "pytorch")
    notebook.cells.append(nbformat.v4.new_markdown_cell(
        "Écrire `` :numref:`sec_gpu` `` donne :numref:`sec_gpu`.\n\n"
        "```\n:numref:`sec_gpu`\n![Deux](../../img/deux.svg)\n```"))
    launch = make_launch_notebook(notebook, config, "pytorch", sections["chap/cpu"], numbers)
    assert launch.cells[-1].source == (
        "Écrire `` :numref:`sec_gpu` `` donne "
        "[section 1.1](https://owner.github.io/book/chap/gpu.html#sec_gpu).\n\n"
        "```\n:numref:`sec_gpu`\n![Deux](../../img/deux.svg)\n```")


def test_links_for_one_section_each_framework(small_book):
    config, sections, numbers = small_book
    for tab in config.build.tabs:
        links = launch_links(config, tab, sections["chap/gpu"])
        assert links.colab == ("https://colab.research.google.com/github/owner/book/blob/"
                               f"main/{tab}/chap/gpu.ipynb")
        assert links.kaggle == ("https://www.kaggle.com/kernels/welcome?src=https://github.com/"
                                f"owner/book/blob/main/{tab}/chap/gpu.ipynb")


def test_write_skips_prose_pages_and_reports_missing_executions(small_book, tmp_path):
    config, sections, numbers = small_book
    layout = Layout(config.root)
    for name in ("chap/gpu", "chap/prose"):
        path = layout.executed("pytorch", sections[name])
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(executed(sections[name], "pytorch"), path)
    pairs = [(sections[n], t) for n in ("chap/gpu", "chap/cpu", "chap/prose")
             for t in ("pytorch",)]
    result = write_launch_notebooks(config, numbers, pairs, layout)
    assert [p.relative_to(config.root).as_posix() for p in result.written] == \
        ["_build/launch/pytorch/chap/gpu.ipynb"]
    assert [(s.name, t) for s, t in result.missing] == [("chap/cpu", "pytorch")]
    again = write_launch_notebooks(config, numbers, pairs, layout)
    assert not again.written and len(again.unchanged) == 1


def test_a_launch_notebook_is_made_again_exactly_when_what_it_comes_from_changed(small_book):
    config, sections, numbers = small_book
    layout, section = Layout(config.root), sections["chap/gpu"]
    source = layout.executed("pytorch", section)
    source.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(executed(section, "pytorch"), source)
    pairs = [(section, "pytorch")]

    def written() -> int:
        return len(write_launch_notebooks(config, numbers, pairs, layout).written)

    target = layout.launch_notebook("pytorch", section)
    assert written() == 1 and written() == 0
    original = target.read_text()
    target.write_text(original.replace("Setup for Colab", "Edited by hand"))
    assert written() == 1 and target.read_text() == original     # an edit is undone
    target.unlink()
    assert written() == 1 and target.read_text() == original     # a deletion too
    notebook = executed(section, "pytorch")
    notebook.cells[-1].source += "\n\nUne phrase de plus."
    nbformat.write(notebook, source)
    assert written() == 1 and "Une phrase de plus." in target.read_text()
    assert written() == 0
    config_file = config.root / "config.ini"
    config_file.write_text(config_file.read_text().replace("release = 1.0.0", "release = 1.0.1"))
    newer = load_config(config.root)
    assert len(write_launch_notebooks(newer, numbers, pairs, layout).written) == 1
    assert "1.0.1" in target.read_text()
    # A change to d2l/torch.py changes what the notebook installs.
    installed = library_requirement(newer, library_version(newer))
    torch_file = config.root / "d2l" / "torch.py"
    torch_file.parent.mkdir()
    torch_file.write_text("def bonjour():\n    return 'bonjour'\n")
    assert len(write_launch_notebooks(newer, numbers, pairs, layout).written) == 1
    changed = library_requirement(newer, library_version(newer))
    assert changed != installed and installed not in target.read_text()
    assert json.dumps(changed)[1:-1] in target.read_text()
    torch_file.write_text(torch_file.read_text().replace("'bonjour'", "'salut'"))
    assert len(write_launch_notebooks(newer, numbers, pairs, layout).written) == 1
    assert library_requirement(newer, library_version(newer)) not in (installed, changed)


def test_out_replaces_only_folders_it_wrote(tmp_path):
    source = tmp_path / "launch"
    (source / "pytorch").mkdir(parents=True)
    (source / "pytorch" / "a.ipynb").write_text("{}")
    out = tmp_path / "public"
    assert copy_tree(source, out) == 1
    (out / "old.ipynb").write_text("{}")
    assert copy_tree(source, out) == 1 and not (out / "old.ipynb").exists()
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    with pytest.raises(OutError, match="was not written by build.py"):
        copy_tree(source, mine)
    assert (mine / "notes.txt").read_text() == "keep me"
    assert (out / OUT_MARKER).is_file()


# -- launch notebooks that repair themselves -------------------------------------------
def launch_book(root: Path):
    """A book in `root` with the executed PyTorch notebooks of its two code sections; what
    `write_launch_notebooks` takes, then the layout."""
    root.mkdir(exist_ok=True)
    write_book(root, {"chap/index.md": CHAPTER, "chap/gpu.md": GPU_SECTION,
                      "chap/cpu.md": CPU_SECTION, "chap/prose.md": PROSE_SECTION})
    (root / "img").mkdir(exist_ok=True)
    (root / "img" / "deux.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>")
    shutil.copy(REPO / "pyproject.toml", root / "pyproject.toml")
    return loaded_launch_book(root)


def loaded_launch_book(root: Path):
    config = load_config(root)
    book, problems = parse_book(config)
    assert not problems
    layout = Layout(root)
    sections = {s.name: s for s in book.pages()}
    pairs = [(sections[name], "pytorch") for name in ("chap/gpu", "chap/cpu")]
    for section, tab in pairs:
        path = layout.executed(tab, section)
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(executed(section, tab), path)
    return (config, number_book(book), pairs), layout


def launch_files(layout: Layout) -> dict[str, bytes]:
    return {p.relative_to(layout.launch).as_posix(): p.read_bytes()
            for p in layout.launch.rglob("*") if p.is_file()}


def temporaries(layout: Layout) -> list[Path]:
    return sorted(layout.build.rglob("*.tmp"))


@pytest.mark.parametrize("record", [b"\xff\xfe not UTF-8", b"{not json", b"[]", b"null",
                                    b'"a string"'])
def test_a_damaged_launch_record_is_a_missing_one(tmp_path, record):
    arguments, layout = launch_book(tmp_path)
    assert len(write_launch_notebooks(*arguments, layout).written) == 2
    written = launch_files(layout)
    layout.launch_record.write_bytes(record)
    again = write_launch_notebooks(*arguments, layout)
    assert not again.written and len(again.unchanged) == 2
    assert set(read_record(layout.launch_record)) == \
        {"_build/launch/pytorch/chap/gpu.ipynb", "_build/launch/pytorch/chap/cpu.ipynb"}
    assert launch_files(layout) == written


def test_a_damaged_launch_notebook_is_written_again(tmp_path):
    arguments, layout = launch_book(tmp_path)
    write_launch_notebooks(*arguments, layout)
    written = launch_files(layout)
    notebook = layout.launch / "pytorch" / "chap" / "gpu.ipynb"
    notebook.write_bytes(b'{"cells": "caf\xe9"}')   # not UTF-8
    assert write_launch_notebooks(*arguments, layout).written == [notebook]
    assert launch_files(layout) == written


def test_a_moved_book_keeps_its_launch_record(tmp_path):
    arguments, layout = launch_book(tmp_path / "book")
    write_launch_notebooks(*arguments, layout)
    record = layout.launch_record.read_bytes()
    shutil.move(tmp_path / "book", tmp_path / "moved")
    arguments, layout = loaded_launch_book(tmp_path / "moved")
    assert len(write_launch_notebooks(*arguments, layout).unchanged) == 2
    assert layout.launch_record.read_bytes() == record   # same fingerprints: not rewritten


def test_a_killed_writes_temporary_leaves_the_published_tree(tmp_path):
    arguments, layout = launch_book(tmp_path)
    write_launch_notebooks(*arguments, layout, prune=("pytorch",))
    stray = layout.launch / "pytorch" / "chap" / ".gpu.ipynb.123.456.tmp"
    stray.write_text("{half")
    write_launch_notebooks(*arguments, layout, prune=("pytorch",))
    assert not stray.exists()


def filling_the_disk(write):
    """`write` (a Path method) on a disk where half of what is written fits."""
    def full_disk(path, data, *args, **kwargs):
        write(path, data[:len(data) // 2], *args, **kwargs)
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))   # as write() does: no file
    return full_disk


def test_a_full_disk_keeps_the_previous_notebook_and_leaves_no_temporary(tmp_path, capsys):
    arguments, layout = launch_book(tmp_path)
    write_launch_notebooks(*arguments, layout)
    written = launch_files(layout)
    config_file = tmp_path / "config.ini"
    config_file.write_text(config_file.read_text().replace("1.0.0", "1.0.1"))
    arguments, layout = loaded_launch_book(tmp_path)
    with pytest.MonkeyPatch.context() as patch:
        for method in ("write_text", "write_bytes"):
            patch.setattr(Path, method, filling_the_disk(getattr(Path, method)))
        status = reporting(lambda: write_launch_notebooks(*arguments, layout), Console())
    err = capsys.readouterr().err
    notebook = layout.launch / "pytorch" / "chap" / "gpu.ipynb"
    assert status == 1 and "Traceback" not in err
    assert f"error: cannot write {notebook}: no space left on device — free some space" in err
    assert launch_files(layout) == written and temporaries(layout) == []


def test_ctrl_c_during_launch_leaves_whole_notebooks_only(tmp_path, capsys):
    arguments, layout = launch_book(tmp_path)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(launch, "make_launch_notebook",
                      raising_on_call(1, KeyboardInterrupt(), make_launch_notebook))
        status = reporting(lambda: write_launch_notebooks(*arguments, layout), Console())
    err = capsys.readouterr().err
    assert status == 130 and "interrupted" in err and "Traceback" not in err
    assert list(launch_files(layout)) == ["pytorch/chap/gpu.ipynb"] and temporaries(layout) == []
    nbformat.validate(nbformat.read(layout.launch / "pytorch/chap/gpu.ipynb", as_version=4))
    assert len(write_launch_notebooks(*arguments, layout).written) == 1   # cpu, now


# -- the d2l that launch notebooks install -------------------------------------
# The CPU section, with nothing loaded from outside the book (`lib --tag` checks it), and
# a definition saved in d2l.
SAVING_SECTION = CPU_SECTION.replace("![Schéma](https://example.org/schema.png)", "") + """
```{.python .input}
def bonjour():  #@save
    return 'bonjour'
```
"""
GIT_IDENTITY = {"GIT_AUTHOR_NAME": "test", "GIT_AUTHOR_EMAIL": "test@example.org",
                "GIT_COMMITTER_NAME": "test", "GIT_COMMITTER_EMAIL": "test@example.org"}


def git(where: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=where, check=True, capture_output=True, text=True,
                          env=dict(os.environ, **GIT_IDENTITY)).stdout.strip()


def publish_tag_step() -> str:
    """The publish workflow's step that tags the d2l the launch notebooks install."""
    workflow = yaml.safe_load((REPO / ".github" / "workflows" / "publish.yml").read_text())
    (step,) = [s for s in workflow["jobs"]["build"]["steps"] if "lib --tag" in s.get("run", "")]
    return step["run"]


def run_publish_tag_step(book: Path) -> subprocess.CompletedProcess:
    """That step, run by bash in `book` (a clone whose origin stands for GitHub), as the
    workflow's runner runs it: `python3` is this build's interpreter."""
    bin_dir = Path(sys.executable).parent
    env = dict(os.environ, **GIT_IDENTITY, TABBOOK_USE_CURRENT_PYTHON="1",
               PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    if not (bin_dir / "python3").exists():
        pytest.fail(f"{bin_dir} has no python3 for the workflow's step")
    return subprocess.run(["bash", "-e", "-c", publish_tag_step()], cwd=book, env=env,
                          capture_output=True, text=True, timeout=600)


def wheel_at(origin: Path, tag: str, out: Path) -> Path:
    """The wheel pip would build from `origin` at `tag`: the name and dependencies of its
    pyproject.toml, the version of its d2l/__init__.py (setuptools' ``attr``), its d2l
    files. Written here because this offline suite has no build backend that makes
    wheels (setuptools needs `wheel` or a download); what is tested is the setup cell."""
    files = git(origin, "ls-tree", "-r", "--name-only", tag, "--", "d2l").split("\n")
    project = tomllib.loads(git(origin, "show", f"{tag}:pyproject.toml"))["project"]
    init = git(origin, "show", f"{tag}:d2l/__init__.py")
    version = re.search(r'^__version__ = "(.+)"$', init, re.M).group(1)
    name = project["name"].replace("-", "_")
    info = f"{name}-{version}.dist-info"
    contents = {path: git(origin, "show", f"{tag}:{path}") + "\n" for path in files}
    contents[f"{info}/METADATA"] = "".join(
        [f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {version}\n",
         *(f"Requires-Dist: {d}\n" for d in project["dependencies"])])
    contents[f"{info}/WHEEL"] = "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n" \
                                "Tag: py3-none-any\n"
    record = []
    for path, text in contents.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=")
        record.append(f"{path},sha256={digest.decode()},{len(text.encode())}")
    contents[f"{info}/RECORD"] = "\n".join([*record, f"{info}/RECORD,,"]) + "\n"
    wheel = out / f"{name}-{version}-py3-none-any.whl"
    out.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(wheel, "w") as archive:
        for path, text in contents.items():
            archive.writestr(path, text)
    return wheel


def offline_venv(where: Path) -> Path:
    """A new venv, with the pip that Python bundles: nothing downloaded."""
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True, capture_output=True)
    return where / "bin" / "python"


def run_in(python: Path, code: str, cwd: Path) -> subprocess.CompletedProcess:
    """`code` run by `python`, offline: d2l's dependencies (NumPy and Matplotlib, which Colab
    ships) are left out of what pip installs, and it has no index to ask."""
    env = dict(os.environ, PIP_NO_INDEX="1", PIP_NO_DEPS="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    env.pop("PYTHONPATH", None)
    return subprocess.run([str(python), "-c", code], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)


INSTALLED = ("import importlib.metadata, d2l; from d2l import torch; "
             "print(importlib.metadata.version('gpu-dl-book-d2l'), d2l.__version__, "
             "getattr(torch, 'bonjour', lambda: 'absent')())")


def test_the_published_tag_holds_the_executed_d2l_and_the_setup_cell_replaces_an_older_one(
        tmp_path):
    # GitHub, and a clone holding the book published once with today's 1.0.0 (one tag per
    # release, whatever d2l held).
    origin, book = tmp_path / "origin.git", tmp_path / "book"
    git(tmp_path, "init", "--quiet", "--bare", str(origin))
    book.mkdir()
    with_build_system(write_book(book, {
        "chap/index.md": CHAPTER, "chap/gpu.md": GPU_SECTION, "chap/cpu.md": SAVING_SECTION,
        "chap/prose.md": PROSE_SECTION}))
    (book / "img").mkdir()
    (book / "img" / "deux.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>")
    shutil.copy(REPO / "pyproject.toml", book)
    (book / "README.md").write_text("# Le livre\n")
    (book / "d2l" / "__init__.py").write_text('__version__ = "1.0.0"\n')
    git(book, "init", "--quiet", "-b", "main")
    git(book, "remote", "add", "origin", origin.as_uri())
    git(book, "add", "-A")
    git(book, "commit", "--quiet", "-m", "Published as 1.0.0")
    git(book, "tag", "v1.0.0")
    git(book, "push", "--quiet", "origin", "main", "v1.0.0")
    old_wheel = wheel_at(origin, "v1.0.0", tmp_path / "old")

    # The book saves bonjour() in d2l: `build.py lib`, committed, then the workflow's step.
    config = load_config(book)
    book_model, problems = parse_book(config)
    assert not problems
    write_libraries(book_model, config)
    version = library_version(config)
    assert re.fullmatch(r"1\.0\.0\+d2l\.[0-9a-f]{12}", version)
    git(book, "commit", "--quiet", "-am", "bonjour")
    git(book, "push", "--quiet", "origin", "main")
    tagged = run_publish_tag_step(book)
    assert tagged.returncode == 0, tagged.stdout + tagged.stderr
    tag = library_tag(version)
    assert git(origin, "rev-parse", f"{tag}^{{commit}}") == git(book, "rev-parse", "HEAD")
    assert git(origin, "show", f"{tag}:d2l/torch.py") + "\n" == \
        (book / "d2l" / "torch.py").read_text()
    # Published again with the same d2l: the tag stays; a tag of that name holding
    # another d2l stops the workflow.
    assert run_publish_tag_step(book).returncode == 0
    git(origin, "tag", "-f", tag, "v1.0.0")
    wrong = run_publish_tag_step(book)
    assert wrong.returncode == 1 and f"tag {tag} exists with another d2l" in wrong.stdout
    git(origin, "tag", "-f", tag, git(book, "rev-parse", "HEAD"))

    # The launch notebook made from this book installs that tag.
    numbers = number_book(book_model)
    section = next(s for s in book_model.pages() if s.name == "chap/cpu")
    setup = make_launch_notebook(executed(section, "pytorch"), config, "pytorch", section,
                                 numbers).cells[1].source
    requirement = library_requirement(config, version)
    assert setup.count(requirement) == 1 and requirement.endswith(f"@{tag}")

    # A reader's environment where the older d2l is installed and imported: the setup cell
    # (the tag's wheel for the GitHub URL, as pip builds it) replaces it and says to restart.
    python, run = offline_venv(tmp_path / "venv"), tmp_path / "run"
    run.mkdir()
    assert run_in(python, f"import subprocess, sys; subprocess.run([sys.executable, '-m', "
                  f"'pip', 'install', '--quiet', {str(old_wheel)!r}], check=True)",
                  run).returncode == 0
    assert run_in(python, INSTALLED, run).stdout.split() == ["1.0.0", "1.0.0", "absent"]
    new_wheel = wheel_at(origin, requirement.rsplit("@", 1)[1], tmp_path / "new")
    offline_setup = setup.replace(requirement, f"gpu-dl-book-d2l @ {new_wheel.as_uri()}")
    first = run_in(python, "import d2l\n" + offline_setup, run)
    assert first.returncode == 0, first.stderr
    assert "Redémarrez la session" in first.stdout and "d2l" in first.stdout
    assert run_in(python, INSTALLED, run).stdout.split() == [version, version, "bonjour"]
    # Run again in a new session: the right d2l is there, nothing is installed.
    new_wheel.unlink()
    again = run_in(python, offline_setup, run)
    assert again.returncode == 0 and again.stdout == "", again.stderr


# -- platform-like runs ------------------------------------------------------
PLATFORM_SECTIONS = ["chapter_foundations/training-api", "chapter_gpu/use-gpu"]
QUIET = {"TF_CPP_MIN_LOG_LEVEL": "2", "TF_ENABLE_ONEDNN_OPTS": "0"}


def fresh_platform_venv(tab: str, where: Path) -> Path:
    """A new venv with only what Colab ships for `tab` (tests/platforms/colab-<tab>.txt)."""
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True)
    python = where / "bin" / "python"
    requirements = Path(__file__).parent / "platforms" / f"colab-{tab}.txt"
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                    "-r", str(requirements)], check=True, capture_output=True, text=True)
    return python


@pytest.mark.kernels
@pytest.mark.network
@pytest.mark.parametrize("tab", ["pytorch", "mxnet", "tensorflow"])
def test_launch_notebooks_run_top_to_bottom_in_a_platform_like_venv(tab, built_copy, tmp_path,
                                                                    framework_pythons, monkeypatch):
    from nbclient import NotebookClient

    root = built_copy()     # executed: launch runs nothing
    only = [arg for name in PLATFORM_SECTIONS for arg in ("--only", name)]
    python = framework_pythons[tab]
    result = build(root, "launch", "--tab", tab, *only, "--python", f"{tab}={python}",
                   "--out", str(tmp_path / "published"))
    assert result.returncode == 0, result.stdout + result.stderr
    platform_python = fresh_platform_venv(tab, tmp_path / "venv")
    jupyter = tmp_path / "jupyter"
    monkeypatch.setenv("JUPYTER_PATH", str(jupyter))
    kernel = "platform"
    write_kernel_spec(jupyter, kernel, platform_python, "platform", QUIET)
    config = load_config(root)
    requirement = library_requirement(config, library_version(config))
    local = f"gpu-dl-book-d2l @ file://{root}"
    for name in PLATFORM_SECTIONS:
        path = tmp_path / "published" / tab / f"{name}.ipynb"
        notebook = nbformat.read(path, as_version=4)
        setup = notebook.cells[1]
        # The one change the test makes: install d2l from this checkout, not GitHub.
        assert setup.source.count(requirement) == 1
        setup.source = setup.source.replace(requirement, local)
        workdir = tmp_path / "run" / name
        workdir.mkdir(parents=True)
        NotebookClient(notebook, timeout=600, kernel_name=kernel,
                       resources={"metadata": {"path": str(workdir)}}).execute()
        streams = "".join(o.get("text", "") for c in notebook.cells if c.cell_type == "code"
                          for o in c.outputs if o.output_type == "stream")
        assert "Traceback" not in streams
        assert not [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs
                    if o.output_type == "stream" and o.name == "stderr"], name
        if name.endswith("training-api"):
            assert "erreur sur w" in streams
    installed = subprocess.run([str(platform_python), "-m", "pip", "list", "--format=json"],
                               capture_output=True, text=True, check=True).stdout
    names = {p["name"].lower() for p in json.loads(installed)}
    assert "gpu-dl-book-d2l" in names
    assert ("mxnet" in names) is (tab == "mxnet")


def test_mxnet_setup_cell_stops_in_the_books_language_on_a_too_recent_python(small_book):
    config, sections, numbers = small_book
    notebook = make_launch_notebook(executed(sections["chap/gpu"], "mxnet"), config, "mxnet",
                                    sections["chap/gpu"], numbers)
    setup = notebook.cells[1].source
    assert "sys.version_info >= (3, 12)" in setup
    assert "MXNet demande Python 3.11 au plus" in setup.replace('"\n', "").replace(
        '                       "', "")
    assert "needs numpy" not in setup   # no English left in a French book's cell
    assert "Python 3.11 au plus" in notebook.cells[0].source   # the intro says where it runs
    assert "Settings › Internet" not in notebook.cells[0].source   # no platform set-up
    compile(setup, "setup", "exec")


def test_gpu_sentence_reads_d_un_gpu_in_french(small_book):
    from tabbook.core.language import Language
    from tabbook.output.launch import _gpu_text
    config, sections, numbers = small_book
    section = sections["chap/gpu"]
    text = Language("fr", "fr").plural("gpus", 1)
    assert Language("fr", "fr").text("launch_gpu", gpus=text).startswith(
        "Cette section tire parti d'un GPU.")
    assert "tire parti de un" not in _gpu_text("pytorch", section, config.project.language)


def test_launch_notebooks_prose_gets_french_typography_and_code_stays_as_written():
    from tabbook.core.language import Language
    from tabbook.output.launch import typeset_markdown
    source = ("# Titre : bon ?\n\nUn texte : avec `a : b`, $x : y$, [lien ?](http://a.b/c?d=1) "
              "et <http://x.y/?a> ; « oui » 1 200 Go.\n\n* item : :numref:`sec_x` ; deux\n\n"
              "```bash\nls  # commentaire : brut\n```\n")
    french = typeset_markdown(source, Language("fr", "fr"))
    narrow = "\u202f"
    assert f"# Titre{narrow}: bon{narrow}?" in french
    assert f"Un texte{narrow}: avec `a : b`, $x : y$, [lien{narrow}?](http://a.b/c?d=1)" in french
    assert "<http://x.y/?a>" in french and f"«{narrow}oui{narrow}»" in french
    assert f"item{narrow}: :numref:`sec_x`{narrow}; deux" in french
    assert "ls  # commentaire : brut" in french   # code: as written
    assert typeset_markdown(source, Language("en", "en")) == source   # French books only


# A short paragraph's worth of what the launch stage changes: a reference, French spacing
# (around an escape, beside code, math, an entity and links, which stay as written).
REPEATED = ("Voir :numref:`sec_gpu` ; `a : b` et $x : y$ donnent « oui » pour 1 200 Go, "
            "`c` « \\* » &amp; [lien](https://a.b/c?d) <https://e.f/?g> : fin. ")


def test_a_long_paragraph_takes_time_in_proportion_to_its_length(small_book):
    """Typesetting a paragraph and linking its references rebuilt it at each change
    (64 000 repetitions of a short pattern took 269 s): a paragraph eight times as long
    now takes about as long as eight short ones, not eight times that."""
    config, sections, numbers = small_book
    section = sections["chap/cpu"]

    def launch_notebook(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
        return make_launch_notebook(notebook, config, "pytorch", section, numbers)

    def with_paragraph(paragraph: str) -> nbformat.NotebookNode:
        notebook = executed(section, "pytorch")
        notebook.cells.append(nbformat.v4.new_markdown_cell(paragraph))
        return notebook

    def made_once(repetitions: int) -> nbformat.NotebookNode:
        # Words between the changes: the paragraph is long for little parsing (markdown-it's
        # share of the time, linear, done here once as for every tab after the first).
        notebook = with_paragraph(("Voir :numref:`sec_gpu` ; `a` " + "texte " * 40) * repetitions)
        launch_notebook(notebook)
        return notebook

    assert growth(launch_notebook, made_once, 150) < LINEAR_GROWTH
    narrow, link = "\u202f", "[section 1.1](https://owner.github.io/book/chap/gpu.html#sec_gpu)"
    shown = launch_notebook(with_paragraph(REPEATED * 3)).cells[-1].source
    assert shown == 3 * (f"Voir {link}{narrow}; `a : b` et $x : y$ donnent «{narrow}oui{narrow}» "
                         f"pour 1{narrow}200\u00a0Go, `c` «{narrow}\\*{narrow}» &amp; "
                         "[lien](https://a.b/c?d) "
                         f"<https://e.f/?g>{narrow}: fin. ")


# -- citations and captions, as the pages show them -------------------------------------
N = "\u202f"
CONFIG_NOT_EXECUTED = CONFIG.replace("warning_is_error = True\n",
                                     "warning_is_error = True\neval_notebook = False\n")
CITING_SECTION = md(DECLARE, """
    # Un modèle cité

    C'est *LoRA* :cite:`Hu.2022`, après :cite:`Knuth.1984, Hu.2022`.

    ![Le modèle coupé en deux : l'entrée et « la sortie »](../img/deux.svg)

    ```{.python .input}
    %%tab all
    print(1)
    ```
    """)
REFERENCES = md("# Bibliographie", ":bibliography:`../refs.bib`")
BIBTEX = """
@inproceedings{Hu.2022, author = {Hu, Edward J. and Shen, Yelong and Wallis, Phillip},
  title = {LoRA}, booktitle = {ICLR}, year = {2022}}
@book{Knuth.1984, author = {Knuth, Donald E.}, title = {The \\TeX book}, year = {1984}}
"""
CITED = ("([Hu et al., 2022](https://owner.github.io/book/chap/refs.html#bib-hu-2022))"
         f", après ([Knuth, 1984](https://owner.github.io/book/chap/refs.html#bib-knuth-1984)"
         f"{N}; [Hu et al., 2022](https://owner.github.io/book/chap/refs.html#bib-hu-2022)).")


def citing_book(root: Path, config: str = CONFIG_NOT_EXECUTED) -> Path:
    write_book(root, {"chap/index.md": "# Chapitre\n\n```toc\ncites\nrefs\n```\n",
                      "chap/cites.md": CITING_SECTION, "chap/refs.md": REFERENCES,
                      "refs.bib": BIBTEX}, config)
    (root / "chapters" / "img").mkdir()
    (root / "chapters" / "img" / "deux.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>")
    (root / "d2l").mkdir()
    (root / "d2l" / "__init__.py").write_text('__version__ = "0"\n')
    return root


def test_citations_and_captions_in_every_notebook_readers_get(tmp_path):
    """The launch notebooks and the site's downloadable copies: citations as on the page
    (author, year, a link to the published bibliography), captions in French typography.
    The split notebooks, which the build alone reads, keep the role as written."""
    root = citing_book(tmp_path)
    result = build(REPO, "-C", str(root), "html")
    assert result.returncode == 0, result.stdout + result.stderr
    built = root / "_build"
    shown = [*(built / "launch").rglob("*.ipynb"), *(built / "html" / "notebooks").rglob("*.ipynb")]
    assert len(shown) == 6   # the section with code, three frameworks, launched and downloadable
    for path in shown:
        prose = "\n".join(cell.source for cell in nbformat.read(path, as_version=4).cells
                          if cell.cell_type == "markdown")
        assert ":cite:" not in prose and ":bibliography:" not in prose, path
        assert f"C'est *LoRA* {CITED}" in prose, path
        assert f"![Le modèle coupé en deux{N}: l'entrée et «{N}la sortie{N}»]" in prose, path
    page = (built / "html" / "chap" / "cites.html").read_text(encoding="utf-8")
    assert 'href="refs.html#bib-hu-2022">Hu et al., 2022</a>' in page   # the same anchor
    assert ":cite:`Hu.2022`" in (built / "notebooks" / "pytorch" / "chap" / "cites.ipynb").read_text()


def test_a_bibliography_in_a_launch_notebook_is_its_list_of_works(tmp_path):
    root = citing_book(tmp_path, CONFIG)
    (root / "chapters" / "chap" / "cites.md").write_text(
        CITING_SECTION + "\nEt :cite:`Absent_1999`.\n\n" +
        REFERENCES.replace("# Bibliographie\n", "") + "\nFin.\n", encoding="utf-8")
    (root / "chapters" / "chap" / "refs.md").write_text("# Bibliographie\n\nAilleurs.\n")
    config = load_config(root)
    book, problems = parse_book(config)
    assert not [p for p in problems if not p.warning], problems
    section = {s.name: s for s in book.pages()}["chap/cites"]
    notebook = make_launch_notebook(executed(section, "pytorch"), config, "pytorch", section,
                                    number_book(book))
    prose = "\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")
    assert "([Hu et al., 2022](https://owner.github.io/book/chap/cites.html#bib-hu-2022))" in prose
    assert "Et (Absent\\_1999)." in prose   # an unknown key (a warning): shown as written
    assert ("1. Edward J. Hu, Yelong Shen et Phillip Wallis (2022). LoRA. ICLR.\n"
            "2. Donald E. Knuth (1984). The TeXbook.\n") in prose
    assert ":bibliography:" not in prose


def test_the_setup_cells_messages_are_in_the_books_typography(small_book):
    config, sections, numbers = small_book
    for tab in ("pytorch", "mxnet"):
        notebook = make_launch_notebook(executed(sections["chap/gpu"], tab), config, tab,
                                        sections["chap/gpu"], numbers)
        setup = notebook.cells[1].source
        assert f"(Colab{N}: Exécution" in setup and "Colab :" not in setup
        assert f"cellule suivante{N}:" in setup
        compile(setup, "setup", "exec")
    raised = next(node.args[0] for node in ast.walk(ast.parse(setup))
                  if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "RuntimeError")
    assert f"plus récent{N}: lancez" in ast.literal_eval(raised)   # MXNet's Python guard


def test_a_launch_notebook_is_made_again_when_a_cited_work_changes(tmp_path):
    root = citing_book(tmp_path, CONFIG)
    layout = Layout(root)

    def written() -> str:
        config = load_config(root)
        book, _ = parse_book(config)
        section = {s.name: s for s in book.pages()}["chap/cites"]
        source = layout.executed("pytorch", section)
        source.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(executed(section, "pytorch"), source)
        write_launch_notebooks(config, number_book(book), [(section, "pytorch")], layout)
        return layout.launch_notebook("pytorch", section).read_text(encoding="utf-8")

    assert "[Knuth, 1984]" in written()
    bib = root / "chapters" / "refs.bib"
    bib.write_text(bib.read_text().replace("{1984}", "{1986}"))
    assert "[Knuth, 1986]" in written()
