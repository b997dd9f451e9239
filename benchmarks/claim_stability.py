"""Claim stability: run the book's notebooks several times, as CI does, and list the
claims whose verdict changed from one run to another or whose margin is thin.

A claim about a measurement (a timing, the order of rows in a profiler's table) can hold
on the writer's machine and fail on CI's, one noisy run later: the strict build then stops
and nothing lands. Run by hand before publishing such a claim:

    .envs/tools/bin/python benchmarks/claim_stability.py [--runs 3] [--only GLOB]… [--tab T]…

It works on a copy of this repository (the tests' copier), executes the selected sections
from scratch `--runs` times (the frozen GPU runs are used, as on CI, not run again) and
prints, for every claim that did not hold in every run that showed it or held by less than
`--margin` in one of them, where it is, how often it held, its least and median margins
(how far, relatively, the compared values were from turning it false) and the values it
was false with.
"""
from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]
from conftest import copy_repository, eval_summary, ran  # noqa: E402  (the tests' helpers)
from tabbook.core.config import load_config  # noqa: E402
from tabbook.core.layout import Layout  # noqa: E402
from tabbook.core.model import Book  # noqa: E402
from tabbook.execution.record import read_cache  # noqa: E402
from tabbook.features.claims import CLAIMS  # noqa: E402
from tabbook.features.kernel_cells import result_entry  # noqa: E402
from tabbook.notebooks.features import placed_roles  # noqa: E402
from tabbook.notebooks.split import code_cells  # noqa: E402
from tabbook.source.parse import parse_book  # noqa: E402


def execute(root: Path, selection: list[str]) -> None:
    """One run of the selected sections with nothing cached; a notebook that fails (not a
    claim: a claim refuted is what this script counts) stops the script."""
    for results in ("cache", "eval"):
        shutil.rmtree(root / "_build" / results, ignore_errors=True)
    started = time.monotonic()
    done = subprocess.run([sys.executable, "build.py", "eval", *selection], cwd=root,
                          capture_output=True, text=True)
    try:
        failed = int(re.search(r"(\d+) failed", eval_summary(done)).group(1))
    except StopIteration:   # no summary: the build stopped before executing
        failed = None
    if failed != 0:
        sys.exit(f"the run failed:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
    print(f"  {ran(done)} notebooks ran in {time.monotonic() - started:.0f} s", flush=True)


def judgements(book: Book, layout: Layout) -> dict[tuple[str, str, int, str], dict]:
    """(tab, .md path, line, expression) -> its judgement in the run whose records
    `layout` holds, for every claim of `book` the run shows (a claim in a `:begin_if:`
    variant the run does not show is not judged there), found by the build's own reading
    of the book and of its cache records."""
    found = {}
    for section in book.pages():
        for tab in section.tabs:
            record = read_cache(layout.cache_record(tab, section))
            if record is None:
                continue
            judged = record.computed.get(CLAIMS.results_key, ())
            placed = placed_roles(section, tab, code_cells(section, tab),
                                  shown_by=record.computed).get(CLAIMS.key, [])
            for role in placed:
                expression = role.content.strip()
                entry = result_entry(judged, role.after, expression)
                if entry is not None:
                    found[tab, section.display_path, role.line, expression] = entry
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="runs (default 3)")
    parser.add_argument("--margin", type=float, default=0.2,
                        help="list claims that held by less than this in a run (default 0.2)")
    parser.add_argument("--only", action="append", default=[], metavar="GLOB",
                        help="sections to run, as `build.py eval --only` (repeatable)")
    parser.add_argument("--tab", action="append", default=[], metavar="T",
                        help="frameworks to run (repeatable; default: all)")
    args = parser.parse_args()
    selection = [*(f"--only={glob}" for glob in args.only), *(f"--tab={t}" for t in args.tab)]
    seen: dict[tuple[str, str, int, str], list[dict]] = defaultdict(list)
    with tempfile.TemporaryDirectory() as folder:
        root = copy_repository(Path(folder))
        (root / ".envs").symlink_to(REPO / ".envs")
        book, _ = parse_book(load_config(root))   # the same in every run
        for run in range(1, args.runs + 1):
            print(f"run {run}/{args.runs}", flush=True)
            execute(root, selection)
            for claim, judgement in judgements(book, Layout(root)).items():
                seen[claim].append(judgement)
        rows, refuted_with = [], defaultdict(list)
        for (tab, path, line, expression), found in seen.items():
            held = sum(bool(j.get("holds")) for j in found)
            margins = [j.get("margin", float("inf")) for j in found if j.get("holds")]
            least = min(margins, default=0.0)
            if held < len(found) or least < args.margin:
                median = statistics.median(margins) if margins else 0.0
                refuted_with[f"{path}:{line} [{tab}]", expression] = [
                    j["names"] for j in found if not j.get("holds") and j.get("names")]
                rows.append((held == len(found), least, median, held, len(found),
                             f"{path}:{line} [{tab}]", expression))
    print(f"\n{len(seen)} claims judged; {sum(not r[0] for r in rows)} did not hold in every "
          f"run; {sum(r[0] for r in rows)} held by less than {args.margin:.0%} in a run\n")
    for _, least, median, held, runs, where, expression in sorted(rows):
        print(f"{where}  held {held}/{runs}, least margin {least:.1%}, median {median:.1%}\n"
              f"    {expression}")
        for names in refuted_with[where, expression]:
            print(f"    false with {', '.join(f'{n} = {v}' for n, v in names.items())}")


if __name__ == "__main__":
    main()
