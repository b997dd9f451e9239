"""Benchmark of `build.py eval --shard K/N` over the whole book: how even the parts are.

Run by hand: `.envs/tools/bin/python benchmarks/shards.py [-n N] [-j J]`. On a copy
of the repository (with this checkout's framework environments), it runs each of
the N shards in turn, from a clean `_build` and with `--force`, as N runners of a
CI matrix would, and prints each shard's notebooks, estimated and measured seconds:
first cut from the code cells alone (nothing recorded in frozen/), then cut from
the durations that a whole-book `eval --freeze` recorded.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]
from conftest import copy_repository  # noqa: E402  (the tests' copier: same parts copied)

TABS = ("pytorch", "mxnet", "tensorflow")


def build(root: Path, jobs: int, *args: str) -> tuple[float, str]:
    options = [f"--python={tab}={REPO / '.envs' / tab / 'bin' / 'python'}" for tab in TABS]
    started = time.monotonic()
    result = subprocess.run([sys.executable, str(root / "build.py"), "eval", "-j", str(jobs),
                             *options, *args], cwd=root, capture_output=True, text=True,
                            env=dict(os.environ, TABBOOK_USE_CURRENT_PYTHON="1"))
    if result.returncode != 0:
        sys.exit(f"build failed:\n{result.stdout}\n{result.stderr}")
    return time.monotonic() - started, result.stdout


def shards(root: Path, count: int, jobs: int, label: str) -> list[str]:
    rows = []
    for index in range(1, count + 1):
        shutil.rmtree(root / "_build", ignore_errors=True)   # a fresh runner
        wall, out = build(root, jobs, "--force", "--shard", f"{index}/{count}")
        cut = re.search(r"^eval: shard \S+: (\d+) of (\d+) notebooks; .*: (.*)$", out, re.M)
        ran = re.search(r"^eval: (\d+) ran", out, re.M).group(1)
        estimate = cut.group(3).split(", ")[index - 1]
        rows.append(f"| {label} | {index}/{count} | {cut.group(1)} of {cut.group(2)} | {ran} | "
                    f"{estimate} s | {wall:.0f} s |")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-n", "--shards", type=int, default=2)
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    options = parser.parse_args()
    for tab in TABS:
        if not (REPO / ".envs" / tab / "bin" / "python").exists():
            sys.exit(f"no .envs/{tab}: run `python3 build.py` once first")
    rows = ["| cut from | shard | notebooks | executed | estimated | measured (wall) |",
            "| --- | --- | --- | --- | --- | --- |"]
    with tempfile.TemporaryDirectory() as folder:
        root = copy_repository(Path(folder))
        shutil.rmtree(root / "frozen", ignore_errors=True)
        rows += shards(root, options.shards, options.jobs, "code cells")
        shutil.rmtree(root / "_build", ignore_errors=True)
        wall, _ = build(root, options.jobs, "--force", "--freeze")
        rows.append(f"| (whole book, `--freeze`) | — | all | all | — | {wall:.0f} s |")
        rows += shards(root, options.shards, options.jobs, "recorded durations")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
