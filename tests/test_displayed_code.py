"""Code the book shows without running it (```yaml, ```python, ```bash...) must be valid.

Readers copy these blocks into their terminal or their cloud console: a YAML
file must parse, Python must compile, a shell command must pass `bash -n`.
"""
from __future__ import annotations

import ast
import subprocess

import pytest
import yaml

from conftest import REPO
from tabbook.config import load_config
from tabbook.model import CellKind
from tabbook.parse import parse_book


def displayed_blocks() -> list[tuple[str, str, str]]:
    """(place, language, code) for every displayed block of the book, toc blocks aside."""
    book, problems = parse_book(load_config(REPO))
    assert not problems, problems
    blocks = []
    for section in book.pages():
        for cell in section.cells:
            if cell.kind is CellKind.DISPLAY and cell.fence.strip() != "toc":
                language = cell.fence.strip("{} ").split()[0].lstrip(".") if cell.fence.strip() \
                    else ""
                blocks.append((f"{section.source}:{cell.line}", language, cell.source))
    return blocks


def validate(language: str, code: str) -> None:
    """Raise if `code` is not valid `language`; blocks of other languages are not checked."""
    if language in ("yaml", "yml"):
        list(yaml.safe_load_all(code))
    elif language == "python":
        ast.parse(code)
    elif language in ("bash", "sh", "shell"):
        result = subprocess.run(["bash", "-n"], input=code, capture_output=True, text=True)
        if result.returncode:
            raise SyntaxError(result.stderr.strip())


@pytest.mark.parametrize("place, language, code",
                         displayed_blocks() or [pytest.param("", "", "", marks=pytest.mark.skip(
                             reason="the book shows no displayed code yet"))])
def test_displayed_code_is_valid(place, language, code):
    try:
        validate(language, code)
    except (yaml.YAMLError, SyntaxError) as err:
        pytest.fail(f"{place}: this ```{language} block is not valid {language}: {err}")


@pytest.mark.parametrize("language, code", [
    ("yaml", "workerPoolSpecs:\n  - machineSpec: {machineType: n1\n"),
    ("python", "def f(:\n    pass\n"),
    ("bash", "if true; then echo\n"),
])
def test_invalid_displayed_code_is_caught(language, code):
    with pytest.raises((yaml.YAMLError, SyntaxError)):
        validate(language, code)
