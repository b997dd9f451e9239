"""The execution record: a notebook's outputs by cell id, its timings and provenance.

One type for the execution cache (``_build/cache/<tab>/…json``, keyed by the
cache key) and the frozen store (``frozen/<tab>/…ipynb``, keyed by the frozen
key). A record is validated when read: one that is missing, not UTF-8, not
JSON or not of this shape is no record at all, and its notebook runs again.
"""
from __future__ import annotations

import copy
import datetime
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from ..bootstrap.records import conforms, read_record, write_record
from ..core.language import Language
from ..core.model import METADATA_KEY
from ..features.kernel_cells import result_entry
from ..features.recorded_values import RECORDED_VALUES
from ..features.registry import RECORDED
from ..source.slide_marks import SLIDES_KEY
from ..notebooks.features import computed_in, shown_after, with_rendered_roles
from .kernels import Runtime

if TYPE_CHECKING:   # nbformat: loaded by the commands that read or write notebooks
    import nbformat

CACHE_FORMAT = 3   # in the cache key; 2: devices the code used; 3: outputs by cell id
KERNEL_METADATA = ("kernelspec", "language_info")
NUMBER = (int, float)
CELL_FIELDS = {"execution_count": (int, type(None)), "outputs": list, "execution": dict,
               "seconds": NUMBER}
FIELDS = {"key": str, "seconds": NUMBER, "kernel": dict, "provenance": dict,
          "cells": dict}


@dataclass(frozen=True)
class ExecutionRecord:
    key: str
    seconds: float
    kernel: dict
    """The notebook metadata naming its kernel and language."""
    provenance: dict
    """Where, when and with what the outputs were computed (see provenance.py)."""
    cells: dict[str, dict]
    """Per code cell id: execution_count, outputs, execution metadata, seconds."""
    computed: Mapping[str, tuple[dict, ...]] = field(default_factory=dict)
    """What the features' hooks collected from the same run, by their `results_key`
    (none empty; see features/extension.py)."""
    code_key: str = ""
    """The cache key of its code alone ("" in records older than it): a record of the
    same code can evaluate new expressions on its recorded values."""

    @classmethod
    def from_json(cls, data: Any) -> ExecutionRecord | None:
        """The record `data` holds, None if it is not one of this format."""
        if not conforms(data, FIELDS) or not all(
                conforms(cell, CELL_FIELDS) for cell in data["cells"].values()):
            return None
        computed = {}
        for feature in RECORDED:   # records older than a feature have nothing for it
            items = data.get(feature.results_key, [])
            if not isinstance(items, list) or not all(feature.is_result(i) for i in items):
                return None
            if items:
                computed[feature.results_key] = tuple(items)
        code_key = data.get("code_key", "")
        return cls(data["key"], float(data["seconds"]), data["kernel"], data["provenance"],
                   data["cells"], computed, code_key if isinstance(code_key, str) else "")

    def to_json(self) -> dict:
        return {"key": self.key, "seconds": self.seconds, "kernel": self.kernel,
                "provenance": self.provenance, "cells": self.cells, "code_key": self.code_key,
                **{key: list(items) for key, items in self.computed.items()}}

    @classmethod
    def from_notebook(cls, notebook: nbformat.NotebookNode, key: str) -> ExecutionRecord:
        """The record of an executed notebook (its provenance and what the features
        collected in the book's metadata)."""
        book_metadata = notebook.metadata.get(METADATA_KEY, {})
        provenance = dict(book_metadata.get("provenance") or {})
        return cls(key, float(provenance.get("total_seconds", 0.0)),
                   {name: notebook.metadata[name] for name in KERNEL_METADATA
                    if name in notebook.metadata},
                   provenance, cell_results(notebook), computed_in(notebook))

    @property
    def recorded(self) -> tuple[dict, ...]:
        """The values its run recorded (features/recorded_values.py); none for a run older
        than that feature."""
        return self.computed.get(RECORDED_VALUES.results_key, ())

    def reevaluated(self, key: str, asked: Mapping[str, list[dict]],
                    computed: Mapping[str, list[dict]]) -> ExecutionRecord:
        """This record under `key`, answering what the features now ask (`asked`, by
        results key: ``{"after", "expression"}`` each) with what its run computed, or else
        with what was `computed` on its recorded values; its outputs, provenance and
        recorded values kept."""
        answers = dict(self.computed)
        for name, items in asked.items():
            found = [*self.computed.get(name, ()), *computed.get(name, ())]
            answers[name] = tuple(entry for item in items if (entry := result_entry(
                found, item["after"], item["expression"])) is not None)
        return replace(self, key=key, computed={n: items for n, items in answers.items() if items})

    def merged_into(self, notebook: nbformat.NotebookNode,
                    language: Language) -> nbformat.NotebookNode:
        """A copy of the split `notebook` with this record's outputs, timings, provenance,
        and the features' roles rendered from what they collected (in the book's
        `language`).

        As jupyter-cache's merge_match_into_notebook: prose, headings and .md lines
        come from today's split, outputs from the run whose key matches (same code,
        hence the same cell ids).
        """
        import nbformat

        merged = copy.deepcopy(notebook)
        after, kept = "", []
        for cell in merged.cells:
            if cell.cell_type == "markdown":
                if shown_after(cell, after, self.computed):
                    cell.source = with_rendered_roles(cell.source, after, self.computed, language)
                    for mark in cell.metadata.get(METADATA_KEY, {}).get(SLIDES_KEY, ()):
                        mark[1] = with_rendered_roles(mark[1], after, self.computed, language)
                    kept.append(cell)
                continue
            kept.append(cell)
            after = cell.id
            result = self.cells.get(cell.id)
            if result:
                cell.execution_count = result["execution_count"]
                cell.outputs = nbformat.from_dict(result["outputs"])
                cell.metadata["execution"] = nbformat.from_dict(result["execution"])
                cell.metadata.setdefault(METADATA_KEY, {})["seconds"] = result["seconds"]
        merged.cells = kept
        merged.metadata.update(nbformat.from_dict(copy.deepcopy(self.kernel)))
        book_metadata = merged.metadata.setdefault(METADATA_KEY, {})
        book_metadata["provenance"] = nbformat.from_dict(copy.deepcopy(self.provenance))
        for key, items in self.computed.items():
            book_metadata[key] = nbformat.from_dict(copy.deepcopy(list(items)))
        return merged


