"""The execute stage with real kernels, on CPU: cache, failures, timeouts, Ctrl-C, locking."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from conftest import CONFIG, md, pinned_version, ran, with_build_system, write_book
from tabbook.core.language import ENGLISH_LANGUAGE

SECTION = "chapters/chap/sec.md"


@pytest.fixture(scope="module")
def pythons(framework_pythons):
    """The managed PyTorch and MXNet interpreters (created on first use)."""
    return {tab: framework_pythons[tab] for tab in ("pytorch", "mxnet")}


def section_text(torch_code: str = "x = 6 * 7\nprint(x)", prose: str = "Du texte.") -> str:
    return md("""
        ```{.python .input}
        %load_ext d2lbook.tab
        tab.interact_select(['pytorch', 'mxnet'])
        ```
        """, "# Titre", prose, f"```{{.python .input}}\n%%tab pytorch\n{torch_code}\n```",
        "```{.python .input}\n%%tab mxnet\ny = 7 * 6\nprint(y)\n```")


@pytest.fixture
def project(tmp_path, pythons):
    """A small book with the build system beside it; returns a runner of build.py."""
    with_build_system(tmp_path)
    write_book(tmp_path, {"chap/sec.md": section_text()},
               CONFIG.replace("[launch]", "[execute]\ntimeout = 20\n\n[launch]"))
    options = [f"--python={tab}={python}" for tab, python in pythons.items()]

    def build(*args: str, wait: bool = True):
        command = [sys.executable, str(tmp_path / "build.py"), args[0], *options,
                   "--tab", "pytorch", "--tab", "mxnet", *args[1:]]
        env = dict(os.environ, TABBOOK_USE_CURRENT_PYTHON="1")
        if not wait:
            return subprocess.Popen(command, cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, text=True)
        return subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=600)
    build.root = tmp_path
    return build


def edit(root: Path, text: str) -> None:
    (root / SECTION).write_text(text, encoding="utf-8")


def evaluated(root: Path, tab: str) -> nbformat.NotebookNode:
    return nbformat.read(root / "_build" / "eval" / tab / "chap" / "sec.ipynb", as_version=4)


def test_cache_and_each_invalidation_rule(project):
    root = project.root
    first = project("eval")
    assert first.returncode == 0, first.stdout + first.stderr
    assert ran(first) == 2          # sec for two tabs; the prose-only pages start no kernel
    assert "eval: 6 notebooks, 0 frozen, 0 cached, 4 without code, 2 to run" in first.stdout
    notebook = evaluated(root, "pytorch")
    outputs = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs]
    assert outputs[0].text == "42\n"
    provenance = notebook.metadata.tabbook.provenance
    assert provenance.devices == "CPU" and provenance.framework == "pytorch"
    assert provenance.framework_version.startswith(pinned_version("pytorch", "torch"))
    assert len(provenance.cell_seconds) == 1 and provenance.total_seconds > 0

    nothing = project("eval")                               # nothing changed: nothing done
    assert "Nothing changed since this command last succeeded" in nothing.stderr
    assert ran(project("eval", "--recheck")) == 0           # the cache keeps every notebook
    edit(root, section_text(prose="Un autre texte."))
    assert ran(project("eval")) == 0                        # prose only...
    notebook = evaluated(root, "pytorch")                   # ...yet the notebook has it
    assert "Un autre texte." in "".join(c.source for c in notebook.cells)
    assert [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs] == outputs
    assert notebook.metadata.tabbook.provenance == provenance
    edit(root, section_text(torch_code="x = 6 * 7\nprint(x + 1)"))
    again = project("eval")
    assert ran(again) == 1 and "done    chap/sec [pytorch]" in again.stdout
    (root / "d2l" / "torch.py").write_text("# torch library, edited\n")
    assert ran(project("eval")) == 1                        # d2l/torch.py: PyTorch only
    (root / "d2l" / "mxnet.py").write_text("# mxnet library, edited\n")
    result = project("eval")
    assert ran(result) == 1 and "done    chap/sec [mxnet]" in result.stdout
    assert ran(project("eval", "--force")) == 2


def test_a_failing_cell_is_reported_at_its_md_line_and_keeps_the_last_good_result(project):
    root = project.root
    assert project("eval").returncode == 0
    before = (root / "_build/eval/pytorch/chap/sec.ipynb").read_bytes()
    edit(root, section_text(torch_code="x = 1\n\ny = x / 0\nprint(y)"))
    lines = (root / SECTION).read_text().split("\n")
    line = lines.index("y = x / 0") + 1
    result = project("eval")
    assert result.returncode == 1
    assert f"{SECTION}:{line} [pytorch] cell 1: ZeroDivisionError: division by zero" in \
        result.stderr
    assert "\x1b[" not in result.stdout + result.stderr
    # The summary table's row: PyTorch failed, MXNet's unchanged code kept its result.
    failed_row = re.compile(r"^chap/sec +FAILED +cached$", re.M)
    assert failed_row.search(result.stdout), result.stdout
    assert (root / "_build/eval/pytorch/chap/sec.ipynb").read_bytes() == before
    assert json.loads((root / "_build/cache/mxnet/chap/sec.json").read_text())["key"]
    assert ran(project("eval")) == 0    # the failure cached nothing... and is retried:
    assert failed_row.search(project("eval").stdout)


def test_a_magic_ipython_refuses_names_its_usage_error(project):
    """IPython answers a misused magic with a UsageError and no traceback: the message
    is that error, not a line of the cell's frame (``cell 1: ------------------``)."""
    edit(project.root, section_text(torch_code="%%writefile\nx = 1"))
    result = project("eval")
    assert result.returncode == 1
    assert f"{SECTION}:12 [pytorch] cell 1: UsageError: " in result.stderr, result.stderr
    assert "filename" in result.stderr and "------" not in result.stderr, result.stderr


