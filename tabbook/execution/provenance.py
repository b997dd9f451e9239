"""Where and when a notebook's outputs were produced, as readers are told it (in the book's
language: `core/language.py` holds the words).

The execute stage records the provenance in the notebook's metadata, and the
frozen stage whether the outputs came from the frozen store or a frozen result
is out of date; the HTML footer and the launch notebooks' first cell both say
it with `describe`.
"""
from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence

from ..core.frameworks import display_name
from ..core.language import Language
from ..core.model import METADATA_KEY


def provenance_of(notebook) -> dict:
    """The provenance the execute stage stored in `notebook` ({} if never executed)."""
    return notebook.get("metadata", {}).get(METADATA_KEY, {}).get("provenance") or {}


def frozen_of(notebook) -> dict:
    """What the frozen stage noted in `notebook`: ``{"status": "used", "path": …}`` or
    ``{"status": "stale", "provenance": …}`` ({} if it has no frozen notebook)."""
    return notebook.get("metadata", {}).get(METADATA_KEY, {}).get("frozen") or {}


def frozen_origin(note: dict) -> str:
    """Where an out-of-date frozen result was computed, for the build's messages:
    ``NVIDIA H100 80GB HBM3, 2026-11-20``."""
    provenance = note.get("provenance", {})
    devices = provenance.get("devices", "CPU")
    names = "CPU" if devices == "CPU" else ", ".join(d["name"] for d in devices)
    return f"{names}, {provenance.get('date', '?')[:10]}"


def _devices(provenance: dict, language: Language) -> str:
    devices = provenance.get("devices", "CPU")
    if devices == "CPU":
        return language.text("on_cpu")
    return language.text("on_devices", devices=", ".join(
        language.text("device", name=d["name"], memory=f"{d['memory_mib'] / 1024:.0f}",
                      driver=d["driver"], cuda=d["cuda"]) for d in devices))


def on_gpu(notebook) -> bool:
    """Whether `notebook`'s outputs were computed where a GPU was given to it."""
    return provenance_of(notebook).get("devices", "CPU") != "CPU"


def gpu_tabs(notebooks: Mapping[str, object]) -> list[str]:
    """The tabs of a page whose outputs come from a GPU, in the page's order."""
    return [tab for tab, notebook in notebooks.items() if notebook and on_gpu(notebook)]


def describe(tab: str, notebook, language: Language, gpu_elsewhere: Sequence[str] = ()) -> str:
    """« Code PyTorch exécuté le 21/11/2026 à 10:00 UTC sur … — PyTorch 2.13.0, Python
    3.11.7, 4,2 s pour 12 cellules. », then what the frozen store has to do with it, in
    the book's `language` ("" for a notebook that ran no code). A notebook run on the CPU
    says which of `gpu_elsewhere`, the page's other tabs, show GPU outputs: a reader
    comparing tabs must not take one machine's durations for the other's."""
    provenance = provenance_of(notebook)
    if not provenance.get("cell_seconds"):
        return ""
    others = [display_name(t) for t in gpu_elsewhere if t != tab]
    contrast = (language.text("gpu_elsewhere", tabs=language.join(others))
                if others and not on_gpu(notebook) else "")
    return language.sentences(_execution(tab, provenance, language),
                              _frozen(tab, frozen_of(notebook), language), contrast)


def _moment(provenance: dict, language: Language) -> str:
    return language.moment(datetime.datetime.fromisoformat(provenance["date"]))


def _frozen(tab: str, note: dict, language: Language) -> str:
    if note.get("status") == "used":
        return language.text("frozen_used", path=note["path"])
    if note.get("status") == "stale":
        frozen = note["provenance"]
        return language.text("frozen_stale", moment=_moment(frozen, language),
                             devices=_devices(frozen, language), framework=display_name(tab))
    return ""


def _execution(tab: str, provenance: dict, language: Language) -> str:
    name = display_name(tab)
    return language.text(
        "ran", framework=name, moment=_moment(provenance, language),
        devices=_devices(provenance, language),
        version=provenance.get("framework_version", "?"), python=provenance.get("python", "?"),
        seconds=language.decimal(provenance["total_seconds"]),
        cells=language.plural("cells", len(provenance["cell_seconds"])))
