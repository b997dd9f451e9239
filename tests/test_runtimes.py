"""Interpreters and GPUs: a probe that depends only on what the code sees, a cache that
survives a copy of the book, and the wheelhouse of a GPU node without Internet."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO, copy_repository
from tabbook.bootstrap import environments
from tabbook.bootstrap.environments import ensure_env
from tabbook.bootstrap.wheelhouse import download_command, platform_tags, write_wheelhouse
from tabbook.core.layout import Layout
from tabbook.execution import kernels
from tabbook.execution.kernels import (RuntimeSetupError, _cached_probe, detect_gpus, parse_gpus,
                                       prepare_runtime, probe)

PYTHON = Path(sys.executable)


def fake_distribution(folder: Path, name: str, version: str = "1.0") -> Path:
    """What `pip install -e .` leaves in a project's folder: its ``*.egg-info``."""
    info = folder / f"{name.replace('-', '_')}.egg-info"
    info.mkdir(parents=True)
    (info / "PKG-INFO").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    return folder


def test_the_probe_ignores_the_folder_it_is_run_from(tmp_path, monkeypatch):
    monkeypatch.chdir(fake_distribution(tmp_path, "the-book-in-cwd"))
    found = probe(PYTHON, ["json", "no_such_module_here"], {})
    assert not any(p.startswith("the-book-in-cwd==") for p in found["packages"])
    assert found["missing"] == ["no_such_module_here (ModuleNotFoundError: "
                                "No module named 'no_such_module_here')"]


def test_the_probe_leaves_out_what_the_kernels_pythonpath_holds(tmp_path):
    """The book's folder is the kernels' PYTHONPATH: an ``*.egg-info`` left there (by a
    wheel built in it, at another version than the installed one) is no installed
    package, and would make a copy of the book run every notebook again."""
    book = fake_distribution(tmp_path / "book", "stale-book-d2l", "0.1.0+d2l.old")
    (book / "book_module.py").write_text("")
    found = probe(PYTHON, ["book_module"], {"PYTHONPATH": str(book)})
    assert not any(p.startswith("stale-book-d2l==") for p in found["packages"])
    assert found["missing"] == []            # its modules are still found
    assert found["packages"] == sorted(set(found["packages"]))
    assert any(p.startswith("pytest==") for p in found["packages"])


def test_a_probe_recorded_by_another_version_of_the_probe_is_made_again(tmp_path, monkeypatch):
    layout = Layout(tmp_path)
    found = _cached_probe(layout, "pytorch", PYTHON, ["json"], {})
    monkeypatch.setattr(kernels, "PROBE", kernels.PROBE + "\n# changed\n")
    probed = []
    monkeypatch.setattr(kernels, "probe", lambda *args: probed.append(args) or found)
    _cached_probe(layout, "pytorch", PYTHON, ["json"], {})
    assert len(probed) == 1


@pytest.mark.parametrize("damage", [b"\xff\xfe not UTF-8", b"[]", b"null", b'{"probe": {}}',
                                    b'{"signature": [1, 2], "probe": {"missing": []}}',
                                    b'{"signature": ["a", "b", 0, 0, [], {}], "probe": []}'])
def test_an_unreadable_runtime_record_is_probed_again(tmp_path, damage, monkeypatch):
    layout = Layout(tmp_path)
    record = layout.runtime_record("pytorch")
    record.parent.mkdir(parents=True)
    record.write_bytes(damage)
    found = _cached_probe(layout, "pytorch", PYTHON, ["json"], {})
    assert found["missing"] == [] and found["python"] == ".".join(map(str, sys.version_info[:3]))
    # Rewritten, and read back the next time instead of probing again.
    assert record.read_bytes() != damage
    monkeypatch.setattr(kernels, "probe", lambda *_: pytest.fail("probed again"))
    assert _cached_probe(layout, "pytorch", PYTHON, ["json"], {}) == found


@pytest.mark.parametrize("field, value", [("packages", [1]), ("python", None), ("missing", {})])
def test_a_recorded_probe_of_the_wrong_shape_is_made_again(tmp_path, field, value):
    layout = Layout(tmp_path)
    found = _cached_probe(layout, "pytorch", PYTHON, ["json"], {})
    record = json.loads(layout.runtime_record("pytorch").read_text())
    record["probe"][field] = value           # its signature still matches
    layout.runtime_record("pytorch").write_text(json.dumps(record))
    assert _cached_probe(layout, "pytorch", PYTHON, ["json"], {}) == found


