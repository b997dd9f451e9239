"""Benchmark of `build.py eval`: cold build, no-op, prose edit, PyTorch cell edit, d2l edit;
and of the whole `build.py`: no-op and prose edit (notebooks, eval, launch and HTML).

Run by hand: `.envs/tools/bin/python benchmarks/eval_cache.py [-j N]`. It works on a
copy of the repository in a temporary folder, with the framework environments of
this checkout (made by `python3 build.py` beforehand), and prints a table.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]
from conftest import copy_repository  # noqa: E402  (the tests' copier: same parts copied)

TABS = ("pytorch", "mxnet", "tensorflow")
EVAL = ("eval",)
WHOLE = ()   # build.py without a command: notebooks, eval, launch and HTML


def build(root: Path, jobs: int,
          command: tuple[str, ...] = EVAL) -> tuple[float, int, list[float]]:
    """Wall time, notebooks executed, and the seconds of each executed notebook."""
    options = [f"--python={tab}={REPO / '.envs' / tab / 'bin' / 'python'}" for tab in TABS]
    started = time.monotonic()
    result = subprocess.run([sys.executable, str(root / "build.py"), *command, "-j", str(jobs),
                             *options], cwd=root, capture_output=True, text=True,
                            env=dict(os.environ, TABBOOK_USE_CURRENT_PYTHON="1"))
    wall = time.monotonic() - started
    if result.returncode != 0:
        sys.exit(f"build failed:\n{result.stdout}\n{result.stderr}")
    seconds = [float(s) for s in re.findall(r"^done .* in ([\d.]+) s$", result.stdout, re.M)]
    executed = int(re.search(r"^eval: (\d+) ran", result.stdout, re.M).group(1))
    return wall, executed, seconds


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    jobs = parser.parse_args().jobs
    for tab in TABS:
        if not (REPO / ".envs" / tab / "bin" / "python").exists():
            sys.exit(f"no .envs/{tab}: run `python3 build.py` once first")
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        copy_repository(root)
        section = root / "chapters" / "chapter_gpu" / "use-gpu.md"
        wall, executed, seconds = build(root, jobs)
        ideal = max(sum(seconds) / jobs, max(seconds, default=0))
        rows.append(("cold build", wall, executed, f"{wall / ideal:.2f}× ideal ({ideal:.1f} s)"))
        rows.append(("no-op rebuild", *build(root, jobs)[:2], "target ≤ 0.5 s"))
        edit(section, "Un tenseur vit toujours quelque part", "Un tenseur se trouve toujours quelque part")
        rows.append(("prose edit", *build(root, jobs)[:2], "target ≤ 1 s, 0 executed"))
        build(root, jobs, WHOLE)   # writes the notebooks, launch notebooks and site once
        rows.append(("whole build, no-op", *build(root, jobs, WHOLE)[:2], "as fast as before"))
        edit(section, "Certains exemples parlent",
             "Un paragraphe ajouté.\n\nCertains exemples parlent")
        rows.append(("whole build, prose edit", *build(root, jobs, WHOLE)[:2],
                     "target ≤ 1.5 s, 0 executed"))
        edit(section, "X = torch.ones(2, 3, device=try_gpu())",
             "X = torch.ones(2, 3, device=try_gpu())  # edited")
        rows.append(("one PyTorch cell edit", *build(root, jobs)[:2], "1 executed"))
        (root / "d2l" / "torch.py").write_text((root / "d2l" / "torch.py").read_text() + "\n# edit\n")
        rows.append(("d2l/torch.py edit", *build(root, jobs)[:2], "the PyTorch notebooks"))
    print(f"eval benchmark, -j {jobs}, {os.cpu_count()} cores\n")
    print(f"{'scenario':<24}{'wall':>9}  {'executed':>8}  note")
    for name, wall, executed, note in rows:
        print(f"{name:<24}{wall:>8.2f}s  {executed:>8}  {note}")
    print(json.dumps({name: {"wall_s": round(wall, 3), "executed": executed}
                      for name, wall, executed, _ in rows}))


if __name__ == "__main__":
    main()