def test_a_cell_past_the_timeout_is_one_located_message(project):
    config = project.root / "config.ini"
    config.write_text(config.read_text().replace("timeout = 20", "timeout = 2"))
    edit(project.root, section_text(torch_code="import time\ntime.sleep(60)"))
    result = project("eval")
    assert result.returncode == 1
    assert f"{SECTION}:12 [pytorch] cell 1: the cell ran longer than the 2 s timeout" in \
        result.stderr
    # Not the kernel's ZMQ errors while it is shut down: only the message above.
    output = result.stdout + result.stderr
    assert "Traceback" not in output and "ZMQError" not in output, output


def test_a_kernel_that_dies(project):
    edit(project.root, section_text(torch_code="import os\nos._exit(3)"))
    result = project("eval")
    assert result.returncode == 1
    assert f"{SECTION}:" in result.stderr and "the kernel died" in result.stderr


def kernels_of(pid: int) -> list[int]:
    """The Jupyter kernels started by process `pid`."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            cmdline = (entry / "cmdline").read_bytes().decode(errors="replace")
        except (OSError, ValueError, IndexError):
            continue
        if parent == pid and "ipykernel_launcher" in cmdline:
            found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_ctrl_c_stops_kernels_and_caches_nothing(project):
    root = project.root
    flag, running = root / "slow", root / "running"
    flag.write_text("")
    edit(root, section_text(torch_code=f"import os, time\nopen({str(running)!r}, 'w').close()\n"
                                       f"while os.path.exists({str(flag)!r}):\n"
                                       "    time.sleep(0.1)\nprint('done')"))
    process = project("eval", wait=False)
    try:
        # Ctrl-C once the cell runs: a fixed wait after the start line was too short on a
        # loaded machine, where the kernel was still starting.
        deadline = time.monotonic() + 120
        while not running.exists() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert running.exists(), "the cell should have started"
        kernels = kernels_of(process.pid)
        assert kernels, "the kernel should be running"
        process.send_signal(signal.SIGINT)
        output = process.communicate(timeout=60)[0]
    finally:
        process.kill()
    assert process.returncode == 130, output
    assert "interrupted" in output
    time.sleep(1)
    assert not any(alive(pid) for pid in kernels)
    assert not (root / "_build/cache/pytorch/chap/sec.json").exists()
    flag.unlink()
    result = project("eval")
    assert result.returncode == 0 and "done    chap/sec [pytorch]" in result.stdout


def test_two_builds_at_once(project):
    first = project("eval", wait=False)
    second = project("eval", wait=False)
    outputs = [first.communicate(timeout=300)[0], second.communicate(timeout=300)[0]]
    assert first.returncode == 0 and second.returncode == 0, outputs
    assert any("waiting for another build" in o for o in outputs)
    assert sum(int(next(l for l in o.split("\n") if l.startswith("eval: ") and " ran," in l)
                   .split()[1]) for o in outputs) == 2   # the second found the first's results
    nbformat.validate(evaluated(project.root, "pytorch"))


def test_require_gpu_on_a_cpu_machine(project):
    text = section_text().replace("tab.interact_select(['pytorch', 'mxnet'])",
                                  "tab.interact_select(['pytorch', 'mxnet'])\n#gpus(2)")
    edit(project.root, text)
    started = time.monotonic()
    result = project("eval", "--require-gpu")
    assert result.returncode == 1
    assert "error: --require-gpu: no GPU is visible, but chap/sec declares #gpus(2) — run " \
           "on a machine whose GPUs nvidia-smi lists, or drop --require-gpu" in result.stderr
    assert time.monotonic() - started < 20 and not (project.root / "_build/eval").exists()
    assert project("eval").returncode == 0      # without the flag it runs on the CPU


def test_python_without_the_framework(project):
    result = project("eval", f"--python=pytorch={sys.executable}")
    assert result.returncode == 1
    assert f"--python pytorch={sys.executable} cannot run the pytorch notebooks: missing " \
           "torch (ModuleNotFoundError" in result.stderr


def test_provenance_records_the_devices_the_code_used(project):
    edit(project.root, section_text("import torch\nfrom torch import nn\n"
                                     "net = nn.Linear(2, 1)\nnet(torch.ones(3, 2)).shape"))
    assert project("eval").returncode == 0
    notebook = evaluated(project.root, "pytorch")
    use = notebook.metadata.tabbook.provenance.device_use
    assert use == {"gpu_memory_peak_mib": {}, "object_devices": ["cpu"]}
    # The probe cell that asked the kernel is not part of the saved notebook.
    assert "tabbook" not in notebook.cells[-1].source
    report = json.loads((project.root / "_build/eval/report.json").read_text())
    row = next(r for r in report["rows"]
               if r["section"] == "chap/sec" and r["framework"] == "pytorch")
    assert row["used_devices"] == ["cpu"] and row["verdict"] == "CPU section"


FAKE_NVIDIA_SMI = """#!/bin/sh
# A GPU machine as nvidia-smi describes it; the frameworks here are CPU builds.
case "$1" in
  --query-gpu=*) echo "0, NVIDIA H100 80GB HBM3, 81559, 570.86.15" ;;
  *) echo "| NVIDIA-SMI 570.86.15   Driver Version: 570.86.15   CUDA Version: 12.8 |" ;;
