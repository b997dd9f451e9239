"""The d2l package and the foundations section, run for real in each framework's environment.

The environments (.envs/<framework>, from requirements/<framework>.txt plus this
repository's d2l, editable) are created on first use, as the build does.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import zipfile

import pytest

from conftest import REPO
from tabbook.core.config import load_config
from tabbook.source.parse import parse_book
from tabbook.notebooks.library import library_version
from tabbook.notebooks.split import split_section

MODULES = {"pytorch": "torch", "mxnet": "mxnet", "tensorflow": "tensorflow"}
# How each framework makes the true weight and reads a learned tensor.
SETUP = {
    "pytorch": "import torch\nw = torch.tensor([2, -3.4])\n"
               "flat = lambda t: [float(v) for v in t.reshape(-1)]",
    "mxnet": "from mxnet import np\nw = np.array([2, -3.4])\n"
             "flat = lambda t: [float(v) for v in t.reshape(-1)]",
    "tensorflow": "import tensorflow as tf\nw = tf.constant([2, -3.4])\n"
                  "flat = lambda t: [float(v) for v in tf.reshape(t, [-1])]",
}
QUIET = {"TF_CPP_MIN_LOG_LEVEL": "2", "TF_ENABLE_ONEDNN_OPTS": "0"}


@pytest.fixture(scope="module", params=list(MODULES))
def framework(request, framework_pythons):
    tab = request.param
    return tab, framework_pythons[tab]


def run(python, code: str, cwd, extra_env=None) -> subprocess.CompletedProcess:
    env = dict(os.environ, **QUIET, **(extra_env or {}))
    env.pop("PYTHONPATH", None)
    return subprocess.run([str(python), "-c", code], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)


def test_the_library_trains_linear_regression(framework, tmp_path):
    tab, python = framework
    code = f"""
import json, sys
from d2l import {MODULES[tab]} as d2l
{SETUP[tab]}
data = d2l.SyntheticRegressionData(w=w, b=4.2)
model = d2l.LinearRegression(lr=0.03)
d2l.Trainer(max_epochs=3).fit(model, data)
w_hat, b_hat = model.get_w_b()
print(json.dumps({{"w": flat(w_hat), "b": flat(b_hat), "file": d2l.__file__,
                  "torchvision": "torchvision" in sys.modules}}))
"""
    result = run(python, code, tmp_path)
    assert result.returncode == 0, result.stderr
    learned = json.loads(result.stdout.strip().split("\n")[-1])
    assert learned["w"] == pytest.approx([2, -3.4], abs=0.05)
    assert learned["b"] == pytest.approx([4.2], abs=0.05)
    assert learned["file"] == str(REPO / "d2l" / f"{MODULES[tab]}.py")
    assert not learned["torchvision"]


def test_the_foundations_section_runs_top_to_bottom(framework, tmp_path):
    tab, python = framework
    config = load_config(REPO)
    book, _ = parse_book(config)
    section = next(s for s in book.pages() if s.name == "chapter_foundations/training-api")
    cells = [c.source for c in split_section(section, tab).cells if c.cell_type == "code"]
    result = run(python, "\n\n".join(cells), tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stderr == "", "the section must run without warnings"
    error_b = float(re.search(r"erreur sur b : (\S+)", result.stdout).group(1))
    assert abs(error_b) < 0.05


@pytest.mark.network
def test_pip_install_gives_the_package_with_light_dependencies(framework, tmp_path):
    tab, python = framework
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                    "--disable-pip-version-check", "-w", str(wheels), str(REPO)],
                   check=True, capture_output=True, timeout=600)
    (wheel,) = wheels.glob("*.whl")
    assert wheel.name.startswith(f"gpu_dl_book_d2l-{library_version(load_config(REPO))}-")
    with zipfile.ZipFile(wheel) as archive:
        metadata = archive.read(next(n for n in archive.namelist()
                                     if n.endswith("METADATA"))).decode()
        names = set(archive.namelist())
    assert re.findall(r"^Requires-Dist: (\S+)", metadata, re.M) == ["numpy", "matplotlib"]
    assert {"d2l/__init__.py", "d2l/torch.py", "d2l/mxnet.py", "d2l/tensorflow.py"} <= names
    # A fresh environment with only the framework (and the numpy it needs), as
    # a reader would make: the wheel brings the rest.
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=600)
    pins = [r for r in (REPO / "requirements" / f"{tab}.txt").read_text().split("\n")
            if r.split("==")[0] in ("torch", "mxnet", "tensorflow-cpu", "numpy")]
    install = subprocess.run([str(venv / "bin/python"), "-m", "pip", "install", "--quiet",
                              "--disable-pip-version-check", *pins, str(wheel)],
                             capture_output=True, text=True, timeout=900)
    assert install.returncode == 0, install.stderr
    result = run(venv / "bin/python", f"from d2l import {MODULES[tab]} as d2l; "
                 "import d2l as package; print(d2l.__file__, package.__version__, d2l.try_gpu())",
                 tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(str(venv / "lib"))
    assert "torchvision" not in subprocess.run(
        [str(venv / "bin/python"), "-m", "pip", "list"], capture_output=True, text=True).stdout
