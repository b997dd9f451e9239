"""The GPU job on a real Slurm, and the book's own Slurm scripts submitted to it.

A single-node cluster runs on this machine (tests/slurm_cluster.py: Debian's munge and
Slurm, installed on first need as the browser tests install Chromium). On it:

* the GPU job's array (gpu-job/submit-slurm.sh) for a small book, with the GPU
  requirement turned off (`GPUS=` and `REQUIRE_GPU=no`, which only the tests set):
  every section × framework runs once across the tasks, the gathering job starts
  after them all, and a section that raises is named in the summary while the other
  tasks' frozen results are merged; with its default resources, Slurm would accept
  the job on the declared GPU nodes (`DRY_RUN=yes`);
* every `#SBATCH` script the built site shows, taken from its pages as readers copy
  it: those asking for GPUs must be accepted by `sbatch --test-only` against GPU
  nodes declared as they request them (count-only GRES); the others run to the end.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import sys
import time
from pathlib import Path

import pytest

from conftest import REPO, code_blocks, site_pages, with_build_system, write_book
from slurm_cluster import COMPUTE_PARTITION, GpuNodes, SlurmCluster, fields
from tabbook.execution.gather import EXIT_STATUS

pytestmark = [pytest.mark.slurm, pytest.mark.kernels]

TABS = ("pytorch", "mxnet")   # two frameworks; TensorFlow's kernel is the slowest to start
SHARDS = 2
JOB_SECONDS = 900


# -- the GPU job ------------------------------------------------------------------------

def gpu_section(name: str, marker: Path, torch_line: str = "") -> str:
    """A section declaring #gpus(1) whose code, in each framework, notes in `marker`
    that it ran (one line per execution); `torch_line` is added to its PyTorch cell."""
    record = f"open({str(marker)!r}, 'a').write('{name} ' + {{tab!r}} + '\\n')"
    cells = "\n\n".join(
        f"```{{.python .input}}\n%%tab {tab}\n{record.format(tab=tab)}\n"
        f"{torch_line if tab == 'pytorch' else ''}\nprint('fini : {name}')\n```"
        for tab in TABS)
    return (f"```{{.python .input}}\n%load_ext d2lbook.tab\n"
            f"tab.interact_select({list(TABS)!r})\n#gpus(1)\n```\n\n# {name}\n\n{cells}\n")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """The test cluster, started for this module and stopped after it. Its GPU nodes,
    declared and never started, are those the book's scripts ask for."""
    folder = Path(os.path.realpath(tmp_path_factory.mktemp("slurm")))
    made = SlurmCluster(folder, book_gpu_nodes())
    made.start()
    yield made
    made.stop()


@pytest.fixture(scope="module")
def small_book(tmp_path_factory) -> tuple[Path, Path]:
    """A book of three GPU sections, one raising in PyTorch, and one CPU section, with the
    build system and gpu-job/ beside it; and the file its code notes its runs in."""
    root = tmp_path_factory.mktemp("book")
    marker = tmp_path_factory.mktemp("marker") / "executions.txt"
    with_build_system(root)
    shutil.copytree(REPO / "gpu-job", root / "gpu-job")
    chapter = "# Chapitre\n\n```toc\nalpha\nbeta\nboom\ncpu\n```\n"
    write_book(root, {"chap/index.md": chapter,
                      "chap/alpha.md": gpu_section("alpha", marker),
                      "chap/beta.md": gpu_section("beta", marker),
                      "chap/boom.md": gpu_section("boom", marker, "1 / 0"),
                      "chap/cpu.md": gpu_section("cpu", marker).replace("#gpus(1)\n", "")})
    return root, marker


BUILD = {"BUILD_PYTHON": sys.executable, "TABBOOK_USE_CURRENT_PYTHON": "1"}
"""How the tasks run build.py here: with the tests' interpreter, as it is."""


@pytest.fixture(scope="module")
def gpu_job(cluster, framework_pythons, small_book):
    """The GPU job submitted for the small book, waited for. Returns the book, the marker
    file, the job ids, the seconds it took, and what the submission and squeue said."""
    root, marker = small_book
    env = {"TABS": " ".join(TABS), "SHARDS": str(SHARDS),
           # The test cluster has no GPU: none asked for, none required.
           "GPUS": "", "REQUIRE_GPU": "no",
           "PARTITION": COMPUTE_PARTITION, "CPUS": "1", "TIME": "00:20:00",
           **BUILD, **{f"PYTHON_{tab.upper()}": str(framework_pythons[tab]) for tab in TABS}}
    started = time.monotonic()
    submitted = cluster.run("bash", "gpu-job/submit-slurm.sh", cwd=root, env=env, check=False)
    assert submitted.returncode == 0, submitted.stdout + submitted.stderr
    array, gather = submitted.stdout.split("\n")[-2].split()
    queued = cluster.run("squeue", "-h", "-o", "%i %j %T %r").stdout
    cluster.wait_for_jobs([array, gather], JOB_SECONDS)
    return root, marker, (array, gather), time.monotonic() - started, submitted.stdout + queued


