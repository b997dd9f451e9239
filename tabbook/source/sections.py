"""One .md file's text -> a `Section`: its cells, tabs, declaration, labels, references.

Only the structure of the format is handled here (fences, tab blocks, the tab
declaration cell, labels, references, images, TOC). The structure of cells is
read line by line; prose is parsed once into markdown-it tokens (`roles`), kept
on its cell, and its labels, references and images are read from them, and the roles
the features keep in the model (citations…), by their `read` hook.
Problems found while reading are collected, never raised, so that a single run
reports all of them.
"""
from __future__ import annotations

import ast
import re

from markdown_it.token import Token

from ..core.model import (Cell, CellKind, Image, Label, Problem, Reference, Section,
                          TocEntry)
from ..features.extension import Feature
from ..features.registry import BLOCK_ROLES as FEATURE_BLOCK_ROLES
from ..features.registry import ROLES as FEATURE_ROLES
from .branches import TAB_MARK
from .prose_blocks import ProseBlocks, split_names
from .roles import (LABEL_ROLES, REFERENCE_ROLES, child_lines, enclosing_block, fence_alt,
                    heading_title, leading_image, previous_block, split_reference)
from .rst_blocks import automodule, html_title
from .slide_marks import book_tokens, mark_problem

FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*([^`]*)$")
DECLARATION = re.compile(r"%load_ext\s+d2lbook\.tab|tab\.interact_select\(")
REQUIRED_LIBS = re.compile(r"^#\s*required_libs\((.*)\)\s*$")
GPUS = re.compile(r"^#\s*gpus\((.*)\)\s*$")


def is_code_fence(info: str) -> bool:
    """Only ```{.python .input} (the `.input` class) runs; other fences are displayed."""
    return info.startswith("{") and ".input" in info[1:-1].split()


class SectionParser:
    """Reads one section's text (`run`) into its `Section`, collecting its problems."""

    def __init__(self, section: Section, book_tabs: tuple[str, ...]):
        self.section = section
        self.book_tabs = book_tabs
        self.default_tab = book_tabs[0]
        self.problems: list[Problem] = []
        self.prose: list[tuple[int, str]] = []
        self.blocks = ProseBlocks(self.problem)
        self.code_cells_seen = 0

    def problem(self, line: int, message: str, fix: str, warning: bool = False) -> None:
        self.problems.append(Problem(self.section.display_path, line, message, fix, warning=warning))

    # -- prose --------------------------------------------------------------
    def flush_prose(self) -> None:
        while self.prose and not self.prose[-1][1].strip():
            self.prose.pop()
        while self.prose and not self.prose[0][1].strip():
            self.prose.pop(0)
        if self.prose:
            source = "\n".join(text for _, text in self.prose)
            blocks = self.blocks
            cell = Cell(CellKind.PROSE, source, self.prose[0][0], blocks.tabs, blocks.tab_line,
                        tokens=book_tokens(source),
                        condition=blocks.condition, condition_line=blocks.condition_line)
            self.section.cells.append(cell)
            wrong_mark = mark_problem(source)
            if wrong_mark:
                offset, message, fix = wrong_mark
                self.problem(cell.line + offset, message, fix)
            self.read_prose(cell)
        self.prose = []

    def prose_line(self, number: int, text: str) -> None:
        apply = self.blocks.marker(text.strip()) if text.lstrip().startswith(":") else None
        if apply is not None:
            self.flush_prose()   # the prose before the marker, in the blocks it was in
            apply(number)
            return
        self.prose.append((number, text))

    def read_prose(self, cell: Cell) -> None:
        """The title, labels, references, citations, images and bibliography of a prose cell."""
        tokens = cell.tokens
        for index, token in enumerate(tokens):
            line = cell.line + token.map[0] if token.map else cell.line
            if token.type == "heading_open":
                self.heading(tokens, index)
            elif token.type == "role_block":
                self.attribute_line(cell, index, line)
            elif token.type == "inline":
                for child, offset in child_lines(token):
                    self.inline_mark(cell, index, child, line + offset)

    def heading(self, tokens: tuple[Token, ...], index: int) -> None:
        """The section's title is its first top-level # heading."""
        if tokens[index].tag == "h1" and tokens[index].level == 0 and not self.section.title:
            self.section.title = heading_title(tokens[index + 1])

    def attribute_line(self, cell: Cell, index: int, line: int) -> None:
        meta = cell.tokens[index].meta
        if meta["role"] in LABEL_ROLES:
            self.label(cell, previous_block(cell.tokens, index), meta, line)
        elif meta["role"] in FEATURE_BLOCK_ROLES:
            self.feature_role(FEATURE_BLOCK_ROLES[meta["role"]], meta, line)

    def inline_mark(self, cell: Cell, index: int, child: Token, line: int) -> None:
        """An image or a role inside the text of tokens[index]."""
        section = self.section
        if child.type == "image":
            section.images.append(Image(child.meta["path"], child.content, line))
        if child.type != "role":
            return
        role, content = child.meta["role"], child.meta["content"]
        if role in REFERENCE_ROLES:
            section.references.append(Reference(role, split_reference(content)[1], line))
        elif role in FEATURE_ROLES:
            self.feature_role(FEATURE_ROLES[role], child.meta, line)
        elif role in LABEL_ROLES:
            self.label(cell, enclosing_block(cell.tokens, index), child.meta, line)

    def feature_role(self, feature: Feature, meta: dict, line: int) -> None:
        """A feature's role, which the feature keeps in the model if it keeps anything."""
        if feature.read is not None:
            feature.read(self.section, meta["role"], meta["content"], line)

    def label(self, cell: Cell, host: int | None, meta: dict, line: int) -> None:
        """A :label: or :eqlabel: of the block that starts at cell.tokens[host]."""
        kind, title, target_line = _labelled(cell, host, meta["role"])
        self.section.labels.append(Label(meta["content"].strip(), kind, line, title, meta["role"],
                                         target_line or line))

    # -- fences -------------------------------------------------------------
    def fence(self, start: int, info: str, body: list[str]) -> None:
        self.flush_prose()
        if info == "toc":
            self.toc(start, body)
        elif is_code_fence(info):
            self.code(start, body, fence_alt(info))
        else:
            self.display(start, info, body)

    def toc(self, start: int, body: list[str]) -> None:
        numbered = any(text.strip() == ":numbered:" for text in body)
        for offset, text in enumerate(body, start=start + 1):
            entry = text.strip()
            if entry and not entry.startswith(":"):
                self.section.toc.append(TocEntry(entry, offset, numbered))

    def display(self, start: int, info: str, body: list[str]) -> None:
        if info == "eval_rst":
            self.eval_rst(start, "\n".join(body))
        # Displayed code stays within its prose tab block.
        self.section.cells.append(Cell(CellKind.DISPLAY, "\n".join(body), start + 1,
                                       self.blocks.tabs, self.blocks.tab_line, fence=info,
                                       condition=self.blocks.condition,
                                       condition_line=self.blocks.condition_line))

    def eval_rst(self, start: int, text: str) -> None:
        """An automodule block is rendered, an ``only:: html`` title is the page's title if
        it has none yet; any other reStructuredText is left out of the HTML."""
        if automodule(text):
            return
        title = html_title(text)
        if title:
            self.section.title = self.section.title or title
            return
        self.problem(start, "an eval_rst block (reStructuredText for d2lbook's Sphinx) "
                     "is kept in the notebooks but not shown in the HTML",
                     "write it in Markdown", warning=True)

    def code(self, start: int, body: list[str], alt: str) -> None:
        self.blocks.code_inside(start)
        self.code_cells_seen += 1
        if any(DECLARATION.search(line) for line in body):
            self.declaration(start, body)
            return
        marks = [i for i, text in enumerate(body) if TAB_MARK.match(text.strip())]
        if not marks:
            self.section.cells.append(Cell(CellKind.CODE, "\n".join(body), start + 1,
                                           (self.default_tab,), alt=alt))
        else:
            self.tagged_code(start, body, marks, alt)

    def tagged_code(self, start: int, body: list[str], marks: list[int], alt: str) -> None:
        """A code cell with tab marks (indices in `body`). As in d2lbook, one mark gives the
        cell's tabs, wherever it stands, and every mark line is removed from the code
        (`branches` drops those that stay in the cell's source)."""
        at = _applied_mark(body, marks)
        tab_line = start + 1 + at
        tabs = split_names(TAB_MARK.match(body[at].strip()).group(1) or "") or ("",)
        for extra in marks:
            if extra != at:
                self.extra_mark(start + 1 + extra, body[extra].strip(), tabs, tab_line)
        if any(text.strip() for text in body[:at]):   # leading blank lines don't count
            self.problem(tab_line, f"{_mark_name(body[at])} is not on the first line of the "
                         "cell (it applies to the whole cell)", "move it to the cell's first line",
                         warning=True)
            first_line = start + 1
        else:
            body, first_line = body[at + 1:], tab_line + 1
        self.section.cells.append(Cell(CellKind.CODE, "\n".join(body), first_line, tabs,
                                       tab_line, alt=alt))

    def extra_mark(self, line: int, text: str, tabs: tuple[str, ...], tab_line: int) -> None:
        """A tab mark in a cell besides the one that gives its tabs: d2lbook removes it."""
        names = split_names(TAB_MARK.match(text).group(1) or "") or ("",)
        if set(names) == set(tabs):
            self.problem(line, f"a tab mark inside the cell ({text}) is removed from the code, "
                         "as d2lbook removes it", f"remove the line: line {tab_line} gives the "
                         "cell's tabs", warning=True)
            return
        self.problem(line, f"a tab mark inside the cell ({text}) names other tabs than the "
                     f"cell's ({', '.join(tabs)}, from line {tab_line}: d2lbook takes a cell's "
                     "first #@tab line, else its first %%tab line); it is removed from the code",
                     "split the cell there, each part with its own %%tab line", warning=True)

    def declaration(self, start: int, body: list[str]) -> None:
        """The cell `%load_ext d2lbook.tab` / `tab.interact_select([...])`."""
        section = self.section
        if self.code_cells_seen != 1 or section.declared_tabs is not None:
            self.problem(start, "the tab declaration is not the section's first code cell",
                         "move %load_ext d2lbook.tab / tab.interact_select(...) to the first "
                         "code cell, once")
            return
        section.declaration_line = start
        section.declared_tabs = ()
        for number, text in enumerate(body, start=start + 1):
            line = text.strip()
            if line and not line.startswith("%load_ext d2lbook.tab"):
                self.declaration_line(number, line)

    def declaration_line(self, number: int, line: str) -> None:
        """One line of the declaration cell: the tab list, #required_libs, #gpus."""
        section = self.section
        libs, gpus = REQUIRED_LIBS.match(line), GPUS.match(line)
        if line.startswith("tab.interact_select("):
            tabs = _literal_names(line[len("tab.interact_select("):-1])
            if tabs is None or not line.endswith(")"):
                self.problem(number, f"cannot read the tab list in {line!r}",
                             "write tab.interact_select(['mxnet', 'pytorch', 'tensorflow'])")
            else:
                section.declared_tabs = tabs
        elif libs:
            names = _literal_names(libs.group(1))
            if names is None:
                self.problem(number, f"cannot read {line!r}",
                             "write #required_libs(\"package==1.0\", ...)")
            else:
                section.required_libs += names
        elif gpus:
            count = gpus.group(1).strip()
            if not count.isdigit():
                self.problem(number, f"#gpus needs a whole number, got {count!r}", "write #gpus(2)")
            else:
                section.gpus = int(count)
        elif not line.startswith("#"):
            self.problem(number, "code in the tab declaration cell is never run",
                         "move it to a cell of its own")

    # -- whole file ---------------------------------------------------------
    def run(self, text: str) -> None:
        lines = text.split("\n")
        index = 0
        while index < len(lines):
            opening = FENCE_OPEN.match(lines[index])
            if opening:
                index = self.fenced_block(lines, index, opening.group(1), opening.group(2).strip())
            else:
                self.prose_line(index + 1, lines[index])
                index += 1
        self.flush_prose()
        self.blocks.end_of_file()
        if not text.strip():
            self.problems.append(Problem(self.section.display_path, 1, "empty section",
                                        "write its content or remove it and its TOC entry",
                                        warning=True, file_fault=True))
        elif not self.section.title:
            self.problem(1, "the section has no '# Title' heading (its file name stands in)",
                         "start it with '# Title'", warning=True)
        self.section.title = self.section.title or self.section.path.stem
        declared = self.section.declared_tabs
        # d2lbook makes a tab's notebook from the cells alone, whatever the declaration says;
        # a declared tab that no cell names gets its notebook too (this build's promise).
        self.section.tabs = self.inferred_tabs() if declared is None else \
            declared + tuple(tab for tab in self.named_tabs() if tab not in declared)

    def fenced_block(self, lines: list[str], index: int, marker: str, info: str) -> int:
        """The block whose fence opens on lines[index]; the index of the line after it.

        A code cell ends, unclosed, where another cell's fence opens: the code fence that
        was meant to close it is missing (CommonMark would read on to the next ``` line).
        A displayed block reads on, as d2lbook reads it (`swallowed_fence`)."""
        closing = re.compile(rf"^ {{0,3}}{re.escape(marker[0])}{{{len(marker)},}}\s*$")
        end = index + 1
        while end < len(lines) and not closing.match(lines[end]):
            if is_code_fence(info) and _opens_fence(lines[end], marker):
                self.problem(index + 1, f"code fence {marker} is not closed before the next "
                             f"cell's fence at line {end + 1}",
                             f"add a line {marker} at the end of the code")
                self.fence(index + 1, info, lines[index + 1:end])
                return end
            end += 1
        if end == len(lines):
            self.problem(index + 1, f"code fence {marker} is never closed",
                         f"add a line {marker} after the code")
        else:
            self.swallowed_fence(lines, index, end, marker)
        self.fence(index + 1, info, lines[index + 1:end])
        return end + 1

    def swallowed_fence(self, lines: list[str], index: int, end: int, marker: str) -> None:
        """A displayed block opened on lines[index] and left open reads on to the closing
        fence on lines[end], as CommonMark and d2lbook (notedown) read it: a fence opened
        inside it, and what follows, is shown as the block's text."""
        inner = next((i for i in range(index + 1, end) if _opens_fence(lines[i], marker)), None)
        if inner is None:
            return
        code = is_code_fence(FENCE_OPEN.match(lines[inner]).group(2).strip())
        what = "the code cell" if code else f"the {lines[inner].strip()} block"
        self.problem(index + 1, f"the {lines[index].strip()} block is not closed: it runs on to "
                     f"the fence at line {end + 1} and swallows {what} at line {inner + 1}, "
                     f"shown as text{', never run' if code else ''} (as d2lbook reads it)",
                     f"close it with a line {marker} before line {inner + 1}", warning=True)

    def inferred_tabs(self) -> tuple[str, ...]:
        """A section without tab declaration has the tabs its cells name (`named_tabs`);
        a section without code, every tab of the book."""
        if not any(cell.kind is CellKind.CODE for cell in self.section.cells):
            return self.book_tabs
        return self.named_tabs()

    def named_tabs(self) -> tuple[str, ...]:
        """The tabs d2lbook's ``get_tab_notebook`` makes a notebook for: the default tab if a
        cell is in it, every other tab that a cell (code or prose) names explicitly."""
        cells = self.section.cells
        named = {tab for cell in cells if cell.tab_line is not None for tab in cell.tabs}
        if any(cell.in_tab(self.default_tab) for cell in cells
               if cell.kind is CellKind.CODE or cell.tab_line is not None):
            named.add(self.default_tab)
        return tuple(tab for tab in self.book_tabs if tab in named)


def _applied_mark(body: list[str], marks: list[int]) -> int:
    """The mark that gives a cell its tabs: d2lbook's ``get_cell_tab`` searches the cell for
    the older ``#@tab`` first, then for ``%%tab``; the first mark where it names the same."""
    def names(i: int) -> set[str]:
        return set(split_names(TAB_MARK.match(body[i].strip()).group(1) or ""))
    chosen = next((i for i in marks if body[i].strip().startswith("#")), marks[0])
    return marks[0] if names(marks[0]) == names(chosen) else chosen


def _mark_name(line: str) -> str:
    return "%%tab" if line.strip().startswith("%%") else "#@tab"


def _opens_fence(line: str, marker: str) -> bool:
    """An opening fence (with an info string) of `marker`'s kind, at least as long."""
    opening = FENCE_OPEN.match(line)
    return opening is not None and opening.group(1)[0] == marker[0] and \
        len(opening.group(1)) >= len(marker) and bool(opening.group(2).strip())


def _literal_names(text: str) -> tuple[str, ...] | None:
    """Read ``['a', 'b']`` or ``'a', 'b'`` as a tuple of strings, None if it isn't one."""
    try:
        value = ast.literal_eval(f"({text},)" if text.strip() else "()")
    except (ValueError, SyntaxError):
        return None
    if len(value) == 1 and isinstance(value[0], (list, tuple)):
        value = tuple(value[0])
    return value if all(isinstance(v, str) for v in value) else None


def _labelled(cell: Cell, host: int | None, role: str) -> tuple[str, str, int]:
    """Kind, title and .md line of the block of cell.tokens[host] that a label names
    (line 0 without a block)."""
    if host is None:
        return ("equation" if role == "eqlabel" else "other"), "", 0
    tokens = cell.tokens
    token, image = tokens[host], leading_image(tokens, host)
    line = cell.line + token.map[0]
    if role == "eqlabel" or token.type == "math_block":
        return "equation", "", line
    if token.type == "heading_open":
        return "section", heading_title(tokens[host + 1]), line
    if image is not None:
        return "figure", image.content, line
    return ("table" if token.type == "table_open" else "other"), "", line