esac
"""


def test_on_a_gpu_machine_a_framework_blind_to_it_is_caught(project, tmp_path_factory, monkeypatch):
    bin_dir = tmp_path_factory.mktemp("bin")
    (bin_dir / "nvidia-smi").write_text(FAKE_NVIDIA_SMI)
    (bin_dir / "nvidia-smi").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    edit(project.root, section_text("import torch\nx = torch.ones(2)\nx.device")
         .replace("tab.interact_select(['pytorch', 'mxnet'])",
                  "tab.interact_select(['pytorch', 'mxnet'])\n#gpus(1)"))
    report_path = project.root / "_build/eval/report.json"

    # The GPU job: a framework build that cannot see the GPU is not run, and says so.
    strict = project("eval", "--require-gpu")
    assert strict.returncode == 1, strict.stdout + strict.stderr
    assert "GPU 0 NVIDIA H100 80GB HBM3 (81559 MiB, driver 570.86.15, CUDA 12.8)" in strict.stdout
    torch = pinned_version("pytorch", "torch")
    assert f"pytorch {torch}+cpu: sees 0 GPU(s) — its build finds no usable GPU" in strict.stdout
    assert "error: chap/sec [pytorch] declares #gpus(1): framework sees no GPU" in strict.stderr
    report = json.loads(report_path.read_text())
    assert report["ok"] is False and report["gpus"][0]["name"] == "NVIDIA H100 80GB HBM3"
    assert {(r["section"], r["framework"], r["status"], r["verdict"])
            for r in report["rows"]} == {
        ("index", "pytorch", "no code", "CPU section"),      # no #gpus: as usual
        ("index", "mxnet", "no code", "CPU section"),
        ("chap/index", "pytorch", "no code", "CPU section"),
        ("chap/index", "mxnet", "no code", "CPU section"),
        ("chap/sec", "pytorch", "skipped", "framework sees no GPU"),
        ("chap/sec", "mxnet", "skipped", "framework sees no GPU")}

    # Without --require-gpu the section runs, on the CPU, and the report says so.
    loose = project("eval")
    assert loose.returncode == 0, loose.stdout + loose.stderr
    assert "warning: chap/sec [pytorch] declares #gpus(1): framework sees no GPU (its build " \
           "finds no usable GPU)" in loose.stderr
    row = next(r for r in json.loads(report_path.read_text())["rows"]
               if r["section"] == "chap/sec")
    assert row["visible_gpus"] == ["NVIDIA H100 80GB HBM3"]     # it was given the GPU...
    assert row["used_devices"] == ["cpu"] and row["output_devices"] == ["cpu"]   # ...unused
    assert row["verdict"] == "framework sees no GPU"
    assert "| chap/sec | pytorch | ran |" in (project.root / "_build/eval/report.md").read_text()


def test_kernels_side_by_side_share_the_cores(tmp_path, monkeypatch):
    """Each of N kernels gets cores/N threads; a thread count the user set is kept."""
    from tabbook.execution.execute import Executor
    from tabbook.core.layout import Layout

    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    layout = Layout(tmp_path)

    def environment(jobs: int) -> dict[str, str]:
        return Executor(layout, {}, [], jobs=jobs, timeout=10,
                        language=ENGLISH_LANGUAGE)._environment([])
    alone, shared = environment(1), environment(2)
    assert "OMP_NUM_THREADS" not in alone
    assert shared["OMP_NUM_THREADS"] == shared["TF_NUM_INTRAOP_THREADS"] == "4"
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    assert environment(2)["OMP_NUM_THREADS"] == "3"


def test_a_result_that_cannot_be_saved_fails_its_notebook_and_the_others_still_run(project):
    """A write error while saving a run's result (here its cache record is a folder: a
    fault that holds even for root, as a full disk would) fails that notebook, at the
    file; the other notebooks run, the status is 1, and no page is published."""
    root = project.root
    assert project("eval").returncode == 0
    before = (root / "_build/eval/pytorch/chap/sec.ipynb").read_bytes()
    edit(root, section_text(torch_code="x = 6 * 8\nprint(x)").replace("7 * 6", "7 * 8"))
    record = root / "_build/cache/pytorch/chap/sec.json"
    record.unlink()
    record.mkdir()
    result = project("html", "-j", "1")
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert f"  {SECTION} [pytorch]: its result could not be saved: cannot write {record}: " \
           "Is a directory" in result.stderr, output
    assert "done    chap/sec [mxnet]" in result.stdout
    assert "eval: 1 ran, 0 cached, 0 frozen, 1 failed" in result.stdout, output
    rows = {r["framework"]: r["status"] for r in json.loads(
        (root / "_build/eval/report.json").read_text())["rows"] if r["section"] == "chap/sec"}
    assert rows == {"pytorch": "failed", "mxnet": "ran"}
    # The last good result is kept, and no page shows the new code without its outputs.
    assert (root / "_build/eval/pytorch/chap/sec.ipynb").read_bytes() == before
    assert not list(root.glob("_build/html*"))
    record.rmdir()
    again = project("html", "-j", "1")
    assert again.returncode == 0 and "done    chap/sec [pytorch]" in again.stdout


def test_a_process_the_code_leaves_behind_is_killed_and_told(project):
    """A process a cell starts in its own session escapes the kernel's shutdown: the build
    finds it, kills it and says so, naming the section, the tab and the process."""
    edit(project.root, section_text(
        torch_code="import subprocess\nchild = subprocess.Popen(['sleep', '600'], "
                   "start_new_session=True)\nprint(child.pid)"))
    result = project("eval")
    pid = int(next(c for c in evaluated(project.root, "pytorch").cells
                   if "Popen" in c.source).outputs[0].text)
    try:
        assert result.returncode == 0, result.stdout + result.stderr
        assert f"warning: {SECTION} [pytorch]: process {pid} (sleep 600), started by its " \
               "code, outlived the kernel: killed" in result.stderr, result.stderr
        time.sleep(0.5)
        assert not alive(pid)
    finally:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)


def test_a_bug_in_the_build_s_own_hooks_is_a_bug_not_a_failed_notebook(tmp_path, monkeypatch,
                                                                          pythons):
    """nbclient runs the build's hooks inside a notebook's run: an exception of theirs ends
    the eval as a bug of the build (its traceback, status 2), while an error of the
    notebook's code still fails that notebook only."""
    import io

    from test_evaluate import Book, runtime
    from tabbook.cli.console import Console
    from tabbook.cli.main import reporting
    from tabbook.execution import execute
    from tabbook.execution.kernels import write_kernel_spec
    from tabbook.execution.tasks import Status

    book = Book(tmp_path)
    write_kernel_spec(book.layout.jupyter_data, "tabbook-pytorch", pythons["pytorch"],
                      "Python 3 (pytorch)", {})

    def run(code: str) -> tuple[int, str, list]:
        edit(tmp_path, (tmp_path / SECTION).read_text().replace("x = 6 * 7", code))
        executor = execute.Executor(book.layout, {"pytorch": runtime()}, [], jobs=1,
                                    timeout=60, language=book.config.project.language)
        console, executions = Console(io.StringIO(), io.StringIO()), []
        status = reporting(lambda: len(executions.extend(
            executor.run(list(book.plan().queue))) or []), console)
        return status, console.err.getvalue(), executions

    status, err, executions = run("x = 1 / 0")   # the notebook's own error
    assert status == 0 and err == ""
    assert [e.status for e in executions] == [Status.FAILED]
    assert "ZeroDivisionError" in executions[0].message

    def broken(self, cell, cell_index, **_):
        raise AttributeError("a bug in the build's hook")
    monkeypatch.setattr(execute._Hooks, "cell_executed", broken)
    status, err, executions = run("x = 6 * 7")
    assert status == 2 and executions == []
    assert "AttributeError: a bug in the build's hook" in err and "Traceback" in err
    assert "this is a bug of the build system" in err
    assert not book.record_path.exists() and not book.executed_path.exists()
