"""The repository keeps its promises: README commands, CI entry, pinned requirements."""
from __future__ import annotations

import itertools
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import REPO, requirements, shared_path
from tabbook.cli.options import make_parser
from tabbook.core.config import load_config


def readme_commands() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    lines = text.split("\n")
    assert lines[0].startswith("```"), "README.md must start with its two commands"
    end = lines.index("```", 1)
    return [line.split("#")[0].strip() for line in lines[1:end]]


def test_readme_starts_with_the_build_and_test_commands():
    assert readme_commands() == ["python3 build.py", "python3 build.py test"]


def run_ci(tmp_path: Path, *commands: str) -> subprocess.CompletedProcess:
    """The real .ci/run, in a copy of the repository whose README.md opens with `commands`."""
    (tmp_path / ".ci").mkdir()
    shutil.copy2(REPO / ".ci" / "run", tmp_path / ".ci" / "run")
    (tmp_path / "README.md").write_text("```bash\n" + "\n".join(commands) + "\n```\n\n# Livre\n",
                                        encoding="utf-8")
    return subprocess.run([str(tmp_path / ".ci" / "run")], cwd=tmp_path / ".ci",
                          capture_output=True, text=True, timeout=60)


def test_ci_runs_the_readme_commands_in_order(tmp_path):
    result = run_ci(tmp_path, "echo build >> ran   # builds", "echo test >> ran  # tests")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "ran").read_text() == "build\ntest\n"    # from the root, in order
    assert result.stdout.split("\n")[0].rstrip() == "+ echo build >> ran"


def test_ci_stops_at_a_failing_command(tmp_path):
    result = run_ci(tmp_path, "echo build >> ran; false", "echo test >> ran")
    assert result.returncode != 0
    assert (tmp_path / "ran").read_text() == "build\n"


@pytest.mark.parametrize("commands", [["echo build >> ran"],
                                      ["echo a >> ran", "echo b >> ran", "echo c >> ran"]])
def test_ci_refuses_a_readme_without_exactly_two_commands(tmp_path, commands):
    result = run_ci(tmp_path, *commands)
    assert result.returncode == 1
    assert "README.md must start with a code block of exactly two commands" in result.stderr
    assert not (tmp_path / "ran").exists()


FRAMEWORKS = ("pytorch", "mxnet", "tensorflow")


def test_requirements_are_pinned():
    for name in ("tools", *FRAMEWORKS, *(f"{tab}-gpu" for tab in FRAMEWORKS)):
        for requirement in requirements(name):
            assert re.fullmatch(r"[A-Za-z0-9_.-]+(\[[a-z-]+\])?==[0-9][\w.]*", requirement), \
                (name, requirement)
    assert "torch==2.13.0" in requirements("pytorch")
    assert "mxnet==1.9.1" in requirements("mxnet")
    numpy_mx = next(r for r in requirements("mxnet") if r.startswith("numpy=="))
    assert tuple(map(int, numpy_mx.split("==")[1].split(".")[:2])) < (1, 24)
    assert "tensorflow-cpu==2.21.0" in requirements("tensorflow")
    assert not any(r.startswith("tf-keras") for r in requirements("tensorflow"))


def test_gpu_requirement_sets_are_the_cpu_ones_with_the_gpu_builds():
    gpu_builds = {"pytorch": "torch==2.13.0", "mxnet": "mxnet-cu117==1.9.1",
                  "tensorflow": "tensorflow[and-cuda]==2.21.0"}
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for tab in FRAMEWORKS:
        cpu, gpu = requirements(tab), requirements(f"{tab}-gpu")
        assert gpu_builds[tab] in gpu
        # Same numpy, matplotlib and ipykernel: a GPU run shows what the CPU run shows.
        assert [r for r in cpu if r.split("==")[0] in ("numpy", "matplotlib", "ipykernel")] == \
            [r for r in gpu if r.split("==")[0] in ("numpy", "matplotlib", "ipykernel")]
        assert f"requirements/{tab}-gpu.txt" in readme     # documented for instructors
    # MXNet's CUDA 11.7 build finds its CUDA libraries in these wheels (LD_LIBRARY_PATH).
    assert {r.split("==")[0] for r in requirements("mxnet-gpu") if r.startswith("nvidia-")} >= {
        "nvidia-cuda-runtime-cu11", "nvidia-cublas-cu11", "nvidia-cudnn-cu11",
        "nvidia-cuda-nvrtc-cu11", "nvidia-nccl-cu11"}


