"""Limits the book's sections keep: at most 900 source lines each (issue 37), and inline
values that are values, not French clauses written in Python (issue 36).

Where keeping a limit means changing a section's PyTorch code or inline expressions, the
change throws away that section's GPU run (`frozen/`, whose key covers both) until a GPU
machine runs it again; those debts are listed below, section by section, with their size
today. A listed debt may only shrink, and the list must follow it down: a section that
grows, or a new section over a limit, fails here.
"""
from __future__ import annotations

import ast
import re

from conftest import REPO

MAX_LINES = 900
LONG_UNTIL_NEXT_GPU_RUN = {
    # Most of their lines are code of the PyTorch tab: cutting them moves that code.
    "chapters/chapter_big_models/memory.md": 1203,
    "chapters/chapter_performance/mixed-precision.md": 1101,
    "chapters/chapter_performance/compiler.md": 967,
}
CLAUSES_UNTIL_NEXT_GPU_RUN = {
    # Prose variants (`:begin_if:`) would replace them: new conditions, so a new frozen key.
    "chapters/chapter_access/cluster.md": 1,
    "chapters/chapter_access/hpc.md": 1,
    "chapters/chapter_big_models/energy.md": 2,
    "chapters/chapter_big_models/lora.md": 5,
    "chapters/chapter_big_models/memory.md": 1,
    "chapters/chapter_big_models/reproducibility.md": 4,
    "chapters/chapter_big_models/serving.md": 4,
    "chapters/chapter_gpu/measure.md": 6,
    "chapters/chapter_gpu/use-gpu.md": 2,
    "chapters/chapter_multi_gpu/data-parallel.md": 4,
    "chapters/chapter_performance/compiler.md": 2,
    "chapters/chapter_performance/memory.md": 4,
    "chapters/chapter_performance/mixed-precision.md": 1,
}
EVAL_ROLE = re.compile(r":eval:`([^`]*)`")
MAX_WORDS = 3
"""A string literal of more words than this in an `:eval:` is a clause."""


def sections() -> list[str]:
    return sorted(path.relative_to(REPO).as_posix()
                  for path in (REPO / "chapters").rglob("*.md"))


def frozen_for_pytorch(section: str) -> bool:
    chapter_path = section.removeprefix("chapters/").removesuffix(".md")
    return (REPO / "frozen" / "pytorch" / f"{chapter_path}.ipynb").is_file()


def clauses(text: str) -> list[tuple[int, list[str]]]:
    """(line, literals) for each `:eval:` expression of `text` holding string literals of
    more than three words; a pattern given to `re` reads the printed output, and is not
    prose."""
    found = []
    for role in EVAL_ROLE.finditer(text):
        tree = ast.parse(role.group(1), mode="eval")
        patterns = {id(call.args[0]) for call in ast.walk(tree)
                    if isinstance(call, ast.Call) and call.args
                    and isinstance(call.func, ast.Attribute)
                    and isinstance(call.func.value, ast.Name) and call.func.value.id == "re"}
        line = text.count("\n", 0, role.start()) + 1
        literals = [node.value for node in ast.walk(tree)
                    if isinstance(node, ast.Constant) and isinstance(node.value, str)
                    and len(node.value.split()) > MAX_WORDS and id(node) not in patterns]
        if literals:
            found.append((line, literals))
    return found


def test_a_clause_is_told_from_a_value_a_unit_and_a_pattern():
    text = ("Il faut :eval:`d2l.french_number(t)` :eval:`'seconde' if t < 2 else 'secondes'`,\n"
            "lancé à :eval:`re.findall(r'lancé à (\\S+) ms', out)[0]`, et\n"
            ":eval:`'le GPU va plus vite' if fast else 'non'`.")
    assert clauses(text) == [(3, ["le GPU va plus vite"])]


def test_no_section_is_longer_than_900_lines_but_those_a_gpu_run_must_cut():
    lengths = {section: (REPO / section).read_text(encoding="utf-8").count("\n")
               for section in sections()}
    too_long = {section: length for section, length in lengths.items()
                if length > LONG_UNTIL_NEXT_GPU_RUN.get(section, MAX_LINES)}
    assert not too_long, f"sections over {MAX_LINES} lines (or over their listed debt): {too_long}"
    for section, debt in LONG_UNTIL_NEXT_GPU_RUN.items():
        assert frozen_for_pytorch(section), f"{section} is not frozen: cut it to {MAX_LINES} lines"
        assert lengths[section] == debt, (
            f"{section} has {lengths[section]} lines: write that here (or remove it from the "
            f"list if it is {MAX_LINES} or less)")


def test_no_inline_value_holds_a_clause_but_those_a_gpu_run_must_replace():
    found = {section: clauses((REPO / section).read_text(encoding="utf-8"))
             for section in sections()}
    counts = {section: len(items) for section, items in found.items() if items}
    unlisted = {section: found[section] for section in counts
                if section not in CLAUSES_UNTIL_NEXT_GPU_RUN}
    assert not unlisted, ("write each variant as prose in :begin_if: blocks, the :eval: giving "
                          f"only a value: {unlisted}")
    assert counts == CLAUSES_UNTIL_NEXT_GPU_RUN, "the listed debts changed: follow them down"
    assert all(frozen_for_pytorch(section) for section in counts)