def test_an_interpreter_without_ipykernel_is_told_what_to_install(tmp_path, monkeypatch):
    bare = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True)
    monkeypatch.setenv("TABBOOK_WHEELHOUSE", str(tmp_path / "wheels"))
    with pytest.raises(RuntimeSetupError) as error:
        prepare_runtime(Layout(tmp_path), "pytorch", bare / "bin" / "python")
    message = str(error.value)
    assert "missing torch (ModuleNotFoundError" in message and "ipykernel (" in message
    assert (f"-m pip install --no-index --find-links {tmp_path / 'wheels'} ipykernel matplotlib"
            in message)


NVIDIA_SMI_LISTING = """\
0, NVIDIA H100 80GB HBM3, 81559, 570.86.15
1, NVIDIA H100 80GB HBM3, 81559, 570.86.15
No devices were found
"""
NVIDIA_SMI_HEADER = "| NVIDIA-SMI 570.86.15   Driver Version: 570.86.15   CUDA Version: 12.8 |"


def test_gpus_are_read_from_nvidia_smi_and_cuda_visible_devices():
    gpus = parse_gpus(NVIDIA_SMI_LISTING, NVIDIA_SMI_HEADER, None)
    assert [(g.index, g.name, g.memory_mib, g.driver, g.cuda) for g in gpus] == [
        (0, "NVIDIA H100 80GB HBM3", 81559, "570.86.15", "12.8"),
        (1, "NVIDIA H100 80GB HBM3", 81559, "570.86.15", "12.8")]
    assert [g.index for g in parse_gpus(NVIDIA_SMI_LISTING, NVIDIA_SMI_HEADER, " 1,")] == [1]
    assert parse_gpus(NVIDIA_SMI_LISTING, NVIDIA_SMI_HEADER, "") == []
    assert {g.cuda for g in parse_gpus(NVIDIA_SMI_LISTING, "no header", None)} == {""}


@pytest.mark.parametrize("script, expected", [
    (f"case \"$1\" in --query-gpu=*) echo '{NVIDIA_SMI_LISTING.splitlines()[0]}';; "
     f"*) echo '{NVIDIA_SMI_HEADER}';; esac", [(0, "12.8")]),
    ("echo 'NVIDIA-SMI has failed: no driver'; exit 9", []),       # a node without its driver
])
def test_detect_gpus_asks_nvidia_smi(tmp_path, monkeypatch, script, expected):
    (tmp_path / "nvidia-smi").write_text(f"#!/bin/sh\n{script}\n")
    (tmp_path / "nvidia-smi").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    assert [(g.index, g.cuda) for g in detect_gpus()] == expected


@pytest.mark.kernels
def test_a_copied_built_book_executes_nothing(tmp_path):
    """The execution cache is relocatable: a clone, a CI cache restored elsewhere, a
    copy of the repository reuse every result. The first copy has the ``*.egg-info``
    an editable install of d2l leaves in the repository; the second has none. Each
    probes its interpreter (its runtime record removed), as a clone with its own
    environments does."""
    python = f"pytorch={ensure_env(REPO, 'pytorch', with_d2l=True)}"
    command = ["eval", "--tab", "pytorch", "--only", "chapter_gpu/*", "--python", python]
    first = fake_distribution(copy_repository(tmp_path / "first", executed=True),
                              "gpu-dl-book-d2l", "0.1.0")
    Layout(first).runtime_record("pytorch").unlink(missing_ok=True)
    built = run_build(first, *command)   # runs what this checkout's _build lacks, if any
    assert built.returncode == 0, built.stdout + built.stderr
    second = tmp_path / "elsewhere" / "second"
    second.mkdir(parents=True)
    copy_repository(second)
    shutil.copytree(first / "_build" / "cache", second / "_build" / "cache")
    shutil.copytree(first / "_build" / "eval", second / "_build" / "eval")
    Layout(second).runtime_record("pytorch").unlink()
    again = run_build(second, *command)
    assert again.returncode == 0, again.stdout + again.stderr
    # Both sections reused: from the copied cache, or from frozen/ where a GPU run froze them.
    reused = re.search(r"^eval: 0 ran, (\d+) cached, (\d+) frozen, 0 failed", again.stdout, re.M)
    assert reused and int(reused[1]) + int(reused[2]) == 2, again.stdout
    # Its kernels import its own d2l, the file its cache keys hash, not the one the
    # environment's editable install points to.
    spec = Layout(second).jupyter_data / "kernels" / "tabbook-pytorch" / "kernel.json"
    assert json.loads(spec.read_text())["env"]["PYTHONPATH"] == str(second.resolve())


def run_build(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(root / "build.py"), *args], cwd=root,
                          env=dict(os.environ, TABBOOK_USE_CURRENT_PYTHON="1"),
                          capture_output=True, text=True, timeout=900)


# -- a GPU node without Internet ----------------------------------------------------

