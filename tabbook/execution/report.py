"""Report stage: what ran where, from the executed notebooks (JSON and Markdown).

For each section × framework: status, time, the GPUs it was given, and the
devices its code really used, as the kernel reported them after the last
cell (provenance) and as the outputs name them (a device listing counts as
use). On a machine with GPUs, a
section that declares ``#gpus`` but computed on the CPU is a failure of the
GPU job, not a detail. A notebook taken from the frozen store is judged by the
devices its frozen run used, wherever the report is made; a frozen result that
no longer matches its code is said to be out of date.
"""
from __future__ import annotations

import datetime
import enum
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from .devices import devices_in_outputs, is_gpu, normalise, used_gpu
from ..bootstrap.records import atomic_write
from .kernels import Gpu
from .provenance import frozen_of, provenance_of
from .tasks import Execution, Status, Task

REPORT_NAME = "report"   # _build/eval/report.json and report.md
SUMMARY = {Status.REEVALUATED: "re-evaluated", Status.CACHED: "cached", Status.FROZEN: "frozen",
           Status.NO_CODE: "no code", Status.FAILED: "FAILED", Status.INTERRUPTED: "interrupted",
           Status.SKIPPED: "skipped: no GPU"}
"""The console's word for each status (`summary_table`)."""
FROZEN = {"used": "used", "stale": "out of date"}   # the report's words for a frozen note


class Verdict(enum.StrEnum):
    """Where a section computed, as far as the report can tell."""
    GPU = "GPU"
    CPU_SECTION = "CPU section"
    NO_GPU_HERE = "CPU: no GPU here"
    FAILED = "failed"
    INTERRUPTED = "interrupted"
    BLIND_FRAMEWORK = "framework sees no GPU"
    NO_NOTEBOOK = "no executed notebook"
    FROZEN_ON_CPU = "CPU (frozen)"
    USE_UNKNOWN = "device use unknown"
    CPU_FALLBACK = "CPU fallback"

    @property
    def ok(self) -> bool:
        """Whether a GPU job may pass with it."""
        return self in (Verdict.GPU, Verdict.CPU_SECTION, Verdict.NO_GPU_HERE)


@dataclass
class FrameworkInfo:
    version: str
    python: str
    gpus_seen: int | None = None
    """GPUs the framework build itself sees; None when not asked (no GPU here)."""
    problem: str = ""


@dataclass
class ReportLine:
    """One section × framework of the report: what ran where, and the verdict."""
    section: str
    framework: str
    status: Status
    seconds: float
    declared_gpus: int
    visible_gpus: list[str]
    used_devices: list[str]
    gpu_memory_peak_mib: dict[str, float]
    output_devices: list[str]
    verdict: Verdict
    frozen: str = ""
    """The frozen result: used, out of date, or "" when there is none."""
    error: str = ""
    """Why it failed, at the .md line (as the console said it); "" unless it failed."""


