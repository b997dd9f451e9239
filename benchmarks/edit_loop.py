"""Benchmark of the edit loop: what a writer waits for, the rows of issue 42's table.

Run by hand: `.envs/tools/bin/python benchmarks/edit_loop.py [--runs N] [--rows a,b,…]`.
It works on a copy of this repository together with this checkout's whole `_build/`, with
the framework environments of this checkout (made by `python3 build.py` beforehand); one
full build of the copy settles it before anything is measured. Each row is run N times and its median printed, in seconds:

- `noop`: `python3 build.py` when nothing changed;
- `html-edit`: one sentence edited, then `build.py html`;
- `claim-edit`: one claim added to `cnn.md` (whose notebooks train a network in each
  tab), then `build.py html`: evaluated on the values the last run recorded;
- `eval-edit`: the same with an inline value through `d2l.french_number` (the replay
  restores `d2l` without importing its framework);
- `build-edit`: one sentence edited, then `python3 build.py` (the README's command: PDFs
  included);
- `test-fast`: `build.py test --fast` (run once: it is long);
- `corpus`: `check`, `notebooks` and `lib` on a copy of the d2l-zh corpus (../shared), the
  three commands one after the other.

The serve row (a saved sentence visible in the page) is `benchmarks/serve.py`, and the fresh
clone is CI's `.ci/run`: both print their own figures.
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]
from conftest import CORPUS, copy_repository  # noqa: E402  (the tests' copier)

SECTION = Path("chapters/chapter_gpu/use-gpu.md")
TRAINING = Path("chapters/chapter_foundations/cnn.md")
ROWS = ("noop", "html-edit", "claim-edit", "eval-edit", "build-edit", "test-fast", "corpus")


def run(root: Path, *args: str) -> float:
    """Seconds that `python3 build.py *args` takes in `root`; a failure stops the benchmark."""
    started = time.monotonic()
    done = subprocess.run([sys.executable, "build.py", *args], cwd=root,
                          capture_output=True, text=True)
    seconds = time.monotonic() - started
    if done.returncode:
        sys.exit(f"build.py {' '.join(args)} failed in {root}:\n{done.stdout[-3000:]}"
                 f"{done.stderr[-3000:]}")
    return seconds


def built_copy(target: Path) -> Path:
    """This repository's sources (as the tests copy them), its whole `_build/`, and its
    environments (linked: set up again, they would cost minutes and measure nothing)."""
    copy_repository(target)
    shutil.copytree(REPO / "_build", target / "_build", symlinks=True, dirs_exist_ok=True)
    (target / ".envs").symlink_to(REPO / ".envs")
    return target


def edit_sentence(root: Path, count: int) -> None:
    """Append one new sentence to the section's last paragraph (a prose-only edit)."""
    path = root / SECTION
    path.write_text(path.read_text(encoding="utf-8").rstrip("\n")
                    + f" Une phrase ajoutée ({count}).\n", encoding="utf-8")


def appended(sentence: str) -> Callable[[Path, int], None]:
    """The edit that appends `sentence` (its ``{count}``: the run's number, so that each
    run adds an expression of its own) to the training section's end."""
    def append(root: Path, count: int) -> None:
        path = root / TRAINING
        path.write_text(path.read_text(encoding="utf-8").rstrip("\n")
                        + " " + sentence.format(count=count) + "\n", encoding="utf-8")
    return append


ADD_CLAIM = appended("Au moins {count} formes. :check:`len(SHAPE_NAMES) >= {count}`")
ADD_EVAL = appended("Soit :eval:`d2l.french_number({count} + accuracy)`.")


def edited(root: Path, *args: str, edit: Callable[[Path, int], None] = edit_sentence
           ) -> Callable[[int], float]:
    def measure(count: int) -> float:
        edit(root, count)
        return run(root, *args)
    return measure


def corpus(folder: Path) -> Callable[[int], float]:
    def measure(count: int) -> float:
        copy = shutil.copytree(CORPUS, folder / f"corpus-{count}")
        # Published without its static/ folder, which config.ini names (as the tests do).
        (copy / "static").mkdir()
        for name in ("favicon.png", "logo-with-text.png"):
            shutil.copyfile(copy / "img" / "colab.png", copy / "static" / name)
        return sum(run_in(copy, command) for command in ("check", "notebooks", "lib"))
    return measure


def run_in(book: Path, command: str) -> float:
    started = time.monotonic()
    subprocess.run([sys.executable, str(REPO / "build.py"), "-C", str(book), command],
                   capture_output=True, text=True, check=True)
    return time.monotonic() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per row (median shown)")
    parser.add_argument("--rows", default=",".join(ROWS),
                        help=f"comma-separated rows among {', '.join(ROWS)}")
    args = parser.parse_args()
    rows = args.rows.split(",")
    if unknown := set(rows) - set(ROWS):
        parser.error(f"unknown rows: {', '.join(sorted(unknown))}")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "book"
        if {"noop", "html-edit", "claim-edit", "eval-edit", "build-edit"} & set(rows):
            built_copy(root)
            run(root)   # settles what the copy's new place may change (stamps, site, PDFs)
        measures = {"noop": lambda _: run(root), "html-edit": edited(root, "html"),
                    "claim-edit": edited(root, "html", edit=ADD_CLAIM),
                    "eval-edit": edited(root, "html", edit=ADD_EVAL),
                    "build-edit": edited(root), "test-fast": lambda _: run(REPO, "test", "--fast"),
                    "corpus": corpus(Path(tmp))}
        for row in rows:
            runs = 1 if row == "test-fast" else args.runs
            times = [measures[row](count) for count in range(runs)]
            print(f"{row:12} median {statistics.median(times):7.2f} s   "
                  f"({', '.join(f'{t:.2f}' for t in times)})", flush=True)


if __name__ == "__main__":
    main()