def jobcomp_records(cluster: SlurmCluster) -> dict[str, dict[str, str]]:
    """The finished jobs by job id (an array task under its own), from jobcomp/filetxt."""
    return {record["JobId"]: record
            for record in map(fields, cluster.jobcomp.read_text().splitlines())}


def array_task_ids(cluster: SlurmCluster, array: str) -> dict[str, str]:
    """Array index -> job id of each task (scontrol keeps finished jobs for MinJobAge)."""
    said = cluster.run("scontrol", "-o", "show", "job", array).stdout
    return {job["ArrayTaskId"]: job["JobId"] for job in map(fields, said.splitlines())
            if "ArrayTaskId" in job}


def test_the_gpu_job_runs_each_section_once_then_gathers_them(cluster, gpu_job):
    root, marker, (array, gather), seconds, said = gpu_job
    print(said, f"submitted to gathered in {seconds:.0f} s", sep="\n")
    # Just submitted, the gathering job waits for the array (and starts after it: below).
    assert f"{gather} gpu-job-gather PENDING Dependency" in said
    # Every GPU section × framework ran exactly once across the tasks; the CPU section
    # (no #gpus) in none: --gpu-only.
    executions = sorted(marker.read_text().split("\n")[:-1])
    assert executions == sorted(f"{name} {tab}" for name in ("alpha", "beta", "boom")
                                for tab in TABS), executions
    run = next((root / "_build" / "slurm").iterdir())
    tasks = [run / f"{tab}-{k}of{SHARDS}" for tab in TABS for k in range(1, SHARDS + 1)]
    reported = [(row["section"], row["framework"]) for task in tasks for row in json.loads(
        (task / "_build" / "eval" / "report.json").read_text())["rows"]]
    assert sorted(reported) == sorted((f"chap/{name}", tab) for name in ("alpha", "beta", "boom")
                                      for tab in TABS)

    # The gathering job started once every task had ended (jobcomp's times, to the second).
    records = jobcomp_records(cluster)
    ids = array_task_ids(cluster, array)
    print(*(line for line in cluster.jobcomp.read_text().splitlines()), sep="\n")
    assert sorted(ids) == [str(i) for i in range(len(TABS) * SHARDS)]
    task_records = [records[job] for job in ids.values()]
    assert max(r["EndTime"] for r in task_records) <= records[gather]["StartTime"]
    assert records[gather]["JobState"] == "COMPLETED"

    # The task holding boom failed (exit 1) and the summary says which section and why;
    # the others completed, and every result but boom's in PyTorch is in frozen/.
    failing = next(task for task in tasks if "boom" in (task / "_build" / "eval" / "report.md")
                   .read_text() and task.name.startswith("pytorch"))
    states = {task.name: records[ids[str(i)]]["JobState"] for i, task in enumerate(tasks)}
    assert states == {task.name: "FAILED" if task == failing else "COMPLETED" for task in tasks}
    assert (failing / EXIT_STATUS).read_text().strip() == "1"
    summary = (run / "summary.md").read_text()
    assert f"{len(tasks)} tasks, 1 failed" in summary
    failure = summary.split("## Failed tasks")[1].split("\n## ")[0]
    assert f"### {failing.name}" in failure
    assert "`chap/boom` [pytorch]: failed — chapters/chap/boom.md:" in failure
    assert "ZeroDivisionError" in failure
    frozen = sorted(p.relative_to(root / "frozen").as_posix()
                    for p in (root / "frozen").rglob("*.ipynb"))
    assert frozen == sorted(f"{tab}/chap/{name}.ipynb" for name in ("alpha", "beta", "boom")
                            for tab in TABS if (name, tab) != ("boom", "pytorch"))
    assert "print('fini : alpha')" in (root / "frozen" / "pytorch" / "chap" /
                                       "alpha.ipynb").read_text()


def test_the_committed_resources_are_what_a_gpu_partition_accepts(cluster, small_book):
    """The resources gpu-job/submit-slurm.sh asks for by default (two GPUs, eight cores,
    two hours), asked of the declared GPU nodes: Slurm would run the array and the
    gathering job."""
    root, _ = small_book
    runs = root / "_build" / "slurm"
    before = sorted(runs.iterdir()) if runs.is_dir() else []
    said = cluster.run("bash", "gpu-job/submit-slurm.sh", cwd=root, check=False,
                       env={"DRY_RUN": "yes", "PARTITION": "gpu", **BUILD})
    assert said.returncode == 0, said.stdout + said.stderr
    answers = re.findall(r"Job \d+ to start at \S+ using (\d+) processors on nodes \S+ in "
                         r"partition gpu", said.stderr)
    assert answers == ["8", "1"], said.stderr   # the array's tasks, then the gathering job
    assert (sorted(runs.iterdir()) if runs.is_dir() else []) == before   # nothing written


