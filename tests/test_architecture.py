"""The build package's shape: small functions, arrows one way, one place per convention."""
from __future__ import annotations

import ast

from radon.complexity import cc_visit

from conftest import REPO

PACKAGE = REPO / "tabbook"
MAX_COMPLEXITY = 15


def modules() -> dict[str, ast.Module]:
    return {path.stem: ast.parse(path.read_text(encoding="utf-8"), str(path))
            for path in sorted(PACKAGE.glob("*.py"))}


def imports_between_modules() -> dict[str, set[str]]:
    """Module -> the package's modules it imports (``from .x import …``)."""
    graph = {}
    for name, tree in modules().items():
        graph[name] = {node.module.split(".")[0] for node in ast.walk(tree)
                       if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module}
    return graph


def test_no_function_of_the_build_is_too_complex():
    too_complex = [f"{path.name}:{block.lineno} {block.fullname} ({block.complexity})"
                   for path in sorted(PACKAGE.glob("*.py"))
                   for block in cc_visit(path.read_text(encoding="utf-8"))
                   if block.complexity > MAX_COMPLEXITY]
    assert not too_complex, f"cyclomatic complexity above {MAX_COMPLEXITY}: {too_complex}"


def test_modules_import_each_other_without_cycles():
    graph = imports_between_modules()
    assert set().union(*graph.values()) <= set(graph), "import of a module that is not there"
    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        assert name not in path, f"import cycle: {' -> '.join(path + (name,))}"
        if name in done:
            return
        for imported in sorted(graph[name]):
            visit(imported, path + (name,))
        done.add(name)

    for name in graph:
        visit(name, ())


def test_only_the_layout_names_the_build_folder():
    """Every ``_build/…`` path comes from layout.Layout."""
    naming = sorted(name for name, tree in modules().items()
                    for node in ast.walk(tree)
                    if isinstance(node, ast.Constant) and node.value == "_build")
    assert naming == ["layout"]


def test_the_model_imports_no_stage():
    """Stages consume the model; the model knows none of them."""
    assert imports_between_modules()["model"] == set()


def test_per_framework_tables_live_in_the_registry():
    """The framework names appear as code only in frameworks.py (messages and docs aside)."""
    spelled = sorted(
        f"{name}:{node.lineno}" for name, tree in modules().items() if name != "frameworks"
        for node in ast.walk(tree)
        if isinstance(node, ast.Dict) and any(
            isinstance(key, ast.Constant) and key.value in ("pytorch", "mxnet", "tensorflow")
            for key in node.keys))
    assert not spelled, f"per-framework tables outside frameworks.py: {spelled}"


def test_every_module_is_documented():
    """CONTRIBUTING.md names every module of the package."""
    text = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
    missing = [name for name in modules() if name != "__init__" and f"`{name}.py`" not in text]
    assert not missing, f"modules missing from CONTRIBUTING.md: {missing}"
