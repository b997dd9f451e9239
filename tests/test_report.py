"""The GPU report, built from recorded notebooks (no kernel, no GPU needed)."""
from __future__ import annotations

import json
from pathlib import Path

import nbformat

from tabbook.execution.devices import devices_in_outputs, normalise, read_probe, used_gpu, MARKER
from tabbook.execution.tasks import Execution, Planned, Status, Task
from tabbook.execution.kernels import Gpu
from tabbook.core.model import Section
from tabbook.execution.report import FrameworkInfo, build_report, write_report

H100 = Gpu(0, "NVIDIA H100 80GB HBM3", 81559, "570.86.15", "12.8")
H100_B = Gpu(1, "NVIDIA H100 80GB HBM3", 81559, "570.86.15", "12.8")
GIVEN = [{"name": g.name, "memory_mib": g.memory_mib, "driver": g.driver, "cuda": g.cuda}
         for g in (H100, H100_B)]


def recorded(outputs: list[str], devices, device_use: dict, seconds: float = 4.2) -> dict:
    """An executed notebook as the executor saves it: outputs and provenance."""
    notebook = nbformat.v4.new_notebook()
    for text in outputs:
        cell = nbformat.v4.new_code_cell("...")
        cell.outputs = [nbformat.v4.new_output("execute_result", {"text/plain": text},
                                               execution_count=1)]
        notebook.cells.append(cell)
    notebook.metadata["tabbook"] = {"provenance": {
        "date": "2026-11-21T10:00:00+00:00", "framework": "pytorch", "devices": devices,
        "device_use": device_use, "total_seconds": seconds}}
    return json.loads(nbformat.writes(notebook))


def execution(section: str, tab: str, gpus: int, status: str, seconds: float,
              executed: dict | None) -> tuple[Execution, dict | None]:
    """An execution of `section` declaring #gpus(`gpus`), with its executed notebook."""
    task = Task(Section(Path(f"{section}.md"), f"chapters/{section}.md", gpus=gpus), tab,
                nbformat.v4.new_notebook())
    return Execution(Planned(task, "key", "frozen key", 0.0, None, None), Status(status),
                     seconds), executed


def report_of(runs: list[tuple[Execution, dict | None]], gpus, frameworks, require_gpu: bool):
    """The report of `runs`; it reads each executed notebook through build_report's loader."""
    notebooks = {id(run.task): executed for run, executed in runs}
    return build_report([run for run, _ in runs], lambda task: notebooks[id(task)], gpus,
                        frameworks, require_gpu=require_gpu)


ON_GPU = recorded(["device(type='cuda', index=0)", "tensor([1.], device='cuda:1')"], GIVEN,
                  {"gpu_memory_peak_mib": {"cuda:0": 512.0, "cuda:1": 8.0},
                   "object_devices": ["cuda:0", "cpu"]})
FELL_BACK = recorded(["device(type='cpu')"], GIVEN[:1],
                     {"gpu_memory_peak_mib": {}, "object_devices": ["cpu"]})
MXNET_ON_GPU = recorded(["gpu(0)"], GIVEN[:1],
                        {"gpu_memory_peak_mib": {}, "object_devices": ["gpu(0)"]})
TF_ON_GPU = recorded(["'/job:localhost/replica:0/task:0/device:GPU:0'"], GIVEN[:1],
                     {"gpu_memory_peak_mib": {"GPU:0": 37.5},
                      "object_devices": ["/job:localhost/replica:0/task:0/device:GPU:0"]})
ON_CPU = recorded(["device(type='cpu')"], "CPU",
                  {"gpu_memory_peak_mib": {}, "object_devices": ["cpu"]})
FRAMEWORKS = {"pytorch": FrameworkInfo("2.13.0", "3.11.7", 2),
              "mxnet": FrameworkInfo("1.9.1", "3.11.7", 2),
              "tensorflow": FrameworkInfo("2.21.0", "3.11.7", 2)}


def test_gpu_runs_are_read_from_provenance_and_outputs():
    report = report_of([
        execution("chapter_gpu/use-gpu", "pytorch", 2, "ran", 12.5, ON_GPU),
        execution("chapter_gpu/use-gpu", "mxnet", 2, "cached", 0.0, MXNET_ON_GPU),
        execution("chapter_gpu/use-gpu", "tensorflow", 2, "ran", 20.0, TF_ON_GPU),
    ], [H100, H100_B], FRAMEWORKS, require_gpu=True)
    assert not report.problems
    torch_row, mxnet_row, tf_row = report.rows
    assert torch_row.verdict == "GPU" and torch_row.seconds == 12.5
    assert torch_row.visible_gpus == ["NVIDIA H100 80GB HBM3"] * 2
    assert torch_row.used_devices == ["cuda:0", "cpu"]           # GPUs first
    assert torch_row.gpu_memory_peak_mib == {"cuda:0": 512.0, "cuda:1": 8.0}
    assert torch_row.output_devices == ["cuda:0", "cuda:1"]
    assert mxnet_row.verdict == "GPU" and mxnet_row.seconds == 4.2   # cached: its last run
    assert tf_row.used_devices == ["GPU:0"] and tf_row.output_devices == ["GPU:0"]


