"""Recorded values: what a run leaves after each code cell, restored exactly in a framework's
interpreter, and the expressions that can be evaluated on them (pure ones over recorded
names) told from those that must run the code. The end-to-end replay (a claim added,
judged without running its section) is in test_claims.py."""
from __future__ import annotations

import json
import subprocess

import nbformat
import pytest

from conftest import REPO
from tabbook.features.recorded_values import (MARKER, RECORDING, RESTORING, names_after,
                                              replay_notebook, replayable)

# Runs in the framework's interpreter (NumPy is there, not in the build's).
ROUND_TRIP = RECORDING + RESTORING + """
import io, contextlib, json, math, numpy as onp
namespace = {
    'count': 3, 'ratio': 2.5, 'missing': float('nan'), 'top': float('-inf'), 'flag': True,
    'name': 'LeNet', 'pair': (1, 'x'), 'table': {'k': [1, 2.0], (1, 2): None, 7: 'sept'},
    'single': onp.float32(0.1), 'counts': onp.arange(6, dtype=onp.int64).reshape(2, 3),
    'mask': onp.array([True, False]), 'onp': onp, 'math': math,
    'square': lambda x: x * x, 'huge': list(range(2_000)), '_hidden': 1}
printed = io.StringIO()
with contextlib.redirect_stdout(printed):
    __tabbook_record('cell-1', namespace)
    namespace['count'] = 4
    del namespace['name']
    __tabbook_record('cell-2', namespace)
first, second = (json.loads(line[len(MARKER):]) for line in printed.getvalue().splitlines())
restored = {}
for diff in (first, second):
    __tabbook_restore(json.dumps(diff), restored)
same = {key: bool(
    restored[key] is value if key in ('onp', 'math') else
    math.isnan(restored[key]) if key == 'missing' else
    type(restored[key]) is type(value) and str(restored[key]) == str(value)
    and (not isinstance(value, onp.ndarray) or restored[key].dtype == value.dtype))
    for key, value in namespace.items() if key in restored}
print(json.dumps({'second': second, 'same': same, 'restored': sorted(restored),
                  'opaque': sorted(k for k, v in first['set'].items() if v == {'$opaque': True})}))
""".replace("MARKER", repr(MARKER))


@pytest.mark.kernels
def test_plain_values_are_restored_exactly_and_others_only_named(framework_pythons):
    result = subprocess.run([str(framework_pythons["pytorch"]), "-c", ROUND_TRIP],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    assert found["second"] == {"after": "cell-2", "set": {"count": 4}, "unset": ["name"]}
    assert found["same"] == dict.fromkeys(found["same"], True) and len(found["same"]) == 12
    # A function and a list too long to record are named, never restored.
    assert found["opaque"] == ["huge", "square"]
    assert "huge" not in found["restored"] and "_hidden" not in found["restored"]


# A d2l module restored by a replay: its pure functions, without its framework.
PURE_D2L_RESTORED = RESTORING + """
import json, sys
restored = {}
__tabbook_restore(json.dumps({'set': {'d2l': {'$module': 'd2l.torch'}}, 'unset': []}), restored)
d2l = restored['d2l']
print(json.dumps({'number': d2l.french_number(1234.5), 'torch': 'torch' in sys.modules,
                  'functions': sorted(n for n in vars(d2l) if not n.startswith('__'))}))
"""


@pytest.mark.kernels
def test_a_replay_restores_d2l_with_its_pure_functions_without_its_framework(
        framework_pythons):
    result = subprocess.run([str(framework_pythons["pytorch"]), "-c", PURE_D2L_RESTORED],
                            capture_output=True, text=True, timeout=120, cwd=REPO)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"number": "1\u202f230", "torch": False,
                                         "functions": ["french_number"]}


RECORDED = [
    {"after": "a", "set": {"rate": 9040.7, "onp": {"$module": "numpy"},
                           "d2l": {"$module": "d2l.torch"}, "math": {"$module": "math"},
                           "results": {"$dict": [["cpu", [1.0, 2.0]]]},
                           "train": {"$opaque": True}, "max": {"$opaque": True}},
     "unset": []},
    {"after": "b", "set": {"gap": 0.5}, "unset": ["rate"]},
]


def test_the_names_after_a_cell_are_those_its_run_left():
    names = names_after(RECORDED)
    assert names[""] == {} and "rate" in names["a"] and "gap" not in names["a"]
    assert "rate" not in names["b"] and names["b"]["gap"] == 0.5 and "onp" in names["b"]


@pytest.mark.parametrize("expression", [
    "rate > 5000", "d2l.french_number(rate / 1000, 3)", "onp.log(rate) > math.log(9000)",
    "round(max(x * 2 for x in results['cpu']), 1)", "sorted(results)[0].upper()",
    "min(v for v in [rate, 1e4]) < 1e4", "(lambda r: r > 1)(rate)"])
def test_an_expression_over_recorded_values_and_pure_functions_is_replayable(expression):
    names = names_after(RECORDED)["a"]
    names = {key: value for key, value in names.items() if key != "max"}
    assert replayable(expression, names)


@pytest.mark.parametrize("expression, why", [
    ("d2l.num_gpus() >= 2", "the machine that reads the record would answer"),
    ("onp.random.rand() < 1", "not a function of its arguments"),
    ("train(rate)", "a function the record only names"),
    ("max(rate, 1)", "a built-in the run's code replaced"),
    ("speed > 1", "a name the run did not leave there"),
    ("open('x').read()", "a built-in that reads the machine"),
    ("__import__('os').getpid()", "a built-in that imports"),
])
def test_an_expression_the_record_cannot_answer_is_not_replayable(expression, why):
    assert not replayable(expression, names_after(RECORDED)["a"]), why


def test_a_replay_imports_only_the_modules_its_expressions_read():
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("import d2l", id="a"),
                                               nbformat.v4.new_markdown_cell("Texte."),
                                               nbformat.v4.new_code_cell("gap = 0.5", id="b")])
    for expressions, imported in ((["rate > 1"], False), (["d2l.french_number(rate)"], True)):
        replay = replay_notebook(notebook, RECORDED, expressions)
        first, second = (cell.source.split("__tabbook_restore(")[-1]   # the values given
                         for cell in replay.cells if cell.cell_type == "code")
        assert ("d2l.torch" in first) is imported and "rate" in first and "numpy" not in first
        assert '"gap": 0.5' in second   # a cell's own values, restored in its place
    assert notebook.cells[0].source == "import d2l"   # the split notebook is left alone
