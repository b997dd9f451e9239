"""The frozen store (``frozen/``, ``eval --freeze``) and sharded execution (``--shard``).

Real kernels on the CPU. A GPU result is a recorded notebook in the shape the GPU
job freezes (tests/fixtures/frozen-h100): its outputs and provenance replace those
of a CPU freeze of the same code, whose key the GPU job would compute alike.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import nbformat
import pytest

from conftest import REPO, eval_summary, md, ran
from tabbook.cli.options import parse_command_line
from tabbook.execution.shard import Shard, estimates, partition, shard_items
from test_execute import edit, project, pythons, section_text  # noqa: F401  (fixtures)

FIXTURE = REPO / "tests" / "fixtures" / "frozen-h100" / "sec.ipynb"
GPU_CODE = """\
import torch
device = torch.device('cuda:0' if torch.cuda.is_available() else 'cpu')
x = torch.ones(2, 3, device=device)
print('calcul sur', x.device)
x.sum()"""


def gpu_section(code: str = GPU_CODE) -> str:
    return section_text(code).replace("tab.interact_select(['pytorch', 'mxnet'])",
                                      "tab.interact_select(['pytorch', 'mxnet'])\n#gpus(1)")


def frozen_path(root: Path, tab: str, name: str = "sec") -> Path:
    return root / "frozen" / tab / "chap" / f"{name}.ipynb"


def read(path: Path) -> nbformat.NotebookNode:
    return nbformat.read(path, as_version=4)


def rows(root: Path) -> dict[tuple[str, str], dict]:
    report = json.loads((root / "_build" / "eval" / "report.json").read_text())
    return {(row["section"], row["framework"]): row for row in report["rows"]}


def outputs(notebook) -> list[str]:
    return [json.dumps(cell.outputs, sort_keys=True) for cell in notebook.cells
            if cell.cell_type == "code"]


def test_freeze_then_a_clean_build_executes_nothing(project):
    root = project.root
    first = project("eval", "--freeze")
    assert first.returncode == 0, first.stdout + first.stderr
    assert "freeze: 2 notebooks written into frozen/, 0 unchanged" in first.stdout
    for tab, printed in (("pytorch", "42"), ("mxnet", "42")):
        notebook = read(frozen_path(root, tab))
        assert len(notebook.metadata.tabbook.frozen_key) == 64
        assert notebook.metadata.tabbook.provenance.devices == "CPU"
        assert any(printed in output.get("text", "") for cell in notebook.cells
                   for output in cell.get("outputs", []))
    assert not (root / "frozen" / "pytorch" / "index.ipynb").exists()   # prose only

    shutil.rmtree(root / "_build")
    again = project("eval")
    assert again.returncode == 0, again.stdout + again.stderr
    assert eval_summary(again).startswith("eval: 0 ran, 0 cached, 2 frozen, 0 failed")
    assert "eval: 6 notebooks, 2 frozen, 0 cached, 4 without code, 0 to run" in again.stdout
    for tab in ("pytorch", "mxnet"):
        executed = read(root / "_build" / "eval" / tab / "chap" / "sec.ipynb")
        assert outputs(executed) == outputs(read(frozen_path(root, tab)))
        assert executed.metadata.tabbook.frozen == {
            "status": "used", "path": f"frozen/{tab}/chap/sec.ipynb"}
        assert rows(root)[("chap/sec", tab)]["status"] == "frozen"
        assert rows(root)[("chap/sec", tab)]["frozen"] == "used"

    # The key covers the code, not the prose: a prose edit still runs nothing.
    edit(root, section_text(prose="Un texte tout neuf."))
    prose = project("eval")
    assert ran(prose) == 0 and "2 frozen" in eval_summary(prose)
    assert "Un texte tout neuf." in "".join(
        cell.source for cell in read(root / "_build" / "eval" / "pytorch" / "chap" / "sec.ipynb")
        .cells)
    before = frozen_path(root, "pytorch").read_bytes()
    # --force executes whatever the store holds; a plain eval never writes into it.
    forced = project("eval", "--force")
    assert ran(forced) == 2 and frozen_path(root, "pytorch").read_bytes() == before


def install_gpu_recording(root: Path) -> None:
    """Replace the CPU freeze of the PyTorch notebook by the recorded H100 run of the
    same code, keeping the key that the build computed for it."""
    cpu, gpu = read(frozen_path(root, "pytorch")), read(FIXTURE)
    code_ids = [c.id for c in cpu.cells if c.cell_type == "code"]
    assert code_ids == [c.id for c in gpu.cells if c.cell_type == "code"], \
        "the fixture was recorded from other code than gpu_section()"
    gpu.metadata.tabbook.frozen_key = cpu.metadata.tabbook.frozen_key
    nbformat.write(gpu, frozen_path(root, "pytorch"))


def test_a_frozen_gpu_result_is_shown_counted_and_goes_out_of_date(project):
    root = project.root
    edit(root, gpu_section())
    assert project("eval", "--freeze").returncode == 0
    install_gpu_recording(root)
    shutil.rmtree(root / "_build")

    # A CPU machine builds the book with the GPU outputs, running nothing.
    site = project("html")
    assert site.returncode == 0, site.stdout + site.stderr
    assert ran(site) == 0
    row = rows(root)[("chap/sec", "pytorch")]
    assert (row["status"], row["verdict"], row["frozen"]) == ("frozen", "GPU", "used")
    assert row["visible_gpus"] == ["NVIDIA H100 80GB HBM3"]
    assert row["output_devices"] == ["cuda:0"] and row["used_devices"] == ["cuda:0"]
    page = (root / "_build" / "html-pytorch-mxnet" / "chap" / "sec.html").read_text()
    assert "calcul sur cuda:0" in page and "device=&#39;cuda:0&#39;" in page
    assert "Code PyTorch exécuté le 20/11/2026 à 14:02 UTC sur NVIDIA H100 80GB HBM3" in page
    assert "Ces sorties sont figées dans le dépôt du livre (frozen/pytorch/chap/sec.ipynb)" in page
    launch = read(root / "_build" / "launch" / "pytorch" / "chap" / "sec.ipynb")
    # The intro reads in French typography: « 80 Gio » keeps its no-break space.
    assert "sur NVIDIA H100 80GB HBM3 (80\u00a0Gio, pilote 570.86.15, CUDA 12.8)" in \
        launch.cells[0].source
    assert "calcul sur cuda:0" in json.dumps(launch.cells[3].outputs)
    assert launch.metadata.accelerator == "GPU"

    # A code edit: the frozen result no longer matches; the section runs here and
    # the build, the report and the page say the GPU result is out of date.
    edit(root, gpu_section(GPU_CODE.replace("x.sum()", "x.sum() * 2")))
    stale = project("html")
    assert stale.returncode == 0, stale.stdout + stale.stderr
    assert ran(stale) == 1
    assert ("note: chap/sec [pytorch]: the frozen result (NVIDIA H100 80GB HBM3, 2026-11-20) "
            "is out of date") in stale.stderr
    row = rows(root)[("chap/sec", "pytorch")]
    assert (row["status"], row["verdict"], row["frozen"]) == ("ran", "CPU: no GPU here",
                                                                "out of date")
    assert "frozen results: 1 used, 1 out of date" in \
        (root / "_build" / "eval" / "report.md").read_text()
    page = (root / "_build" / "html-pytorch-mxnet" / "chap" / "sec.html").read_text()
    assert "calcul sur cpu" in page and "calcul sur cuda:0" not in page
    assert ("Le résultat figé de ce code, obtenu le 20/11/2026 à 14:02 UTC sur NVIDIA H100 "
            "80GB HBM3") in page and "est périmé" in page


TWO_SECTIONS = md("""
    # Chapitre

    ```toc
    sec
    sec2
    ```
    """)


def test_two_shards_are_disjoint_complete_and_merge_through_frozen(project):
    root = project.root
    (root / "chapters" / "chap" / "index.md").write_text(TWO_SECTIONS, encoding="utf-8")
    (root / "chapters" / "chap" / "sec2.md").write_text(
        section_text("import time\ntime.sleep(1)\nprint('fini')"), encoding="utf-8")
    everything = {("index", t) for t in ("pytorch", "mxnet")} | {
        (s, t) for s in ("chap/index", "chap/sec", "chap/sec2") for t in ("pytorch", "mxnet")}

    # Each shard on a fresh runner of the same commit: no _build, the committed frozen/.
    shards = []
    for k in (1, 2):
        result = project("eval", "--freeze", "--shard", f"{k}/2")
        assert result.returncode == 0, result.stdout + result.stderr
        assert f"eval: shard {k}/2: " in result.stdout
        shards.append(set(rows(root)))
        (root / "frozen").rename(root / f"frozen-{k}")
        shutil.rmtree(root / "_build")
    assert not shards[0] & shards[1] and shards[0] | shards[1] == everything
    assert all(shard & {(s, t) for s in ("chap/sec", "chap/sec2") for t in ("pytorch", "mxnet")}
               for shard in shards)   # the work is shared, not all in one shard

    # The merge: the shards' frozen trees side by side; the merged build runs nothing.
    for k in (1, 2):
        shutil.copytree(root / f"frozen-{k}", root / "frozen", dirs_exist_ok=True)
    merged = project("eval")
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert eval_summary(merged).startswith("eval: 0 ran, 0 cached, 4 frozen, 0 failed")

    # Now the cut is made from the durations the frozen notebooks recorded.
    cut = next(line for line in project("eval", "--shard", "1/2").stdout.split("\n")
               if line.startswith("eval: shard 1/2: "))
    loads = [float(seconds) for seconds in cut.split(": ")[-1].split(", ")]
    recorded = sum(read(path).metadata.tabbook.provenance.total_seconds
                   for path in (root / "frozen").rglob("*.ipynb"))
    assert abs(sum(loads) - recorded) <= 1 and min(loads) > 0


def test_partition_is_balanced_longest_first_and_deterministic():
    items = ["a", "b", "c", "d", "e", "f"]
    parts = partition(items, [5, 4, 3, 3, 2, 1], 2)
    assert parts == [["a", "d", "f"], ["b", "c", "e"]]     # 9 s and 9 s, each in order
    assert partition(items, [1] * 6, 4) == [["a", "e"], ["b", "f"], ["c"], ["d"]]
    assert partition(["a"], [3], 2) == [["a"], []]           # more shards than notebooks


def test_unrecorded_notebooks_are_estimated_from_their_code_cells():
    # 10 s over 5 recorded cells: 2 s a cell; a prose page costs nothing.
    assert estimates([10.0, None, None], [5, 3, 0]) == [10.0, 6.0, 0.0]
    assert estimates([None, None], [2, 4]) == [2.0, 4.0]      # nothing recorded: 1 s a cell
    chosen, loads = shard_items(["a", "b", "c"], Shard(2, 2), {"a": 10.0}.get,
                                {"a": 5, "b": 3, "c": 3}.get)
    assert chosen == ["b", "c"] and loads == [10.0, 12.0]


@pytest.mark.parametrize("value, message", [
    ("3/2", "3/2: K must be between 1 and N, e.g. 1/2"),
    ("0/2", "0/2: K must be between 1 and N, e.g. 1/2"),
    ("half", "'half' is not K/N, e.g. 1/2"),
])
def test_a_bad_shard_is_refused_with_its_fix(value, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        parse_command_line(["eval", "--shard", value])
    assert exit_.value.code == 2 and message in capsys.readouterr().err
