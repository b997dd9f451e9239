"""The features' extension points on a tab's notebook (see features/extension.py): the
roles a feature annotates or checks there, placed after their code cell, its annotations
of the split notebook, its problems once the notebook ran, and its roles rendered in the
executed notebook's Markdown."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from ..core.language import Language
from ..core.model import METADATA_KEY, Cell, CellKind, Problem, Section
from ..features.conditions import CELL_KEY, CONDITIONS, holds
from ..features.extension import PlacedRole
from ..features.registry import FEATURES, RECORDED, ROLES
from ..source.roles import edited, located_tokens, prose_tokens, removed_span, source_spans

if TYPE_CHECKING:   # nbformat: loaded by the commands that read or write notebooks
    import nbformat

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
    """For each cell of `section`'s notebook for `tab` other than code (whose code cells are
    `code`, see `split.code_cells`), by position in ``section.cells``: the id of the code
    cell before it ("" before any)."""
    after, found = "", {}
    for position, cell in enumerate(section.cells):
        if not cell.in_tab(tab):
            continue
        if position in code:
            after = code[position].id
        elif cell.kind is not CellKind.CODE:
            found[position] = after
    return found


PLACED_ROLES = {role: feature for role, feature in ROLES.items()
                if feature.annotate is not None or feature.problems is not None}
"""The roles whose feature reads where a tab's notebook places them (after which code
cell): to annotate the split notebook, or to find its problems once it ran."""
CELL_ROLES = tuple(feature for feature in FEATURES if feature.cell_roles is not None)


def placed_roles(section: Section, tab: str, code: Mapping[int, CodeCell],
                 shown_by: Computed | None = None) -> dict[str, list[PlacedRole]]:
    """The roles of `PLACED_ROLES`, and those cells carry (`CELL_ROLES`), each feature (by
    key) finds in `section`'s notebook for `tab`, in order, once each; with `shown_by`
    (what the tab's run computed), not the roles of a conditional block it does not show."""
    found: dict[str, dict[PlacedRole, None]] = {}
    for position, after in code_before(section, tab, code).items():
        cell = section.cells[position]
        for feature in CELL_ROLES:
            for content, line in feature.cell_roles(cell):
                found.setdefault(feature.key, {})[PlacedRole(after, content, line)] = None
        if shown_by is not None and cell.condition and not condition_holds(
                cell.condition, after, shown_by):
            continue   # a sentence not shown: its values and claims do not matter there
        for role, content, line in _placed_in(cell):
            found.setdefault(PLACED_ROLES[role].key, {})[PlacedRole(after, content, line)] = None
    return {key: list(roles) for key, roles in found.items()}


_PLACED: dict[tuple[str, int], tuple[tuple[str, str, int], ...]] = {}
"""`_placed_in` by cell source and line (the tokens are made from them): the same cells
are read for every tab. Emptied when it grows large (a long `serve`)."""


def _placed_in(cell: Cell) -> tuple[tuple[str, str, int], ...]:
    """The roles of `PLACED_ROLES` in the prose cell `cell`: role, content and .md line."""
    key = (cell.source, cell.line)
    if key not in _PLACED:
        if len(_PLACED) > 20_000:
            _PLACED.clear()
        _PLACED[key] = tuple((token.meta["role"], token.meta["content"], line)
                             for token, line in located_tokens(cell.tokens, cell.line)
                             if token.type == "role" and token.meta["role"] in PLACED_ROLES)
    return _PLACED[key]


def annotations(section: Section, tab: str, code: Mapping[int, CodeCell]) -> dict[str, list]:
    """What the features add to the metadata of `section`'s split notebook for `tab`."""
    roles = placed_roles(section, tab, code)
    found = {feature.key: feature.annotate(roles.get(feature.key, []))
             for feature in FEATURES if feature.annotate is not None}
    return {key: annotation for key, annotation in found.items() if annotation}


@dataclass
class RunFindings:
    """What the features find in one tab's run of a section, by feature key."""
    problems: dict[str, list[Problem]] = field(default_factory=dict)
    """What the pages cannot show of what it computed (warnings; errors when strict)."""
    not_judged: list[Problem] = field(default_factory=list)
    """The roles outside the frozen key that a frozen run predates: listed, never
    blocking, since only a new frozen run can judge them."""
    notes: dict[str, list[Problem]] = field(default_factory=dict)
    """What is worth knowing, never blocking (claims that hold narrowly)."""


def run_problems(section: Section, tab: str, code: Mapping[int, CodeCell],
                 computed: Computed, frozen: bool = False) -> RunFindings:
    """What the features find in what the run of `section` for `tab` computed (a
    conditional block's roles count only where the run shows it); a `frozen` run has
    notes on nothing (it does not run again)."""
    roles = placed_roles(section, tab, code, shown_by=computed)
    found = RunFindings()
    for feature in FEATURES:
        if feature.problems is None:
            continue
        placed, results = roles.get(feature.key, []), computed.get(feature.results_key, ())
        if frozen and not feature.in_frozen_key:
            judged = [role for role in placed if feature.judged(role, results)]
            found.not_judged += [
                Problem(section.display_path, role.line,
                        f":{feature.roles[0]}:`{role.content.strip()}` not judged: the "
                        "frozen run shown predates it",
                        "the next `build.py eval --freeze` on a GPU machine judges it",
                        tab, warning=True)
                for role in placed if role not in judged]
            placed = judged
        found.problems[feature.key] = feature.problems(section, tab, placed, results)
        if feature.notes is not None and not frozen:
            found.notes[feature.key] = feature.notes(section, tab, placed, results)
    return found


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
            rendered = feature.render_markdown(
                token.meta["content"], after, computed.get(feature.results_key, ()), language)
            edits.append((*removed_span(text, start, end), "") if not rendered else
                         (start, end, rendered))
    return edited(text, edits)


def condition_holds(condition: str, after: str, computed: Computed) -> bool:
    """Whether the run that `computed` makes a conditional block's `condition`, evaluated
    after code cell `after`, true (features/conditions.py)."""
    return holds(condition, after, computed.get(CONDITIONS.results_key, ()))


def shown_after(cell: Mapping, after: str, computed: Computed) -> bool:
    """Whether a Markdown cell of a split notebook (the prose after code cell `after`) is
    shown by the run that `computed`: unless it is a conditional block's, which is shown
    where its condition holds."""
    condition = cell.get("metadata", {}).get(METADATA_KEY, {}).get(CELL_KEY)
    return not condition or condition_holds(condition, after, computed)
