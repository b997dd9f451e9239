"""The features' extension points on a tab's notebook (see features/extension.py): the
roles a feature annotates or checks there, placed after their code cell, its annotations
of the split notebook, its problems once the notebook ran, and its roles rendered in the
executed notebook's Markdown."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

import nbformat

from ..core.language import Language
from ..core.model import METADATA_KEY, CellKind, Problem, Section
from ..features.extension import PlacedRole
from ..features.registry import FEATURES, RECORDED, ROLES
from ..source.roles import edited, located_tokens, prose_tokens, source_spans

Computed = Mapping[str, Sequence[dict]]
"""What a run computed for the features, by their `results_key`."""


def computed_in(notebook: nbformat.NotebookNode) -> dict[str, tuple[dict, ...]]:
    """What the features' hooks collected from the run of an executed `notebook`, as its
    metadata keeps it (what nothing was collected for left out)."""
    metadata = notebook.metadata.get(METADATA_KEY, {})
    return {feature.results_key: tuple(dict(item) for item in items) for feature in RECORDED
            if (items := metadata.get(feature.results_key))}


def added_cell(cell: Mapping) -> bool:
    """Whether a cell of a notebook being executed is one a feature's hook added."""
    return any(feature.added_cell(cell) for feature in RECORDED)


class CodeCell(Protocol):
    """A code cell of a tab's notebook (`split.CodeCell`): only its id matters here."""
    id: str


def code_before(section: Section, tab: str, code: Mapping[int, CodeCell]) -> dict[int, str]:
    """For each prose cell of `section`'s notebook for `tab` (whose code cells are `code`,
    see `split.code_cells`), by position in ``section.cells``: the id of the code cell
    before it ("" before any)."""
    after, found = "", {}
    for position, cell in enumerate(section.cells):
        if not cell.in_tab(tab):
            continue
        if position in code:
            after = code[position].id
        elif cell.kind is CellKind.PROSE:
            found[position] = after
    return found


PLACED_ROLES = {role: feature for role, feature in ROLES.items()
                if feature.annotate is not None or feature.problems is not None}
"""The roles whose feature reads where a tab's notebook places them (after which code
cell): to annotate the split notebook, or to find its problems once it ran."""


def placed_roles(section: Section, tab: str,
                 code: Mapping[int, CodeCell]) -> dict[str, list[PlacedRole]]:
    """The roles of `PLACED_ROLES` each feature (by key) finds in `section`'s notebook for
    `tab`, in order."""
    found: dict[str, list[PlacedRole]] = {}
    for position, after in code_before(section, tab, code).items():
        cell = section.cells[position]
        for token, line in located_tokens(cell.tokens, cell.line):
            if token.type == "role" and token.meta["role"] in PLACED_ROLES:
                found.setdefault(PLACED_ROLES[token.meta["role"]].key, []).append(
                    PlacedRole(after, token.meta["content"], line))
    return found


def annotations(section: Section, tab: str, code: Mapping[int, CodeCell]) -> dict[str, list]:
    """What the features add to the metadata of `section`'s split notebook for `tab`."""
    roles = placed_roles(section, tab, code)
    found = {feature.key: feature.annotate(roles.get(feature.key, []))
             for feature in FEATURES if feature.annotate is not None}
    return {key: annotation for key, annotation in found.items() if annotation}


def run_problems(section: Section, tab: str, code: Mapping[int, CodeCell],
                 computed: Computed, frozen: bool = False
                 ) -> tuple[dict[str, list[Problem]], list[Problem]]:
    """What the pages of `section` for `tab` cannot show of what its run computed, by
    feature key; and, for a `frozen` run, the roles outside the frozen key that it
    predates (not judged: listed, never blocking, since only a new frozen run can)."""
    roles = placed_roles(section, tab, code)
    problems, pending = {}, []
    for feature in FEATURES:
        if feature.problems is None:
            continue
        placed, results = roles.get(feature.key, []), computed.get(feature.results_key, ())
        if frozen and not feature.in_frozen_key:
            pending += [Problem(section.display_path, role.line,
                                f":{feature.roles[0]}:`{role.content.strip()}` not judged: the "
                                "frozen run shown predates it",
                                "the next `build.py eval --freeze` on a GPU machine judges it",
                                tab, warning=True)
                        for role in placed if not feature.judged(role, results)]
            placed = [role for role in placed if feature.judged(role, results)]
        problems[feature.key] = feature.problems(section, tab, placed, results)
    return problems, pending


MARKDOWN_ROLES = tuple(role for role, feature in ROLES.items()
                       if feature.render_markdown is not None)


def with_rendered_roles(text: str, after: str, computed: Computed, language: Language) -> str:
    """A notebook's Markdown `text` (the prose after code cell `after`) with each role a
    feature renders in Markdown replaced by its rendering."""
    if not any(f":{role}:" in text for role in MARKDOWN_ROLES):   # most prose: not parsed
        return text
    edits = []
    for token, start, end in source_spans(prose_tokens(text), text):
        feature = ROLES.get(token.meta.get("role")) if token.type == "role" else None
        if feature is not None and feature.render_markdown is not None:
            edits.append((start, end, feature.render_markdown(
                token.meta["content"], after, computed.get(feature.results_key, ()), language)))
    return edited(text, edits)