def test_environment_yml_matches_the_tools_requirements():
    environment = yaml.safe_load((REPO / "environment.yml").read_text())
    dependencies = environment["dependencies"]
    assert "python=3.11" in dependencies
    pip = next(d["pip"] for d in dependencies if isinstance(d, dict))
    assert sorted(pip, key=str.lower) == sorted(requirements("tools"), key=str.lower)


def test_build_outputs_and_environments_are_ignored():
    # As folders or as links to shared ones (worktrees share one set of environments).
    paths = ["_build", ".envs"]
    result = subprocess.run(["git", "check-ignore", "--no-index", *paths], cwd=REPO,
                            capture_output=True, text=True)
    assert result.stdout.split() == paths, result.stderr


def test_workflows_are_valid_yaml_and_run_the_ci_entry():
    workflow = yaml.safe_load((REPO / ".github" / "workflows" / "ci.yml").read_text())
    steps = workflow["jobs"]["build-and-test"]["steps"]
    assert any(step.get("run") == "bash .ci/run" for step in steps)


def test_the_publish_workflow_runs_build_commands_that_exist():
    workflow = yaml.safe_load((REPO / ".github" / "workflows" / "publish.yml").read_text())
    assert workflow[True]["push"]["branches"] == ["main"]   # YAML reads the key `on` as True
    steps = workflow["jobs"]["build"]["steps"]
    commands = [shlex.split(line) for step in steps for line in step.get("run", "").split("\n")
                if line.strip().startswith("python3 build.py")]
    assert ["python3", "build.py"] in commands   # the README's build command
    parser = make_parser()
    outs = []
    for command in commands:
        args = parser.parse_args(command[2:])   # exits (fails the test) on an unknown option
        outs.append((args.command, getattr(args, "out", None)))
    assert ("launch", Path("public/notebooks")) in outs and ("html", Path("public/site")) in outs
    # The site offers the PDFs printed before it.
    assert outs.index(("pdf", None)) < outs.index(("html", Path("public/site")))
    uploads = [s for s in steps if s.get("uses", "").startswith("actions/upload-pages-artifact")]
    assert uploads and uploads[0]["with"]["path"] == "public/site"
    # The tag the launch notebooks install, asked of the build (test_launch.py runs the step).
    publish_text = (REPO / ".github" / "workflows" / "publish.yml").read_text()
    asked = re.findall(r"\$\(python3 build\.py ([^)]*)\)", publish_text)
    assert [(args.command, args.tag) for args in map(parser.parse_args, map(shlex.split, asked))] \
        == [("lib", True)]


