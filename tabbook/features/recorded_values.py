"""Recorded values: what a run left in its namespace after each code cell, so that an
expression added or changed later (an ``:eval:``, a claim, a condition) is evaluated on
the values of that run instead of running its code again (ext).

After each code cell that prose follows (where a role can be placed), a cell added to
the notebook being executed records, as JSON, the globals of a plain kind that changed
since the recording before: None, booleans, numbers,
strings, NumPy scalars and small arrays, lists, tuples and dictionaries of those, and
modules by name. Tensors, models, functions and anything large are not recorded.

An expression can be evaluated on those values when it reads only names recorded at
its place and calls only functions whose result depends on their arguments alone
(`replayable`): pure built-ins, `math`, `statistics`, `re`, NumPy outside
`numpy.random`, and `d2l.french_number`. Not `d2l.num_gpus()`, say: on the values of a
GPU run, it would answer for the machine that reads them. `replay_notebook` then makes,
of the split notebook, one whose code cells restore the recorded values instead of
computing them; the other features' cells evaluate their expressions there as in a run.
"""
from __future__ import annotations

import ast
import copy
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..bootstrap.records import conforms
from ..core.model import METADATA_KEY
from .extension import Feature
from .kernel_cells import counted_again

if TYPE_CHECKING:   # nbformat: loaded by the commands that execute
    import nbformat

KEY = "recording"
"""The mark of the recording cells (the feature annotates nothing: no annotation has it)."""
RESULTS = "recorded_values"
"""Where a record keeps them: ``{"after", "set", "unset"}`` per recording."""
MARKER = "tabbook-recorded:"
LIMIT = 1_000
"""At most this many numbers, strings or containers in one recorded value."""
HIDDEN = ("In", "Out", "exit", "quit", "get_ipython")
"""IPython's own names, never recorded (nor any name that starts with `_`). Every other
name is: by its value, or as ``{"$opaque": true}`` when its value is not recorded (an
expression that reads it, or a built-in it hides, cannot be evaluated on the record)."""

RECORDING = """
def __tabbook_record(after, namespace):
    try:
        __tabbook_recorded(after, namespace)
    except Exception:   # never fails the notebook: nothing recorded here, the code will run
        pass

def __tabbook_recorded(after, namespace):
    import json, math, sys, types
    state = sys.modules.get('_tabbook_recorded')
    if state is None:
        state = sys.modules['_tabbook_recorded'] = types.ModuleType('_tabbook_recorded')
        state.values = {}
    numpy = sys.modules.get('numpy')
    left = [LIMIT]

    def encode(value):
        left[0] -= 1
        kind = type(value)
        if left[0] < 0 or kind is str and len(value) > LIMIT:
            raise ValueError('too large')
        if value is None or kind in (bool, int, str):
            return value
        if kind is float:
            return value if math.isfinite(value) else {'$float': repr(value)}
        if kind is list:
            return [encode(item) for item in value]
        if kind is tuple:
            return {'$tuple': [encode(item) for item in value]}
        if kind is dict:
            return {'$dict': [[encode(k), encode(v)] for k, v in value.items()]}
        if isinstance(value, types.ModuleType):
            return {'$module': value.__name__}
        if numpy is not None and isinstance(value, numpy.generic) and value.dtype.kind in 'biuf':
            return {'$numpy': value.dtype.str, 'value': encode(value.item())}
        if numpy is not None and kind is numpy.ndarray and value.dtype.kind in 'biuf' \\
                and value.size <= LIMIT:
            return {'$ndarray': value.dtype.str, 'shape': list(value.shape),
                    'data': encode(value.ravel().tolist())}
        raise ValueError('not recorded')

    current = {}
    for name, value in list(namespace.items()):
        if name.startswith('_') or name in HIDDEN:
            continue
        left[0] = LIMIT
        try:
            current[name] = json.dumps(encode(value), sort_keys=True, allow_nan=False)
        except (ValueError, TypeError, RecursionError):
            current[name] = OPAQUE
    changed = {name: json.loads(text) for name, text in current.items()
               if state.values.get(name) != text}
    gone = [name for name in state.values if name not in current]
    state.values = current
    print(MARKER + json.dumps({'after': after, 'set': changed, 'unset': gone}))
""".replace("LIMIT", str(LIMIT)).replace("HIDDEN", repr(HIDDEN)).replace(
    "MARKER", repr(MARKER)).replace("OPAQUE", repr(json.dumps({"$opaque": True})))

