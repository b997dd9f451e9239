"""The repository keeps its promises: README commands, CI entry, pinned requirements."""
from __future__ import annotations

import itertools
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import yaml

from conftest import REPO, requirements
from tabbook.cli.main import make_parser
from tabbook.core.config import load_config


def readme_commands() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    lines = text.split("\n")
    assert lines[0].startswith("```"), "README.md must start with its two commands"
    end = lines.index("```", 1)
    return [line.split("#")[0].strip() for line in lines[1:end]]


def test_readme_starts_with_the_build_and_test_commands():
    assert readme_commands() == ["python3 build.py", "python3 build.py test"]


def test_ci_runs_the_readme_commands():
    script = REPO / ".ci" / "run"
    assert script.stat().st_mode & 0o111, ".ci/run must be executable"
    text = script.read_text()
    assert "README.md" in text
    # The script's own extraction gives the README's commands.
    extracted = subprocess.run(
        ["bash", "-c", "awk '/^```/ { fences++; next } fences == 1' README.md"],
        cwd=REPO, capture_output=True, text=True, check=True).stdout.strip().split("\n")
    assert [line.split("#")[0].strip() for line in extracted] == readme_commands()


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
    ignored = (REPO / ".gitignore").read_text().split("\n")
    assert "/_build" in ignored and "/.envs" in ignored   # folders or links (worktrees)


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
    config = load_config(REPO)
    publish_text = (REPO / ".github" / "workflows" / "publish.yml").read_text()
    assert "library_ref" in publish_text and config.launch.library_ref == f"v{config.project.release}"


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
    builds = [line for line in lines if re.match(r"python3(\.11)? build\.py", line)]
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
    reports = uploads["gpu-${{ matrix.framework }}-${{ matrix.shard }}"]
    assert reports["if"] == "always()"
    assert {"_build/eval/report.json", "_build/eval/report.md"} <= set(
        reports["with"]["path"].split())
    assert uploads["frozen-${{ matrix.framework }}-${{ matrix.shard }}"]["with"]["path"] == \
        "frozen/"

    # The last job merges the shards' frozen trees and opens a pull request with them.
    proposal = workflow["jobs"]["pull-request"]
    assert proposal["needs"] == "gpu" and proposal["permissions"]["pull-requests"] == "write"
    downloads = [s["with"] for s in proposal["steps"]
                 if s.get("uses", "").startswith("actions/download-artifact")]
    assert {"pattern": "frozen-*", "path": "frozen", "merge-multiple": True} in downloads
    script = "\n".join(s.get("run", "") for s in proposal["steps"])
    assert "gh pr create" in script and "--body-file body.md" in script
    assert "report.md" in script
    result = subprocess.run(["bash", "-n"], input=script, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
