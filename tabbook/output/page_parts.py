"""A page's content, from its section and the executed notebook of each of its tabs: prose,
code cells with their outputs, and tab groups where the frameworks differ. The HTML stage
and the PDF stage lay these parts out, each its own way."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import nbformat
from markupsafe import Markup

from ..core.model import ALL_TABS, Cell, CellKind, Section
from ..notebooks.features import Computed, code_before, computed_in, condition_holds
from ..notebooks.split import code_cells
from .descriptions import cell_description
from ..source.rst_blocks import automodule, html_title
from .markup import PageContext, render_prose
from .package_reference import code_anchor
from .highlighting import highlight_code
from .outputs import render_outputs
from .templating import ENVIRONMENT, MACROS


@dataclass
class TabGroup:
    """Consecutive cells that differ between frameworks, shown as one group of tabs."""
    fragments: dict[str, list[Markup]] = field(default_factory=dict)
    """Tab -> its fragments, for the tabs that show something here."""
    runs_code: bool = False
    """Whether a code cell is among them. Without one, the group is prose written for some
    frameworks (notes on MXNet and TensorFlow after PyTorch code): another framework has
    nothing missing there, the passage concerns the others."""


NO_PACKAGES: Mapping[str, Markup] = MappingProxyType({})
"""A page without automodule blocks (and the PDF, which leaves them out)."""

Part = Markup | TabGroup
"""A piece of a page: HTML common to its tabs, or a tab group."""
ENVIRONMENT.tests["tab_group"] = lambda part: isinstance(part, TabGroup)


def _fence_language(info: str) -> str:
    word = info.strip().strip("{}").split()[0] if info.strip().strip("{}") else "text"
    return word.lstrip(".")


class _CodeCells:
    """A page's code cells in each tab, and their executed cells found by cell id."""

    def __init__(self, section: Section, notebooks: dict[str, nbformat.NotebookNode]):
        self.section = section
        self.code = {tab: code_cells(section, tab) for tab in notebooks}
        self.executed = {tab: {c.id: c for c in nb.cells if c.cell_type == "code"}
                         for tab, nb in notebooks.items()}
        self.after = {tab: code_before(section, tab, self.code[tab]) for tab in notebooks}
        self.computed = {tab: computed_in(nb) for tab, nb in notebooks.items()}

    def shown(self, position: int, tabs: list[str]) -> dict[str, tuple[str, Computed]]:
        """Per tab, the code cell before the prose cell at `position` and what the tab's
        run computed for the features (see `render_prose`)."""
        return {tab: (self.after[tab].get(position, ""), self.computed[tab]) for tab in tabs}

    def shows(self, tab: str, position: int, cell: Cell) -> bool:
        """Whether `tab` shows the cell at `position`: it is in the tab and, in a conditional
        block, the tab's run makes the condition true (none without a run)."""
        return cell.in_tab(tab) and (not cell.condition or tab in self.computed and condition_holds(
            cell.condition, self.after[tab].get(position, ""), self.computed[tab]))

    def fragment(self, tab: str, position: int, ctx: PageContext) -> Markup | None:
        """The model cell at `position` as a code cell of `tab`, with its outputs."""
        code_cell = self.code[tab].get(position)
        if code_cell is None:   # nothing left for this tab once tab.selected is resolved
            return None
        run = self.executed[tab].get(code_cell.id)
        if run is None:
            return MACROS.cell(highlight_code(code_cell.source), Markup())
        figures = cell_description(code_cell.source, self.section.cells[position].alt,
                                   self.prose_before(tab, position), ctx.language)
        return MACROS.cell(highlight_code(code_cell.source),
                           render_outputs(run.outputs, ctx, figures))

    def prose_before(self, tab: str, position: int) -> tuple:
        """The tokens of the prose `tab` shows right before the cell at `position` (none when
        the cell before it in `tab` is code)."""
        for cell in reversed(self.section.cells[:position]):
            if cell.in_tab(tab):
                return cell.tokens if cell.kind is CellKind.PROSE else ()
        return ()


def _rst_fragments(cell: Cell, position: int, tabs: list[str], code: _CodeCells,
                   ctx: PageContext, packages: Mapping[str, Markup]) -> dict[str, Markup]:
    """An eval_rst block: the package reference of an automodule block, the title of an
    ``only:: html`` block; other Sphinx markup is left out (the checks warned)."""
    module, title = automodule(cell.source), html_title(cell.source)
    if module in packages:
        return dict.fromkeys(tabs, packages[module])
    if title:
        shown = code.shown(position, tabs)
        return dict.fromkeys(tabs, Markup(render_prose(f"# {title}", cell.line, ctx, shown)))
    return {}


def _fragments(cell: Cell, position: int, tabs: list[str], code: _CodeCells,
               ctx: PageContext, packages: Mapping[str, Markup]) -> dict[str, Markup]:
    """One model cell's HTML in each of `tabs` that shows something for it."""
    if cell.kind is CellKind.PROSE:
        shown = code.shown(position, tabs)
        return dict.fromkeys(tabs, Markup(render_prose(cell.source, cell.line, ctx, shown)))
    if cell.kind is CellKind.DISPLAY and cell.fence == "eval_rst":
        return _rst_fragments(cell, position, tabs, code, ctx, packages)
    if cell.kind is CellKind.DISPLAY:
        return dict.fromkeys(tabs, highlight_code(cell.source, _fence_language(cell.fence)))
    fragments = {tab: code.fragment(tab, position, ctx) for tab in tabs}
    return {tab: fragment for tab, fragment in fragments.items() if fragment is not None}


def _anchors(cell: Cell, tabs, ctx: PageContext) -> Markup:
    """The targets of links to a code cell in each of `tabs` (the package reference's), on
    the site's pages (the print layout's document would repeat them)."""
    if cell.kind is not CellKind.CODE or not ctx.code_anchors:
        return Markup()
    return Markup().join(Markup('<span id="{}"></span>').format(code_anchor(tab, cell.line))
                         for tab in tabs)


def page_parts(section: Section, page_tabs: list[str], ctx: PageContext,
               notebooks: dict[str, nbformat.NotebookNode],
               packages: Mapping[str, Markup] = NO_PACKAGES) -> list[Part]:
    """The page's content; consecutive per-tab fragments form one tab group. `packages`:
    module -> its reference, for the page's automodule blocks."""
    code = _CodeCells(section, notebooks)
    parts: list[Part] = []
    for position, cell in enumerate(section.cells):
        tabs = [t for t in page_tabs if code.shows(t, position, cell)]
        per_tab = _fragments(cell, position, tabs, code, ctx, packages) if tabs else {}
        if not per_tab:
            continue
        if cell.tabs == (ALL_TABS,) and len(per_tab) == len(page_tabs) and \
                len(set(per_tab.values())) == 1:
            parts.append(_anchors(cell, per_tab, ctx) + next(iter(per_tab.values())))
            continue
        if not parts or not isinstance(parts[-1], TabGroup):
            parts.append(TabGroup())
        group = parts[-1]
        group.runs_code |= cell.kind is CellKind.CODE
        for tab, fragment in per_tab.items():
            group.fragments.setdefault(tab, []).append(_anchors(cell, [tab], ctx) + fragment)
    return parts