def test_a_manylinux_platform_takes_every_older_glibc():
    tags = platform_tags("manylinux_2_28_x86_64")
    assert tags[0] == "manylinux_2_28_x86_64" and tags[-4] == "manylinux_2_5_x86_64"
    assert "manylinux_2_17_x86_64" in tags and "manylinux_2_29_x86_64" not in tags
    assert tags[-3:] == ["manylinux2014_x86_64", "manylinux2010_x86_64", "manylinux1_x86_64"]
    assert platform_tags("manylinux2014_aarch64")[0] == "manylinux_2_17_aarch64"
    assert platform_tags("win_amd64") == ["win_amd64"]


def test_the_wheelhouse_command_asks_pip_for_wheels_of_that_python_and_platform(tmp_path):
    command = download_command(["pip"], tmp_path, [Path("tools.txt")], ["ipykernel"], "3.12",
                               ["manylinux2014_x86_64", "manylinux_2_17_x86_64"])
    assert command[:5] == ["pip", "download", "--disable-pip-version-check",
                           "--only-binary=:all:", "--dest"]
    assert command[command.index("--python-version") + 1] == "3.12"
    platforms = [command[i + 1] for i, a in enumerate(command) if a == "--platform"]
    assert platforms == platform_tags("manylinux2014_x86_64")   # each tag once
    assert command[-3:] == ["-r", "tools.txt", "ipykernel"]


@pytest.fixture(scope="module")
def wheels(tmp_path_factory) -> Path:
    """A wheelhouse of a tiny requirements file, plus pip and setuptools (for d2l)."""
    folder = tmp_path_factory.mktemp("wheels")
    requirements = folder.parent / "tiny.txt"
    requirements.write_text("six==1.17.0\n")
    result = write_wheelhouse(folder, [requirements], ["pip", "setuptools"])
    assert result.returncode == 0
    return folder


@pytest.mark.network
def test_the_wheelhouse_holds_the_wheels_for_another_python(tmp_path):
    requirements = tmp_path / "tiny.txt"
    requirements.write_text("six==1.17.0\n")
    result = write_wheelhouse(tmp_path / "wheels", [requirements], [], "3.12",
                              ["manylinux_2_28_x86_64"])
    assert result.returncode == 0
    assert [p.name for p in (tmp_path / "wheels").iterdir()] == ["six-1.17.0-py2.py3-none-any.whl"]
    requirements.write_text("no-such-package-for-tabbook==0.0.1\n")
    assert write_wheelhouse(tmp_path / "wheels", [requirements], []).returncode != 0


@pytest.mark.network
def test_an_environment_is_installed_from_the_wheelhouse_alone(tmp_path, wheels, monkeypatch):
    """No index and no other folder of wheels: what the wheelhouse lacks cannot come in."""
    root = tmp_path / "book"
    (root / "requirements").mkdir(parents=True)
    (root / "requirements" / "tiny.txt").write_text("six==1.17.0\n")
    shutil.copy(REPO / "pyproject.toml", root)
    (root / "d2l").mkdir()
    (root / "d2l" / "__init__.py").write_text('__version__ = "0.1.0"\n')
    for name in [n for n in os.environ if n.startswith("PIP_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("TABBOOK_WHEELHOUSE", str(wheels))
    python = ensure_env(root, "tiny", with_d2l=True)   # d2l too: setuptools from the wheels
    listed = subprocess.run([str(python), "-m", "pip", "list", "--format=freeze"],
                            capture_output=True, text=True, check=True).stdout.split()
    assert "six==1.17.0" in listed and "gpu-dl-book-d2l==0.1.0" in listed

    (root / "requirements" / "tiny.txt").write_text("six==1.17.0\niniconfig\n")   # not there
    with pytest.raises(environments.EnvironmentSetupError, match=f"the wheelhouse {wheels} lacks"):
        ensure_env(root, "tiny")


@pytest.mark.parametrize("damage", [b"\xff\xfe", b"[]", b"null", b'{"fingerprint": 3}', b"{"])
def test_an_environment_stamp_that_cannot_be_read_means_install_again(tmp_path, damage):
    (tmp_path / environments.STAMP).write_bytes(damage)
    assert not environments._is_current(tmp_path, "abc")


def test_an_environment_stamped_by_an_earlier_build_is_kept(tmp_path):
    """The text stamp of earlier builds still counts (no reinstall after an upgrade), and
    the JSON stamp is written beside it; another fingerprint does not match."""
    (tmp_path / environments.LEGACY_STAMP).write_text("abc\n")
    assert not environments._is_current(tmp_path, "other")
    assert environments._is_current(tmp_path, "abc")
    assert json.loads((tmp_path / environments.STAMP).read_text())["fingerprint"] == "abc"
