"""The blocks that set what prose a tab shows: `:begin_tab:` … `:end_tab:` (d2lbook's), and
`:begin_if:`expression`` … `:end_if:` (ext), prose shown in the tabs whose run makes the
expression true, evaluated where an `:eval:` at the block's start would be.

Each marker stands on a line of its own. A conditional block may sit inside a tab block,
not the other way round, and holds prose only; d2lbook's leniencies with tab blocks
(an unclosed one, a stray `:end_tab:`) stay warnings, while a conditional block, which
d2lbook never reads, gets no leniency.
"""
from __future__ import annotations

import re
from collections.abc import Callable

from ..core.model import ALL_TABS

BEGIN_TAB = re.compile(r"^:begin_tab:`([^`]*)`\s*$")
END_TAB = re.compile(r"^:end_tab:\s*$")
BEGIN_IF = re.compile(r"^:begin_if:`([^`]*)`\s*$")
END_IF = re.compile(r"^:end_if:\s*$")

Report = Callable[..., None]
"""(line, message, fix, warning=False) -> None: a problem of the section being read."""


def split_names(text: str) -> tuple[str, ...]:
    """``'mxnet, pytorch'`` -> ``('mxnet', 'pytorch')``."""
    return tuple(name.strip() for name in text.split(",") if name.strip())


class ProseBlocks:
    """The tab block and conditional block a section's reader is in, line by line."""

    def __init__(self, report: Report):
        self.report = report
        self.tabs: tuple[str, ...] = (ALL_TABS,)
        self.tab_line: int | None = None
        """The line of the :begin_tab: of the open tab block."""
        self.condition = ""
        self.condition_line: int | None = None
        """The line of the :begin_if: of the open conditional block."""

    def marker(self, stripped: str) -> Callable[[int], None] | None:
        """For a line (`stripped`) that is a block marker, what applies it at its line
        number (the caller ends its prose cell first); None for any other line."""
        for pattern, apply in ((BEGIN_TAB, self._begin_tab), (END_TAB, self._end_tab),
                               (BEGIN_IF, self._begin_if), (END_IF, self._end_if)):
            found = pattern.match(stripped)
            if found:
                return lambda number: apply(number, *found.groups())
        return None

    def _in_condition(self, number: int, marker: str, fix: str) -> bool:
        """Whether a conditional block is open, where `marker` may not stand (reported)."""
        if self.condition_line is not None:
            self.report(number, f"{marker} inside the :begin_if: block opened at line "
                        f"{self.condition_line}", fix)
        return self.condition_line is not None

    def _begin_tab(self, number: int, names: str) -> None:
        if self._in_condition(number, ":begin_tab:", "close the conditional block with "
                              ":end_if: first: a conditional block goes inside a tab block, "
                              "not around it"):
            return
        if self.tab_line is not None:
            self.report(self.tab_line, f":begin_tab: is not closed before the next "
                        f":begin_tab: at line {number} (closed there)",
                        f"add :end_tab: before line {number}", warning=True)
        self.tabs, self.tab_line = split_names(names) or ("",), number

    def _end_tab(self, number: int) -> None:
        if self._in_condition(number, ":end_tab:", "close the conditional block with :end_if: "
                              "first"):
            return
        if self.tab_line is None:
            self.report(number, ":end_tab: without a matching :begin_tab: (ignored)",
                        "remove it or add :begin_tab:`<tab>` before the block", warning=True)
        self.tabs, self.tab_line = (ALL_TABS,), None

    def _begin_if(self, number: int, expression: str) -> None:
        if self._in_condition(number, ":begin_if:", "close that block with :end_if: first "
                              "(conditions do not nest: write `a and b`)"):
            return
        try:
            compile(expression.strip(), "<:begin_if:>", "eval")
        except SyntaxError as error:
            self.report(number, f":begin_if:`{expression}` is not a Python expression "
                        f"({error.msg})", "write one expression, true in the tabs whose run "
                        "the block's prose describes")
        self.condition, self.condition_line = expression.strip(), number

    def _end_if(self, number: int) -> None:
        if self.condition_line is None:
            self.report(number, ":end_if: without a matching :begin_if:",
                        "remove it or open the block with :begin_if:`expression`")
        self.condition, self.condition_line = "", None

    def code_inside(self, start: int) -> None:
        """A code cell opens at `start`: no block may hold one."""
        if self.condition_line is not None:
            self.report(start, f"code cell inside the :begin_if: block opened at line "
                        f"{self.condition_line}", "close the block with :end_if: before the "
                        "cell: a conditional block holds prose only")
        if self.tab_line is not None:
            self.report(start, f"code cell inside the :begin_tab: block opened at line "
                        f"{self.tab_line}", "close the block with :end_tab: before the "
                        "cell and mark the cell with %%tab instead")

    def end_of_file(self) -> None:
        if self.condition_line is not None:
            self.report(self.condition_line, ":begin_if: is never closed",
                        "add :end_if: after the block's prose")
        if self.tab_line is not None:
            self.report(self.tab_line, ":begin_tab: is never closed (it runs to the end "
                        "of the file)", "add :end_tab: after the tab's prose", warning=True)
