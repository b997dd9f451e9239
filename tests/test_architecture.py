"""The build package's shape: layers that import downwards only, small functions and
modules, one place per convention."""
from __future__ import annotations

import ast
import functools
from pathlib import Path

from radon.complexity import cc_visit

from conftest import REPO

PACKAGE = REPO / "tabbook"
MAX_COMPLEXITY = 12
MAX_LINES = 400
LAYERS = ("bootstrap", "core", "features", "source", "notebooks", "execution", "output", "cli")
"""Bottom to top: a module imports from its own layer and the layers below it only."""


def module_name(path: Path) -> str:
    """``layer.module`` for tabbook/layer/module.py."""
    return ".".join(path.relative_to(PACKAGE).with_suffix("").parts)


@functools.cache
def modules() -> dict[str, ast.Module]:
    """Every module's syntax tree, parsed once per test process (the tests only read them)."""
    return {module_name(path): ast.parse(path.read_text(encoding="utf-8"), str(path))
            for path in sorted(PACKAGE.rglob("*.py")) if path.name != "__init__.py"}


def imported_modules(name: str, tree: ast.Module) -> set[str]:
    """The package's modules `name` imports (relative imports, resolved)."""
    package = name.split(".")[:-1]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package[:len(package) - node.level + 1]
            if node.module is None:   # from . import module
                found |= {".".join([*base, alias.name]) for alias in node.names}
            else:
                found.add(".".join([*base, *node.module.split(".")]))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
            found |= {n.removeprefix("tabbook.") for n in names if n and n.startswith("tabbook.")}
    return found


def import_graph() -> dict[str, set[str]]:
    return {name: imported_modules(name, tree) for name, tree in modules().items()}


def test_every_module_belongs_to_a_layer():
    assert {name.split(".")[0] for name in modules()} <= set(LAYERS)
    assert not list(PACKAGE.glob("*.py"))[1:], "modules at the package's top level"


def test_layers_import_downwards_only():
    upward = [f"{name} imports {target}" for name, targets in import_graph().items()
              for target in targets
              if LAYERS.index(target.split(".")[0]) > LAYERS.index(name.split(".")[0])]
    assert not upward, upward


def test_the_bootstrap_needs_only_the_standard_library():
    """build.py imports it before the tools environment exists."""
    import sys
    for name, tree in modules().items():
        if not name.startswith("bootstrap."):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                roots = {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                roots = {node.module.split(".")[0]}
            else:
                continue
            assert roots <= sys.stdlib_module_names | {"__future__"}, f"{name}: {roots}"


def test_no_function_of_the_build_is_too_complex():
    too_complex = [f"{path.relative_to(PACKAGE)}:{block.lineno} {block.fullname} "
                   f"({block.complexity})"
                   for path in sorted(PACKAGE.rglob("*.py"))
                   for block in cc_visit(path.read_text(encoding="utf-8"))
                   if block.complexity > MAX_COMPLEXITY]
    assert not too_complex, f"cyclomatic complexity above {MAX_COMPLEXITY}: {too_complex}"


def test_no_module_is_too_long():
    long = [f"{path.relative_to(PACKAGE)} ({n} lines)" for path in sorted(PACKAGE.rglob("*.py"))
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES]
    assert not long, f"modules above {MAX_LINES} lines: {long}"


def test_modules_import_each_other_without_cycles():
    graph = import_graph()
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
    """Every ``_build/…`` path comes from core.layout.Layout."""
    naming = sorted(name for name, tree in modules().items()
                    for node in ast.walk(tree)
                    if isinstance(node, ast.Constant) and node.value == "_build")
    assert naming == ["core.layout"]


def test_the_model_imports_no_stage():
    """Stages consume the model; the model knows none of them."""
    assert import_graph()["core.model"] <= {"bootstrap.errors"}


def test_per_framework_tables_live_in_the_registry():
    """The framework names appear as code only in frameworks.py (messages and docs aside)."""
    spelled = sorted(
        f"{name}:{node.lineno}" for name, tree in modules().items()
        if name != "core.frameworks"
        for node in ast.walk(tree)
        if isinstance(node, ast.Dict) and any(
            isinstance(key, ast.Constant) and key.value in ("pytorch", "mxnet", "tensorflow")
            for key in node.keys))
    assert not spelled, f"per-framework tables outside frameworks.py: {spelled}"


def _role_names_in(tree: ast.Module, role: str) -> list[int]:
    """Lines where `tree` compares something to the role name `role`, lists it among others
    (a tuple or list of role names), or writes the role as in prose (``:role:``) in a string
    that is not a docstring."""
    docstrings = {id(node.value) for node in ast.walk(tree)
                  if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)}
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Compare, ast.Tuple, ast.List)):
            sides = (node.left, *node.comparators) if isinstance(node, ast.Compare) else node.elts
            lines += [node.lineno for side in sides
                      if isinstance(side, ast.Constant) and side.value == role]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                id(node) not in docstrings and f":{role}:" in node.value:
            lines.append(node.lineno)
    return lines


def test_a_features_role_is_named_by_its_module_only():
    """The stages call the features' hooks (features/extension.py): none tests a feature's
    role name, nor looks for it in a text."""
    from tabbook.features.registry import FEATURES
    naming = {f"{name}:{line} :{role}:" for feature in FEATURES
              for role in (*feature.roles, *feature.block_roles)
              for name, tree in modules().items() if not name.startswith("features.")
              for line in _role_names_in(tree, role)}
    assert not naming, f"a feature's role named outside its module: {sorted(naming)}"
    assert {"eval", "cite", "bibliography"} <= {role for feature in FEATURES
                                                for role in (*feature.roles, *feature.block_roles)}
    # the check itself finds what it is meant to
    written = 'if meta["role"] == "eval":\n    x = ":eval: y"\nROLES = ("numref",\n    "eval")\n'
    assert sorted(_role_names_in(ast.parse(written), "eval")) == [1, 2, 3]


def test_every_module_is_documented():
    """CONTRIBUTING.md names every module of the package, with its layer."""
    text = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
    missing = [name for name in modules() if f"`{name.replace('.', '/')}.py`" not in text]
    assert not missing, f"modules missing from CONTRIBUTING.md: {missing}"