def test_a_cpu_fallback_among_gpu_sections_fails():
    report = report_of([
        execution("chapter_gpu/use-gpu", "pytorch", 2, "ran", 12.5, ON_GPU),
        execution("chapter_gpu/measure", "pytorch", 1, "ran", 3.0, FELL_BACK),
        execution("chapter_foundations/training-api", "pytorch", 0, "cached", 0.0, ON_CPU),
    ], [H100, H100_B], FRAMEWORKS, require_gpu=True)
    assert [(row.section, row.verdict) for row in report.problems] == [
        ("chapter_gpu/measure", "CPU fallback")]
    assert report.rows[2].verdict == "CPU section"                 # no #gpus: not judged
    data = json.loads(report.to_json())
    assert data["ok"] is False and data["gpus"][0]["name"] == "NVIDIA H100 80GB HBM3"
    markdown = report.to_markdown()
    assert "result: **1 problem(s)**" in markdown
    assert "| 0 | NVIDIA H100 80GB HBM3 | 81559 MiB | 570.86.15 | 12.8 |" in markdown
    assert ("| chapter_gpu/measure | pytorch | ran | 3.0 s | 1 | NVIDIA H100 80GB HBM3 | cpu "
            "| cpu | CPU fallback |") in markdown
    assert "cuda:0, cpu (peak cuda:0 512 MiB, cuda:1 8 MiB)" in markdown


def test_a_device_listing_in_the_outputs_counts_as_gpu_use():
    # Listing the GPUs allocates nothing, yet the section did reach them.
    listing = recorded(["cuda:0: NVIDIA H100 80GB HBM3, 79.1 GiB, compute capability 9.0"],
                       GIVEN[:1], {"gpu_memory_peak_mib": {"cuda:0": 0.0},
                                   "object_devices": []})
    tf_listing = recorded(["/physical_device:GPU:0: NVIDIA H100, compute capability 9.0"],
                          GIVEN[:1], {"gpu_memory_peak_mib": {"GPU:0": 0.0},
                                      "object_devices": []})
    report = report_of([
        execution("chapter_access/own-gpu", "pytorch", 2, "ran", 2.0, listing),
        execution("chapter_access/own-gpu", "tensorflow", 2, "ran", 4.0, tf_listing),
    ], [H100], FRAMEWORKS, require_gpu=True)
    assert [row.verdict for row in report.rows] == ["GPU", "GPU"] and not report.problems
    assert report.rows[1].output_devices == ["GPU:0"]


def test_failures_unknown_use_and_blind_frameworks_are_problems():
    blind = dict(FRAMEWORKS, mxnet=FrameworkInfo("1.9.1", "3.11.7", 0, "CUDA 11.7 build"))
    report = report_of([
        execution("a", "pytorch", 1, "failed", 2.0, ON_GPU),               # the old good result
        execution("b", "pytorch", 1, "ran", 2.0, recorded(["x"], GIVEN, {"probe_error": "boom"})),
        execution("c", "mxnet", 1, "skipped", 0.0, None),
        execution("d", "tensorflow", 1, "ran", 1.0, None),
    ], [H100], blind, require_gpu=True)
    assert [row.verdict for row in report.rows] == [
        "failed", "device use unknown", "framework sees no GPU", "no executed notebook"]
    assert len(report.problems) == 4
    assert "| mxnet | 1.9.1 | 3.11.7 | 0 — CUDA 11.7 build |" in report.to_markdown()


def test_on_a_cpu_machine_nothing_is_expected_of_gpu_sections(tmp_path):
    cpu_only = {tab: FrameworkInfo(info.version, info.python) for tab, info in FRAMEWORKS.items()}
    report = report_of([execution("chapter_gpu/use-gpu", "pytorch", 2, "ran", 3.0, ON_CPU)],
                          [], cpu_only, require_gpu=False)
    assert report.rows[0].verdict == "CPU: no GPU here" and not report.problems
    json_path, md_path = write_report(report, tmp_path / "eval")
    assert json.loads(json_path.read_text())["ok"] is True
    assert "No GPU visible: everything ran on the CPU." in md_path.read_text()
    assert "| pytorch | 2.13.0 | 3.11.7 | not asked (no GPU here) |" in md_path.read_text()


def test_device_names_and_probe_output():
    assert [normalise(d) for d in ("cuda:1", "device(type='cuda', index=0)",
                                   "device(type='cpu')", "gpu(0)", "cpu(0)",
                                   "/job:localhost/replica:0/task:0/device:GPU:1", "/GPU:0")] \
        == ["cuda:1", "cuda:0", "cpu", "gpu(0)", "cpu(0)", "GPU:1", "GPU:0"]
    printed = f"some output\n{MARKER}" + json.dumps({"gpu_memory_peak_mib": {"cuda:0": 0.0},
                                                     "object_devices": ["cpu"]})
    use = read_probe(printed)
    assert use["object_devices"] == ["cpu"] and used_gpu(use) is False
    assert used_gpu({"gpu_memory_peak_mib": {"GPU:0": 3.0}, "object_devices": []}) is True
    assert used_gpu({"gpu_memory_peak_mib": {}, "object_devices": ["gpu(0)"]}) is True
    assert used_gpu({}) is None and read_probe("no marker here") == {}
    # Words in prose are not devices; device names are.
    assert devices_in_outputs(recorded(["no GPU: running on the CPU", "cpu(0) and /GPU:0"],
                                       "CPU", {})) == ["cpu(0)", "GPU:0"]
