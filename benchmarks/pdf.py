"""Benchmark of `build.py pdf`: the time to print the PyTorch book after eval (bar: 60 s
on the 2-core build machine), then, per framework, what its PDF holds: pages (bar for
PyTorch: 60 at least), size, bookmarks, and whether every chapter and section title is
in the text and has its bookmark (bar: all of them).

Run by hand: `.envs/tools/bin/python benchmarks/pdf.py`. It works on a copy of the
repository with this checkout's executed notebooks (`python3 build.py` beforehand), so
eval runs nothing, and prints a table.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pypdf import PdfReader

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]
from conftest import copy_repository  # noqa: E402  (the tests' copier: same parts copied)
from tabbook.core.config import load_config  # noqa: E402
from tabbook.source.numbering import number_book  # noqa: E402
from tabbook.source.parse import parse_book  # noqa: E402


def build(root: Path, *args: str) -> tuple[float, str]:
    """Run build.py in `root`; its wall time and output."""
    pythons = [f"--python={tab}={REPO / '.envs' / tab / 'bin' / 'python'}"
               for tab in load_config(root).build.tabs]
    started = time.monotonic()
    result = subprocess.run([sys.executable, str(root / "build.py"), *args, *pythons],
                            cwd=root, capture_output=True, text=True,
                            env=dict(os.environ, TABBOOK_USE_CURRENT_PYTHON="1"))
    if result.returncode != 0:
        sys.exit(f"build.py {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}")
    return time.monotonic() - started, result.stdout


def _plain(text: str) -> str:
    return " ".join(text.replace("\u202f", " ").replace("\u00a0", " ").split())


def _titles(outline) -> list[str]:
    return [title for item in outline for title in
            (_titles(item) if isinstance(item, list) else [_plain(item.title)])]


def coverage(root: Path, tab: str, pdf: Path) -> tuple[int, int, int, int]:
    """(titles in the text, titles with a bookmark, titles of that book, bookmarks)."""
    book, _ = parse_book(load_config(root))
    numbers = number_book(book)
    titles = [_plain(f"{numbers.sections[s.name]} {s.title}") for s in book.pages()
              if tab in s.tabs]
    reader = PdfReader(pdf)
    lines = {_plain(line) for page in reader.pages[2:] for line in page.extract_text().split("\n")}
    bookmarks = _titles(reader.outline)
    return (sum(title in lines for title in titles), sum(title in bookmarks for title in titles),
            len(titles), len(bookmarks))


def main() -> None:
    for tab in load_config(REPO).build.tabs:
        if not (REPO / ".envs" / tab / "bin" / "python").exists():
            sys.exit(f"no .envs/{tab}: run `python3 build.py` once first")
    with tempfile.TemporaryDirectory() as folder:
        root = copy_repository(Path(folder), executed=True)
        build(root, "eval")   # every framework: cached, or taken from frozen/
        eval_only, _ = build(root, "eval", "--tab", "pytorch")
        seconds, output = build(root, "pdf", "--tab", "pytorch")
        kept, _ = build(root, "pdf", "--tab", "pytorch")
        print(f"build.py pdf --tab pytorch after eval: {seconds:.1f} s "
              f"(eval alone, nothing to run: {eval_only:.1f} s; bar: 60 s)")
        print(f"again, nothing changed: {kept:.1f} s")
        print("   " + next(line for line in output.split("\n") if line.startswith("pdf [")))
        all_seconds, _ = build(root, "pdf")
        print(f"build.py pdf (every framework, PyTorch's kept): {all_seconds:.1f} s\n")
        rows = [("framework", "pages", "size", "bookmarks", "titles in text",
                 "titles bookmarked")]
        for tab in load_config(root).build.tabs:
            pdf = root / "_build" / "pdf" / f"{load_config(root).project.name}-{tab}.pdf"
            in_text, bookmarked, total, bookmarks = coverage(root, tab, pdf)
            rows.append((tab, str(len(PdfReader(pdf).pages)),
                         f"{pdf.stat().st_size / 1e6:.1f} MB", str(bookmarks),
                         f"{in_text}/{total}", f"{bookmarked}/{total}"))
        widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
        for row in rows:
            print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())


if __name__ == "__main__":
    main()