# -- the book's Slurm scripts -------------------------------------------------------------

def sbatch_scripts(site: Path) -> list[tuple[str, int, str]]:
    """(page, number on the page, script) for every block with #SBATCH lines the site
    shows, as readers copy it."""
    found = []
    for page in site_pages(site):
        blocks = code_blocks((site / page).read_text(encoding="utf-8"))
        found += [(page, number, block) for number, block in enumerate(blocks, 1)
                  if re.search(r"^#SBATCH ", block, re.M)]
    return found


def options_of(script: str) -> list[tuple[str, str]]:
    """The (option, value) pairs of a script's #SBATCH lines, long names for short ones."""
    short = {"-p": "--partition", "-C": "--constraint", "-N": "--nodes", "-n": "--ntasks",
             "-c": "--cpus-per-task", "-G": "--gpus", "-t": "--time", "-A": "--account"}
    pairs = []
    for line in re.findall(r"^#SBATCH\s+(\S+(?:\s+[^\s#]+)?)", script, re.M):
        option, _, value = line.replace("=", " ", 1).partition(" ")
        pairs.append((short.get(option, option), value.strip()))
    return pairs


def asks_for_gpus(script: str) -> bool:
    return any(option in ("--gres", "--gpus", "--gpus-per-node", "--gpus-per-task")
               for option, _ in options_of(script))


def book_gpu_nodes() -> tuple[GpuNodes, ...]:
    """GPU nodes as the book's scripts ask for them (read from its sources, before the
    site is built; the test itself reads the site): enough nodes, GPUs per node, cores
    and features, in each partition a script names and in the default one."""
    scripts = [block for source in sorted((REPO / "chapters").rglob("*.md"))
               for block in re.findall(r"^```bash\n(.*?)^```", source.read_text(), re.M | re.S)
               if "#SBATCH" in block and asks_for_gpus(block)]
    options = [dict(options_of(script)) for script in scripts]
    counts = [int(m) for o in options for m in re.findall(r"(\d+)$", o.get("--gres", ""))]
    nodes = max([int(o.get("--nodes", "1").split("-")[-1]) for o in options] + [1])
    cpus = max([int(o.get("--cpus-per-task", "1")) * int(o.get("--ntasks-per-node", "1"))
                for o in options] + [1])
    features = tuple(sorted({f for o in options
                             for f in re.split(r"[&|,]", o.get("--constraint", "")) if f}))
    partitions = sorted({o["--partition"] for o in options if "--partition" in o})
    return tuple(GpuNodes(partition, nodes, cpus, max(counts + [1]), features)
                 for partition in dict.fromkeys(["gpu", *partitions]))


def rejection(cluster: SlurmCluster, name: str, script: str) -> str:
    """Why Slurm rejects `script` ("" if it does not): one asking for GPUs must pass
    `sbatch --test-only`; any other must run to its end, status 0."""
    path = cluster.folder / "scripts" / f"{name}.sh"
    path.parent.mkdir(exist_ok=True)
    path.write_text(script)
    if asks_for_gpus(script):
        result = cluster.run("sbatch", "--test-only", str(path), check=False, cwd=path.parent)
        accepted = result.returncode == 0 and "to start at" in result.stderr
    else:
        result = cluster.run("sbatch", "--wait", f"--output={path.with_suffix('.out')}",
                             str(path), check=False, cwd=path.parent)
        accepted = result.returncode == 0
    return "" if accepted else result.stdout + result.stderr


def test_every_slurm_script_of_the_book_is_accepted_by_slurm(cluster, built_repository):
    # The judge first: it runs a script that needs no GPU, and sees a wrong one.
    assert not rejection(cluster, "control", "#!/bin/bash\n#SBATCH --time=00:01:00\n"
                                              "echo bonjour\n")
    assert (cluster.folder / "scripts" / "control.out").read_text() == "bonjour\n"
    assert "Requested node configuration is not available" in rejection(
        cluster, "too-many-gpus", "#!/bin/bash\n#SBATCH --gres=gpu:64\nnvidia-smi\n")
    assert rejection(cluster, "bad-time", "#!/bin/bash\n#SBATCH --gres=gpu:1\n"
                                          "#SBATCH --time=quatre-heures\nnvidia-smi\n")

    scripts = sbatch_scripts(built_repository / "_build" / "html")
    assert len(scripts) >= 3, scripts   # hpc.md shows three at least
    rejected = [f"{page}, code block {number}:\n{script}\n→ {said}"
                for page, number, script in scripts
                if (said := rejection(cluster, f"{page.replace('/', '-')}-{number}", script))]
    assert not rejected, "\n\n".join(rejected)
