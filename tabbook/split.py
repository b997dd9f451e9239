"""Split stage: one notebook per section and framework tab.

A notebook holds what a student of that framework needs and nothing else: the
cells of its tab and of `all`, its prose, the tab.selected branches resolved,
no `%%tab` line, no tab declaration cell, no slide marks. Each code cell keeps
the .md lines it comes from, so later stages can point errors at the source.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import nbformat

from .files import write_if_changed
from .model import CellKind, Section
from .parse import strip_slide_marks
from .pycode import analyse

NOTEBOOKS_DIR = Path("_build") / "notebooks"
METADATA_KEY = "tabbook"


def _fence(info: str, body: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    marker = "`" * max(3, longest + 1)
    return f"{marker}{info}\n{body}\n{marker}"


def split_section(section: Section, tab: str) -> nbformat.NotebookNode:
    """The notebook of `section` for `tab` (the caller checks the section has that tab)."""
    cells = []
    markdown: list[str] = []

    def flush_markdown() -> None:
        if markdown:
            cells.append(nbformat.v4.new_markdown_cell("\n\n".join(markdown)))
            markdown.clear()

    for cell in section.cells:
        if not cell.in_tab(tab):
            continue
        if cell.kind is CellKind.PROSE:
            markdown.append(strip_slide_marks(cell.source))
        elif cell.kind is CellKind.DISPLAY:
            markdown.append(_fence(cell.fence, cell.source))
        else:
            resolved = analyse(cell.source).resolve(tab)
            if not resolved.text.strip():
                continue
            flush_markdown()
            code = nbformat.v4.new_code_cell(resolved.text.strip("\n"))
            first = next(i for i, line in enumerate(resolved.lines) if line.strip())
            code.metadata[METADATA_KEY] = {
                "lines": [cell.line + o for o in resolved.origins[first:]
                          ][:len(code.source.split("\n"))]}
            cells.append(code)
    flush_markdown()
    for number, cell in enumerate(cells):
        cell.id = f"cell-{number}"   # stable ids: same sources give the same bytes
    notebook = nbformat.v4.new_notebook(cells=cells)
    notebook.metadata = {
        "kernelspec": {"name": "python3", "display_name": "Python 3 (ipykernel)",
                       "language": "python"},
        "language_info": {"name": "python"},
        METADATA_KEY: {"tab": tab, "source": section.source, "title": section.title,
                       "required_libs": list(section.required_libs), "gpus": section.gpus},
    }
    return notebook


def notebook_path(build_root: Path, tab: str, section: Section) -> Path:
    return build_root / NOTEBOOKS_DIR / tab / section.path.with_suffix(".ipynb")


@dataclass
class SplitResult:
    written: list[Path]
    unchanged: list[Path]
    missing_tabs: list[tuple[Section, str]]
    removed: list[Path]


def write_notebooks(sections: list[Section], tabs: tuple[str, ...], default_tab: str,
                    build_root: Path, progress=None, prune: bool = False) -> SplitResult:
    """Write the notebooks of `sections` for `tabs` under ``_build/notebooks``.

    With `prune`, notebooks of sections or tabs that no longer exist are removed.
    """
    result = SplitResult([], [], [], [])
    for number, section in enumerate(sections, start=1):
        own_tabs = section.tabs
        made = []
        for tab in tabs:
            if tab not in own_tabs:
                result.missing_tabs.append((section, tab))
                continue
            path = notebook_path(build_root, tab, section)
            text = nbformat.writes(split_section(section, tab)) + "\n"
            (result.written if write_if_changed(path, text) else result.unchanged).append(path)
            made.append(tab)
        if progress:
            progress(number, len(sections), section, made,
                     [t for t in tabs if t not in own_tabs])
    if prune:
        kept = set(result.written + result.unchanged)
        for tab in tabs:
            for path in sorted((build_root / NOTEBOOKS_DIR / tab).rglob("*.ipynb")):
                if path not in kept:
                    path.unlink()
                    result.removed.append(path)
    return result
