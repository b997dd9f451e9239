"""Code the book shows without running it (```yaml, ```python, ```bash...) must be valid.

Readers copy these blocks into their terminal or their cloud console: a YAML
file must parse, Python must compile, a shell command must pass `bash -n`.
"""
from __future__ import annotations

import ast
import subprocess

import pytest
import yaml

from conftest import repository_cells
from tabbook.core.model import CellKind


def displayed_blocks() -> list[tuple[str, str, str]]:
    """(place, language, code) for every displayed block of the book, toc blocks aside."""
    return [(f"{source}:{cell.line}", (cell.fence.strip("{} ").split() or [""])[0].lstrip("."),
             cell.source)
            for source, cell in repository_cells(CellKind.DISPLAY) if cell.fence.strip() != "toc"]


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


def test_the_book_shows_commands_and_configurations():
    languages = {language for _, language, _ in displayed_blocks()}
    assert {"yaml", "python", "bash"} <= languages, languages


@pytest.mark.parametrize("place, language, code", displayed_blocks())
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