PURE_BUILTINS = frozenset({
    "abs", "all", "any", "bool", "dict", "divmod", "enumerate", "filter", "float", "format",
    "frozenset", "int", "isinstance", "len", "list", "map", "max", "min", "pow", "range",
    "repr", "reversed", "round", "set", "sorted", "str", "sum", "tuple", "zip"})
PURE_MODULES = ("math", "statistics", "re", "numpy")
PURE_D2L = frozenset({"french_number"})


RESTORING = """
def __tabbook_restore(text, namespace):
    import importlib, json
    diff = json.loads(text)

    def pure_d2l(name):
        # The module with only the functions an expression may call (see `replayable`),
        # compiled from its source: importing it would import its framework (seconds).
        import ast, importlib.util, types
        module = types.ModuleType(name)
        with open(importlib.util.find_spec(name).origin, encoding='utf-8') as source:
            tree = ast.parse(source.read())
        kept = [node for node in tree.body
                if isinstance(node, ast.FunctionDef) and node.name in PURE_FUNCTIONS]
        exec(compile(ast.Module(kept, []), name, 'exec'), module.__dict__)
        return module

    def decode(data):
        if isinstance(data, list):
            return [decode(item) for item in data]
        if not isinstance(data, dict):
            return data
        if '$float' in data:
            return float(data['$float'])
        if '$tuple' in data:
            return tuple(decode(item) for item in data['$tuple'])
        if '$dict' in data:
            return {decode(k): decode(v) for k, v in data['$dict']}
        if '$module' in data:
            return (pure_d2l(data['$module']) if data['$module'].split('.')[0] == 'd2l'
                    else importlib.import_module(data['$module']))
        import numpy
        if '$numpy' in data:
            return numpy.dtype(data['$numpy']).type(decode(data['value']))
        return numpy.array(data['data'], dtype=data['$ndarray']).reshape(data['shape'])

    for name, data in diff['set'].items():
        if isinstance(data, dict) and '$opaque' in data:
            namespace.pop(name, None)
        else:
            namespace[name] = decode(data)
    for name in diff['unset']:
        namespace.pop(name, None)
""".replace("PURE_FUNCTIONS", repr(sorted(PURE_D2L)))