@dataclass
class Report:
    date: str
    require_gpu: bool
    gpus: list[dict]
    frameworks: dict[str, dict]
    rows: list[ReportLine] = field(default_factory=list)
    not_judged: list[str] = field(default_factory=list)
    """The claims the frozen runs shown predate, located (judged by the next GPU run)."""
    notes: list[str] = field(default_factory=list)
    """What the features note of the runs, located (claims that hold narrowly)."""

    @property
    def problems(self) -> list[ReportLine]:
        return [row for row in self.rows if not row.verdict.ok]

    @property
    def failed(self) -> list[ReportLine]:
        return [row for row in self.rows if row.status is Status.FAILED]

    @property
    def out_of_date(self) -> list[ReportLine]:
        return [row for row in self.rows if row.frozen == FROZEN["stale"]]

    @property
    def doubtful(self) -> list[ReportLine]:
        """The problems other than failures: GPU sections that may not have used a GPU."""
        return [row for row in self.problems if not row.status.unfinished]

    def to_json(self) -> str:
        data = asdict(self)
        data["ok"] = not self.problems
        return json.dumps(data, indent=1, ensure_ascii=False) + "\n"

    def to_markdown(self) -> str:
        return "\n".join([
            "# GPU execution report", "",
            f"{self.date} · `--require-gpu`: {'yes' if self.require_gpu else 'no'} · "
            f"result: **{'OK' if not self.problems else f'{len(self.problems)} problem(s)'}** · "
            f"frozen results: {sum(row.frozen == FROZEN['used'] for row in self.rows)} used, "
            f"{len(self.out_of_date)} out of date",
            "", "## GPUs seen", "", *self._gpu_lines(),
            "", "## Frameworks", "", *self._framework_lines(),
            "", "## Sections", "", *self._section_lines(), *self._failure_lines(),
            *self._not_judged_lines(), *self._note_lines()]) + "\n"

    def _note_lines(self) -> list[str]:
        if not self.notes:
            return []
        return ["", "## Notes", "",
                "Worth a look, never an error: a claim that holds narrowly may not hold in a "
                "noisier run.", "", *(f"- {note}" for note in self.notes)]

    def _not_judged_lines(self) -> list[str]:
        if not self.not_judged:
            return []
        return ["", "## Claims not judged", "",
                "The frozen runs shown predate these claims; the next `build.py eval "
                "--freeze` on a GPU machine judges them.", "",
                *(f"- {claim}" for claim in self.not_judged)]

    def _failure_lines(self) -> list[str]:
        if not self.failed:
            return []
        return ["", "## Failures", "",
                *(f"- `{row.section}` [{row.framework}]:\n\n  ```\n"
                  + "".join(f"  {line}\n" for line in row.error.splitlines()) + "  ```"
                  for row in self.failed)]

    def _gpu_lines(self) -> list[str]:
        if not self.gpus:
            return ["No GPU visible: everything ran on the CPU."]
        return ["| # | model | memory | driver | CUDA |", "| --- | --- | --- | --- | --- |",
                *(f"| {g['index']} | {g['name']} | {g['memory_mib']} MiB | {g['driver']} | "
                  f"{g['cuda']} |" for g in self.gpus)]

    def _framework_lines(self) -> list[str]:
        lines = ["| framework | version | Python | GPUs it sees |", "| --- | --- | --- | --- |"]
        for tab, info in self.frameworks.items():
            seen = "not asked (no GPU here)" if info["gpus_seen"] is None else str(
                info["gpus_seen"])
            if info["problem"]:
                seen += f" — {info['problem']}"
            lines.append(f"| {tab} | {info['version']} | {info['python']} | {seen} |")
        return lines

    def _section_lines(self) -> list[str]:
        lines = ["| section | framework | status | time | #gpus | given | used (kernel) | "
                 "in outputs | verdict | frozen |",
                 "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
        for row in self.rows:
            peaks = ", ".join(f"{k} {v:g} MiB" for k, v in row.gpu_memory_peak_mib.items()
                              if v > 0)
            used = ", ".join(row.used_devices) or "—"
            lines.append(
                f"| {row.section} | {row.framework} | {row.status} | {row.seconds:.1f} s | "
                f"{row.declared_gpus or '—'} | {', '.join(row.visible_gpus) or 'CPU'} | "
                f"{used}{f' (peak {peaks})' if peaks else ''} | "
                f"{', '.join(row.output_devices) or '—'} | {row.verdict} | "
                f"{row.frozen or '—'} |")
        return lines


STATUS_VERDICTS = {Status.FAILED: Verdict.FAILED, Status.INTERRUPTED: Verdict.INTERRUPTED,
                   Status.SKIPPED: Verdict.BLIND_FRAMEWORK}
"""The verdict of a notebook that did not run to its end."""


def _verdict(execution: Execution, notebook: dict | None, gpus: list[Gpu],
             info: FrameworkInfo | None, use: bool | None) -> Verdict:
    if execution.status in STATUS_VERDICTS:
        return STATUS_VERDICTS[execution.status]
    if notebook is None:
        return Verdict.NO_NOTEBOOK
    if execution.task.section.gpus == 0:
        return Verdict.CPU_SECTION
    if execution.status is Status.FROZEN:   # judged by the machine that froze it, not this one
        return Verdict.GPU if use else Verdict.FROZEN_ON_CPU
    if not gpus:
        return Verdict.NO_GPU_HERE
    if info is not None and info.gpus_seen == 0:
        return Verdict.BLIND_FRAMEWORK
    if use is None:
        return Verdict.USE_UNKNOWN
    return Verdict.GPU if use else Verdict.CPU_FALLBACK


def build_report(executions: list[Execution], executed: Callable[[Task], dict | None],
                 gpus: list[Gpu], frameworks: dict[str, FrameworkInfo],
                 require_gpu: bool, not_judged: Sequence[object] = (),
                 notes: Sequence[object] = ()) -> Report:
    """The report of `executions` on a machine with `gpus`; `executed` gives a task's
    executed notebook (its last good result), None if there is none; `not_judged` are the
    claims frozen runs predate; `notes`, what the features note of the runs."""
    report = Report(
        date=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        require_gpu=require_gpu, gpus=[asdict(g) for g in gpus],
        frameworks={tab: asdict(info) for tab, info in frameworks.items()},
        not_judged=[str(claim) for claim in not_judged], notes=[str(note) for note in notes])
    for execution in executions:
        report.rows.append(report_line(execution, executed(execution.task), gpus,
                                       frameworks.get(execution.task.tab)))
    return report


def report_line(execution: Execution, notebook: dict | None, gpus: list[Gpu],
                info: FrameworkInfo | None) -> ReportLine:
    """What `execution` did, read from its executed `notebook`: provenance and outputs."""
    provenance = provenance_of(notebook or {})
    device_use = provenance.get("device_use", {})
    visible = provenance.get("devices", "CPU")
    output_devices = devices_in_outputs(notebook)
    # Evidence of GPU use: the kernel's (memory, tensors) or a GPU the outputs name.
    use = True if any(is_gpu(d) for d in output_devices) else used_gpu(device_use)
    return ReportLine(
        section=execution.task.section.name, framework=execution.task.tab,
        status=execution.status,
        seconds=execution.seconds if execution.status is Status.RAN else float(
            provenance.get("total_seconds", execution.seconds)),
        declared_gpus=execution.task.section.gpus,
        visible_gpus=[d["name"] for d in visible] if isinstance(visible, list) else [],
        used_devices=sorted({normalise(d) for d in device_use.get("object_devices", [])},
                            key=lambda d: (not is_gpu(d), d)),
        gpu_memory_peak_mib=device_use.get("gpu_memory_peak_mib", {}),
        output_devices=output_devices,
        verdict=_verdict(execution, notebook, gpus, info, use),
        frozen=FROZEN.get(frozen_of(notebook or {}).get("status"), ""),
        error=execution.message if execution.status is Status.FAILED else "")


def write_report(report: Report, folder: Path) -> tuple[Path, Path]:
    """Write report.json and report.md into `folder`; return their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    json_path, md_path = folder / f"{REPORT_NAME}.json", folder / f"{REPORT_NAME}.md"
    atomic_write(json_path, report.to_json())
    atomic_write(md_path, report.to_markdown())
    return json_path, md_path


def summary_table(executions: list[Execution], tabs: tuple[str, ...]) -> str:
    """Section × tab: cached / ran in N s / re-evaluated / failed."""
    cells: dict[str, dict[str, str]] = {}
    for execution in executions:
        cells.setdefault(execution.task.section.name, {})[execution.task.tab] = \
            SUMMARY.get(execution.status, f"ran in {execution.seconds:.1f} s")
    width = max([len("section")] + [len(n) for n in cells])
    rows = [f"{'section':<{width}}  " + "  ".join(f"{t:<14}" for t in tabs)]
    rows += [f"{name:<{width}}  " + "  ".join(f"{row.get(t, '-'):<14}" for t in tabs)
             for name, row in cells.items()]
    return "\n".join(row.rstrip() for row in rows)
