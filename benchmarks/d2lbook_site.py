"""Benchmark of a d2lbook book's site rendered without executing (``eval_notebook = False``).

Run by hand: `.envs/tools/bin/python benchmarks/d2lbook_site.py DIR` (e.g. the corpus,
`../shared/corpus/d2l-zh`). DIR is copied to a temporary folder (DIR may be
read-only), its config.ini gets ``eval_notebook = False``, and, where the favicon or
logo it names is missing (the corpus was published without d2l-zh's static/
folder), one of the book's own PNG images stands in. Then `build.py -C COPY html`
runs as a user runs it, twice: the first build from nothing, then a build with
nothing changed. The script prints each wall time, the pages and files of the site,
and whether anything was executed (it must not be).
"""
from __future__ import annotations

import argparse
import configparser
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def prepare(book: Path, copy: Path) -> None:
    shutil.copytree(book, copy)
    config = copy / "config.ini"
    config.chmod(0o644)
    text = config.read_text(encoding="utf-8")
    text, count = re.subn(r"(?m)^eval_notebook\s*=.*$", "eval_notebook = False", text)
    if not count:
        text = text.replace("[build]\n", "[build]\neval_notebook = False\n", 1)
    config.write_text(text, encoding="utf-8")
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.read_string(text)
    stand_in = next(iter(sorted(copy.rglob("*.png"))), None)
    for key in ("favicon", "html_logo"):
        written = parser.get("html", key, fallback="").strip()
        if written and not (copy / written).is_file() and stand_in:
            (copy / written).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(stand_in, copy / written)
            print(f"{key}: {written} is missing; {stand_in.relative_to(copy)} stands in")


def timed_build(copy: Path) -> tuple[float, subprocess.CompletedProcess]:
    env = dict(os.environ, TABBOOK_USE_CURRENT_PYTHON="1")
    started = time.monotonic()
    result = subprocess.run([sys.executable, str(REPO / "build.py"), "-C", str(copy), "html"],
                            capture_output=True, text=True, env=env)
    return time.monotonic() - started, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("book", type=Path, help="a d2lbook book (folder with config.ini)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / args.book.resolve().name
        prepare(args.book, copy)
        first, result = timed_build(copy)
        if result.returncode:
            sys.exit(f"build.py html failed:\n{result.stdout}\n{result.stderr}")
        again, kept = timed_build(copy)
        site = copy / "_build" / "html"
        files = [p for p in site.rglob("*") if p.is_file()]
        pages = [p for p in files if p.suffix == ".html" and "pagefind" not in p.parts]
        built = copy / "_build"
        executed = (built / "eval").exists() or (built / "kernels").exists() or \
            any((built / "cache").glob("runtime-*.json"))
        for line in result.stdout.splitlines():
            if line.startswith(("eval:", "notebooks:", "launch:", "html:")):
                print(line)
        print(f"site: {len(pages)} pages, {len(files)} files, "
              f"{sum(p.stat().st_size for p in files) / 2 ** 20:.1f} MiB")
        print(f"executed: {'YES' if executed else 'nothing (no kernel, no environment)'}")
        print(f"times: build.py html {first:.1f} s from nothing, {again:.1f} s with nothing "
              f"changed ({'kept' if 'unchanged' in kept.stdout else 'rendered again'})")


if __name__ == "__main__":
    main()