# -- execution: recording -----------------------------------------------------------
def with_recording_cells(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """`notebook` (a copy to execute) with a cell recording the values the code left
    after each code cell that prose follows, where a role can be placed (marked with KEY
    in its metadata)."""
    import nbformat
    cells = []
    for cell, following in zip(notebook.cells, [*notebook.cells[1:], None]):
        cells.append(cell)
        if cell.cell_type == "code" and (following is None or following.cell_type != "code"):
            added = nbformat.v4.new_code_cell(
                f"{RECORDING}__tabbook_record({cell.id!r}, globals())\n"
                "del __tabbook_record, __tabbook_recorded")
            added.id = f"{KEY}-{len(cells)}"
            added.metadata[METADATA_KEY] = {KEY: cell.id}
            cells.append(added)
    notebook.cells = cells
    return notebook


def is_recording_cell(cell: Mapping) -> bool:
    return cell.get("cell_type") == "code" and KEY in cell.get("metadata", {}).get(
        METADATA_KEY, {})


def collect_recorded(notebook: nbformat.NotebookNode) -> list[dict]:
    """Remove the recording cells of an executed `notebook`; return what they recorded,
    ``{"after", "set", "unset"}`` per recording, in order (each against the one before)."""
    recorded, kept = [], []
    for cell in notebook.cells:
        if not is_recording_cell(cell):
            kept.append(cell)
            continue
        printed = "".join(o.get("text", "") for o in cell.outputs if o.get("name") == "stdout")
        recorded += [json.loads(line[len(MARKER):]) for line in printed.splitlines()
                     if line.startswith(MARKER)]
    notebook.cells = counted_again(kept)
    return recorded


def is_recorded(item: object) -> bool:
    return conforms(item, {"after": str, "set": dict, "unset": list})


# -- replaying ----------------------------------------------------------------------
def names_after(recorded: Sequence[dict]) -> dict[str, dict[str, object]]:
    """The recorded namespace after each code cell that has one, by its id ("" before
    any code)."""
    names: dict[str, object] = {}
    found = {"": {}}
    for diff in recorded:
        names = {**{k: v for k, v in names.items() if k not in diff["unset"]}, **diff["set"]}
        found[diff["after"]] = names
    return found


def replayable(expression: str, names: Mapping[str, object]) -> bool:
    """Whether `expression`, evaluated on the recorded `names` (see `names_after`), gives
    what the run would have given: it reads only those names, names it binds itself and
    pure built-ins, and calls only pure functions."""
    tree = ast.parse(expression.strip(), mode="eval")
    scope = _Scope.of(tree, names)
    return all(scope.allows(node) for node in ast.walk(tree))


@dataclass(frozen=True)
class _Scope:
    """What an expression may read, evaluated on recorded values."""
    known: frozenset[str]
    """Recorded values and modules, and the names the expression binds (comprehensions,
    lambdas)."""
    hidden: frozenset[str]
    """Names the run bound to values not recorded (functions, tensors)."""
    modules: Mapping[str, str]
    """Recorded modules: name -> module."""

    @classmethod
    def of(cls, tree: ast.AST, names: Mapping[str, object]) -> _Scope:
        hidden = {name for name, value in names.items() if _tagged(value, "$opaque")}
        bound = {node.id for node in ast.walk(tree)
                 if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}
        bound |= {arg.arg for node in ast.walk(tree) if isinstance(node, ast.Lambda)
                  for arg in node.args.args}
        return cls(frozenset(set(names) - hidden | bound), frozenset(hidden),
                   {name: value["$module"] for name, value in names.items()
                    if _tagged(value, "$module")})

    def allows(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            return node.id not in self.hidden and (
                node.id in self.known or node.id in PURE_BUILTINS)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id in self.modules:
            return _pure(self.modules[node.value.id], node.attr)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            return node.func.id in PURE_BUILTINS
        return True


def _tagged(value: object, tag: str) -> bool:
    return isinstance(value, dict) and tag in value


def _pure(module: str, attribute: str) -> bool:
    """Whether `module.attribute` (an attribute of a recorded module) is pure."""
    if module == "d2l" or module.startswith("d2l."):
        return attribute in PURE_D2L
    root = module.split(".")[0]
    return root in PURE_MODULES and attribute != "random" and ".random" not in module


def replay_notebook(notebook: nbformat.NotebookNode, recorded: Sequence[dict],
                    expressions: Iterable[str]) -> nbformat.NotebookNode:
    """A copy of the split `notebook` whose code cells restore the values `recorded` after
    them instead of computing them (same ids: the features' cells go where they would
    in a run); a cell after which nothing was recorded does nothing. Of the modules, only
    those the `expressions` to evaluate read are restored, and `d2l` with its pure
    functions alone (importing it would import its framework: seconds)."""
    read = {node.id for expression in expressions
            for node in ast.walk(ast.parse(expression.strip(), mode="eval"))
            if isinstance(node, ast.Name)}
    diffs = {diff["after"]: {"set": {name: data for name, data in diff["set"].items()
                                     if name in read or not _tagged(data, "$module")},
                             "unset": diff["unset"]} for diff in recorded}
    replay = copy.deepcopy(notebook)
    for cell in (cell for cell in replay.cells if cell.cell_type == "code"):
        diff = diffs.get(cell.id)
        cell.source = "" if diff is None else (
            f"{RESTORING}__tabbook_restore({json.dumps(diff)!r}, globals())\n"
            "del __tabbook_restore")
    return replay


RECORDED_VALUES = Feature(
    key=KEY, prepare=with_recording_cells, collect=collect_recorded,
    added_cell=is_recording_cell, results_key=RESULTS, is_result=is_recorded)
