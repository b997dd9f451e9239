"""Benchmark of d2lbook compatibility: how this build reads a book made for d2lbook.

Run by hand: `.envs/tools/bin/python benchmarks/compat.py DIR` (e.g. the corpus,
`../shared/corpus/d2l-zh`). DIR is copied to a temporary folder first (`lib`
rewrites the book's d2l files, and DIR may be read-only). The stages run in this
process, as `build.py -C COPY check`, `notebooks` and `lib` run them, and the
script prints: sections, notebooks per tab, warnings by kind, and, for each tab
with a library, how many of the definitions of the book's committed library file
(what d2lbook generated) the regenerated one holds, and how many are identical
as syntax trees once docstrings are set aside; then each definition that differs.
"""
from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]
from conftest import library_definitions  # noqa: E402  (the tests' comparison, the same)
from tabbook.source.check import check_book  # noqa: E402
from tabbook.core.config import load_config  # noqa: E402
from tabbook.notebooks.library import write_libraries  # noqa: E402
from tabbook.source.parse import parse_book  # noqa: E402
from tabbook.core.layout import Layout  # noqa: E402
from tabbook.notebooks.split import write_notebooks  # noqa: E402


def problem_kind(message: str) -> str:
    """A warning's kind: its message without names, numbers and places."""
    kind = re.sub(r"'[^']*'|\S+\.md:\d+|\b\d+\b", "…", message.split(" — ")[0])
    return re.sub(r"^\S+:\d+:( \[[^]]*\])?", "", kind).strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("book", type=Path, help="a d2lbook book (folder with config.ini)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / args.book.resolve().name
        shutil.copytree(args.book, copy)
        times = {}
        started = time.monotonic()
        config = load_config(copy)
        book, problems = parse_book(config)
        problems = sorted(set(problems) | set(check_book(book, config)))
        times["check"] = time.monotonic() - started
        started = time.monotonic()
        split = write_notebooks(book.pages(), config.build.tabs, Layout(copy))
        times["notebooks"] = time.monotonic() - started
        started = time.monotonic()
        write_libraries(book, config)
        times["lib"] = time.monotonic() - started

        print(f"book: {config.project.title} ({args.book}), tabs {', '.join(config.build.tabs)}")
        print(f"sections: {len(book.pages())} in the TOCs, {len(book.orphans)} in none")
        per_tab = Counter(path.relative_to(copy / "_build" / "notebooks").parts[0]
                          for path in split.written + split.unchanged)
        print("notebooks: " + ", ".join(f"{tab} {per_tab[tab]}" for tab in config.build.tabs))
        errors = [p for p in problems if not p.warning]
        print(f"errors: {len(errors)}")
        for problem in errors:
            print(f"  {problem}")
        kinds = Counter(problem_kind(str(p)) for p in problems if p.warning)
        print(f"warnings: {sum(kinds.values())}")
        for kind, count in kinds.most_common():
            print(f"  {count:>4}  {kind}")
        print(f"\n{'library':<20} {'reference':>9} {'present':>8} {'identical':>10}")
        differing = []
        total = same = 0
        for tab, settings in config.library.tabs.items():
            reference = args.book / settings.lib_file
            if not reference.is_file():
                continue
            want = library_definitions(reference.read_text(encoding="utf-8"))
            have = library_definitions((copy / settings.lib_file).read_text(encoding="utf-8"))
            present = [name for name in want if name in have]
            identical = [name for name in present if have[name] == want[name]]
            differing += [f"{settings.lib_file}: {name} "
                          f"({'differs' if name in have else 'missing'})"
                          for name in want if name not in identical]
            total, same = total + len(want), same + len(identical)
            print(f"{settings.lib_file:<20} {len(want):>9} {len(present):>8} "
                  f"{len(identical):>10} ({100 * len(identical) / max(len(want), 1):.1f} %)")
        if total:
            print(f"{'all':<20} {total:>9} {'':>8} {same:>10} ({100 * same / total:.1f} %)")
        for line in differing:
            print(f"  {line}")
        print("\ntimes: " + ", ".join(f"{stage} {seconds:.2f} s" for stage, seconds in
                                      times.items())
              + f"; check + notebooks + lib {sum(times.values()):.2f} s")


if __name__ == "__main__":
    main()