def kernel_metadata(runtime: Runtime) -> dict:
    """The notebook metadata that names the kernel of a runtime's tab."""
    return {"kernelspec": {"name": runtime.kernel_name, "language": "python",
                           "display_name": f"Python 3 ({runtime.tab})"}}


def provenance(runtime: Runtime, devices: list[dict], device_use: dict,
               cell_seconds: list[float], seconds: float) -> dict:
    """Where, when and with what a notebook was executed: the exact versions included,
    which frozen results keep and readers are shown."""
    return {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "framework": runtime.tab, "framework_version": runtime.framework_version,
            "python": runtime.python_version, "devices": devices or "CPU",
            "device_use": device_use, "cell_seconds": cell_seconds,
            "total_seconds": round(seconds, 3)}


def prose_record(runtime: Runtime, key: str) -> ExecutionRecord:
    """The record of a notebook without code: no kernel started, nothing computed."""
    return ExecutionRecord(key, 0.0, kernel_metadata(runtime), provenance(runtime, [], {}, [], 0.0),
                           {})


def cell_results(notebook: nbformat.NotebookNode) -> dict[str, dict]:
    """What a record keeps of each executed code cell, by cell id."""
    return {cell.id: {"execution_count": cell.get("execution_count"),
                      "outputs": [dict(o) for o in cell.get("outputs", [])],
                      "execution": dict(cell.metadata.get("execution", {})),
                      "seconds": float(cell.metadata.get(METADATA_KEY, {}).get("seconds", 0.0))}
            for cell in notebook.cells if cell.cell_type == "code"}


def read_cache(path: Path) -> ExecutionRecord | None:
    """The cache record at `path`; None if there is none or it cannot be read (it is
    then made again, never an error)."""
    return ExecutionRecord.from_json(read_record(path))


def write_cache(path: Path, record: ExecutionRecord) -> None:
    write_record(path, record.to_json())


def read_executed_notebook(path: Path) -> Mapping | None:
    """An executed notebook as JSON; None if there is none or it cannot be read."""
    return read_record(path)