def test_the_gpu_workflow_freezes_the_gpu_sections_in_shards_and_proposes_them():
    workflow = yaml.safe_load((REPO / ".github" / "workflows" / "gpu.yml").read_text())
    triggers = workflow[True]                   # YAML reads the key `on` as True
    assert "chapters/**" in triggers["push"]["paths"] and "d2l/**" in triggers["push"]["paths"]
    assert not any(path.startswith("frozen") for path in triggers["push"]["paths"])   # no loop
    assert triggers["schedule"] and "workflow_dispatch" in triggers
    assert workflow["concurrency"]["cancel-in-progress"] is False
    job = workflow["jobs"]["gpu"]
    assert job["runs-on"] == ["self-hosted", "gpu"] and job["strategy"]["fail-fast"] is False
    matrix = job["strategy"]["matrix"]
    frameworks, shards = matrix["framework"], matrix["shard"]
    assert sorted(frameworks) == sorted(load_config(REPO).build.tabs)
    lines = [line.strip() for step in job["steps"] for line in step.get("run", "").split("\n")]
    # The eval line keeps its status for the gathering job (`|| status=$?`).
    builds = [line.split(" || ")[0] for line in lines
              if re.match(r"python3(\.11)? build\.py", line)]
    assert builds
    parser = make_parser()
    for framework, shard, force in itertools.product(frameworks, shards, ("", "--force")):
        for line in builds:
            line = (line.replace("${{ matrix.framework }}", framework)
                    .replace("${{ matrix.shard }}", str(shard)).replace("$FORCE", force))
            args = parser.parse_args(shlex.split(line)[2:])   # exits (fails) on a bad option
            assert args.command == "eval" and args.tab == [framework]
            assert args.gpu_only and args.require_gpu and args.freeze
            assert args.force == bool(force)
            assert (args.shard.index, args.shard.count) == (shard, len(shards))
            assert args.python == [f"{framework}=.envs-gpu/{framework}/bin/python"]
            assert f"requirements/{framework}-gpu.txt" in "\n".join(lines).replace(
                "${{ matrix.framework }}", framework)
    # Each command the workflow calls exists: build.py answers its --help.
    for command in {shlex.split(line)[2] for line in builds}:
        result = subprocess.run([sys.executable, str(REPO / "build.py"), command, "--help"],
                                capture_output=True, text=True,
                                env=dict(os.environ, TABBOOK_USE_CURRENT_PYTHON="1"))
        assert result.returncode == 0 and "--shard" in result.stdout, result.stderr
    uploads = {s["with"]["name"]: s for s in job["steps"]
               if s.get("uses", "").startswith("actions/upload-artifact")}
    # A task is uploaded as the book folder `build.py gather` reads: its paths kept.
    task = uploads["task-${{ matrix.framework }}-${{ matrix.shard }}"]
    assert task["if"] == "always()"
    assert {"frozen/", "_build/eval/report.json", "_build/eval/report.md", "exit-status"} <= set(
        task["with"]["path"].split())
    assert any("> exit-status" in line for line in lines)

    # The last job gathers the tasks (frozen/, one summary), as the Slurm array's last job
    # does, and opens a pull request with them.
    proposal = workflow["jobs"]["pull-request"]
    assert proposal["needs"] == "gpu" and proposal["permissions"]["pull-requests"] == "write"
    downloads = [s["with"] for s in proposal["steps"]
                 if s.get("uses", "").startswith("actions/download-artifact")]
    assert {"pattern": "task-*", "path": "tasks"} in downloads
    script = "\n".join(s.get("run", "") for s in proposal["steps"])
    assert "python3.11 build.py gather --summary summary.md tasks/task-*" in script
    assert "gh pr create" in script and "--body-file body.md" in script
    assert "summary.md" in script
    result = subprocess.run(["bash", "-n"], input=script, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_a_missing_shared_folder_skips_locally_and_fails_in_ci(tmp_path, monkeypatch):
    absent = tmp_path / "shared" / "corpus"
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="needs ../shared"):
        shared_path(absent)
    monkeypatch.setenv("CI", "true")     # what GitHub's runners set
    with pytest.raises(pytest.fail.Exception, match="CI has it"):
        shared_path(absent)
    assert shared_path(tmp_path) == tmp_path


def test_the_fast_suite_leaves_out_kernels_browser_and_network():
    result = subprocess.run([sys.executable, str(REPO / "build.py"), "test", "--fast",
                             "--collect-only", "-q"], cwd=REPO, capture_output=True, text=True,
                            env=dict(os.environ, TABBOOK_USE_CURRENT_PYTHON="1"), timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    collected = set(re.findall(r"^tests/(\S+)$", result.stdout, re.M))
    # Marked in their modules, or through the shared fixtures they use (conftest.py).
    for slow in ("test_compat.py::test_a_d2lbook_book_executes_and_renders",     # kernels
                 "test_execute.py::test_cache_and_each_invalidation_rule",      # framework_pythons
                 "test_typography.py::test_every_page_of_the_book_has_french_spacing",
                 "test_html.py::test_a_section_without_the_chosen_framework_says_so",  # chromium
                 "test_pdf.py::test_only_the_tabs_code_prose_and_outputs",      # browser
                 "test_launch.py::test_launch_notebooks_run_top_to_bottom_in_a_platform_like_venv"
                 "[pytorch]"):                                                   # network
        assert slow not in collected
    for fast in ("test_execute.py::test_kernels_side_by_side_share_the_cores",
                 "test_html.py::test_names_and_titles_are_escaped_and_the_author_is_in_the_head",
                 "test_pdf.py::test_no_chromium_is_a_clear_error"):
        assert fast in collected
