"""Claim stability: run the book's notebooks several times, as CI does, and list the
claims whose verdict changed from one run to another or whose margin is thin.

A claim about a measurement (a timing, the order of rows in a profiler's table) can hold
on the writer's machine and fail on CI's, one noisy run later: the strict build then stops
and nothing lands. Run by hand before publishing such a claim:

    .envs/tools/bin/python benchmarks/claim_stability.py [--runs 3] [--only GLOB]… [--tab T]…

It works on a copy of this repository (the tests' copier), executes the selected sections
from scratch `--runs` times (the frozen GPU runs are used, as on CI: their claims are judged
once, on the GPU's values) and prints, for every claim that did not hold in every run or
held by less than `--margin` in one of them, where it is, how often it held and its least
and median margins (how far, relatively, the compared values were from turning it false).
"""
from __future__ import annotations

import argparse
import json
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
from conftest import copy_repository  # noqa: E402  (the tests' copier)

SUMMARY = re.compile(r"^eval: (\d+) ran, \d+ cached, \d+ frozen, (\d+) failed", re.M)


def execute(root: Path, selection: list[str]) -> None:
    """One run of the selected sections with nothing cached; a notebook that fails (not a
    claim: a claim refuted is what this script counts) stops the script."""
    for results in ("cache", "eval"):
        shutil.rmtree(root / "_build" / results, ignore_errors=True)
    started = time.monotonic()
    done = subprocess.run([sys.executable, "build.py", "eval", *selection], cwd=root,
                          capture_output=True, text=True)
    summary = SUMMARY.search(done.stdout)
    if summary is None or int(summary.group(2)):
        sys.exit(f"the run failed:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
    print(f"  {summary.group(1)} notebooks ran in {time.monotonic() - started:.0f} s",
          flush=True)


def judgements(root: Path) -> dict[tuple[str, str, str], dict]:
    """(tab, section, expression) -> its judgement, from the cache records of the run."""
    found = {}
    for record_path in sorted((root / "_build" / "cache").glob("*/*/*.json")):
        tab = record_path.relative_to(root / "_build" / "cache").parts[0]
        section = record_path.relative_to(root / "_build" / "cache" / tab).with_suffix("")
        record = json.loads(record_path.read_text(encoding="utf-8"))
        for judgement in record.get("claims", ()):
            found[tab, section.as_posix(), judgement["expression"]] = judgement
    return found


def place(root: Path, section: str, expression: str) -> str:
    """`chapters/…md:LINE` of the claim (its first occurrence)."""
    path = Path("chapters") / f"{section}.md"
    for number, line in enumerate((root / path).read_text(encoding="utf-8").splitlines(), 1):
        if f":check:`{expression}`" in line:
            return f"{path}:{number}"
    return str(path)


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
    seen: dict[tuple[str, str, str], list[dict]] = defaultdict(list)
    with tempfile.TemporaryDirectory() as folder:
        root = copy_repository(Path(folder))
        (root / ".envs").symlink_to(REPO / ".envs")
        for run in range(1, args.runs + 1):
            print(f"run {run}/{args.runs}", flush=True)
            execute(root, selection)
            for claim, judgement in judgements(root).items():
                seen[claim].append(judgement)
        rows = []
        for (tab, section, expression), found in seen.items():
            held = sum(bool(j.get("holds")) for j in found)
            margins = [j.get("margin", float("inf")) for j in found if j.get("holds")]
            least = min(margins, default=0.0)
            if held < len(found) or least < args.margin:
                median = statistics.median(margins) if margins else 0.0
                rows.append((held == len(found), least, median, held, len(found),
                             f"{place(root, section, expression)} [{tab}]", expression))
    print(f"\n{len(seen)} claims judged; {sum(not r[0] for r in rows)} did not hold in every "
          f"run; {sum(r[0] for r in rows)} held by less than {args.margin:.0%} in a run\n")
    for _, least, median, held, runs, where, expression in sorted(rows):
        print(f"{where}  held {held}/{runs}, least margin {least:.1%}, median {median:.1%}\n"
              f"    {expression}")


if __name__ == "__main__":
    main()
