"""The deployment of the cloud-training section runs: every module that its script imports
is in the image its Dockerfile builds (the standard library, what the base image provides,
what a `RUN pip install` line adds). Both files are read from the built page, as readers
copy them."""
from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

from conftest import code_blocks

PAGE = Path("_build") / "html" / "chapter_multi_gpu" / "cloud-training.html"
# What the base images the book names provide beyond the standard library.
BASE_IMAGES = {"pytorch/pytorch": {"torch"}}
# pip distribution name -> the module it installs, where they differ.
DISTRIBUTIONS = {"pyyaml": "yaml", "pillow": "PIL", "scikit-learn": "sklearn",
                 "google-cloud-storage": "google", "opencv-python": "cv2"}


def imported_modules(script: str) -> set[str]:
    """The top-level modules that `script` imports (relative imports left out)."""
    modules = set()
    for node in ast.walk(ast.parse(script)):
        if isinstance(node, ast.Import):
            modules |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules.add(node.module.split(".")[0])
    return modules


def image_modules(dockerfile: str) -> set[str]:
    """The modules beyond the standard library that the image of `dockerfile` holds: those
    of its base image (FROM) and those its `RUN pip install` lines add."""
    text = re.sub(r"\\\n", " ", dockerfile)   # continuation lines joined
    modules: set[str] = set()
    for line in text.splitlines():
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        if words[0].upper() == "FROM":
            image = next(w for w in words[1:] if not w.startswith("--")).split("@")[0]
            name, _, tag = image.rpartition(":")   # pytorch/pytorch:2.13.0-…
            modules |= BASE_IMAGES.get(name if name and "/" not in tag else image, set())
        elif words[0].upper() == "RUN":
            for command in re.split(r"&&|;", " ".join(words[1:])):
                found = re.search(r"\bpip3?\s+install\s+(.*)", command)
                if found:
                    for package in found.group(1).split():
                        if package.startswith("-"):
                            continue
                        name = re.split(r"[<>=!~\[;]", package)[0].lower()
                        modules.add(DISTRIBUTIONS.get(name, name.replace("-", "_")))
    return modules


def missing_modules(script: str, dockerfile: str) -> list[str]:
    """The modules `script` imports that the image of `dockerfile` lacks."""
    return sorted(imported_modules(script) - set(sys.stdlib_module_names)
                  - image_modules(dockerfile))


# -- the checking function, on small strings -------------------------------------------

SCRIPT = "import os\nimport numpy as np\nfrom torch import nn\nimport torch.distributed\n"


def test_a_dockerfile_missing_a_module_fails_the_check():
    dockerfile = "FROM pytorch/pytorch:2.13.0-cuda13.0-cudnn9-runtime\nCOPY train.py .\n"
    assert missing_modules(SCRIPT, dockerfile) == ["numpy"]
    assert missing_modules(SCRIPT, "FROM python:3.12-slim\n") == ["numpy", "torch"]
    assert missing_modules("import d2l\n", dockerfile) == ["d2l"]


def test_a_dockerfile_that_installs_what_is_imported_passes():
    dockerfile = ("FROM pytorch/pytorch:2.13.0-cuda13.0-cudnn9-runtime\n"
                  "RUN apt-get update && \\\n    pip install --no-cache-dir numpy==2.3.0\n")
    assert missing_modules(SCRIPT, dockerfile) == []
    assert missing_modules(SCRIPT, "FROM python:3.12-slim\n"
                                   "RUN pip install torch numpy\n") == []
    assert missing_modules("import yaml\n", "FROM python:3.12\nRUN pip install PyYAML\n") == []


# -- the book's deployment ----------------------------------------------------------------

def written_files(page: str) -> dict[str, str]:
    """File name -> text, for every `write_file('name', '''text''')` call of the page's
    code cells (the section writes its script and its Dockerfile so)."""
    files = {}
    for block in code_blocks(page):
        try:
            tree = ast.parse(block)
        except SyntaxError:
            continue   # a displayed block in another language
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "write_file" \
                    and len(node.args) == 2 \
                    and all(isinstance(a, ast.Constant) for a in node.args):
                files[node.args[0].value] = node.args[1].value
    return files


def test_the_deployed_script_finds_every_module_in_its_image(built_repository):
    files = written_files((built_repository / PAGE).read_text(encoding="utf-8"))
    assert {"train_cloud.py", "Dockerfile"} <= set(files), sorted(files)
    script, dockerfile = files["train_cloud.py"], files["Dockerfile"]
    # The image holds exactly that script and runs it with torchrun
    assert re.search(r"^COPY\s+train_cloud\.py\s", dockerfile, re.M), dockerfile
    entrypoint = re.search(r"^ENTRYPOINT\s+(.*)$", dockerfile, re.M)
    assert entrypoint and "torchrun" in entrypoint.group(1) \
        and "--nproc_per_node=gpu" in entrypoint.group(1) \
        and "train_cloud.py" in entrypoint.group(1), dockerfile
    assert imported_modules(script) - set(sys.stdlib_module_names) == {"torch"}
    assert missing_modules(script, dockerfile) == []
