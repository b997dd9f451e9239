"""Where and when a notebook's outputs were produced, as readers are told it (in French).

The execute stage records the provenance in the notebook's metadata, and the
frozen stage whether the outputs came from the frozen store or a frozen result
is out of date; the HTML footer and the launch notebooks' first cell both say
it with `describe`.
"""
from __future__ import annotations

import datetime

from ..core.frameworks import display_name
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


def _devices(provenance: dict) -> str:
    devices = provenance.get("devices", "CPU")
    if devices == "CPU":
        return "sur le processeur (aucun GPU)"
    return "sur " + ", ".join(
        f"{d['name']} ({d['memory_mib'] / 1024:.0f} Gio, pilote {d['driver']}, CUDA {d['cuda']})"
        for d in devices)


def describe(tab: str, notebook) -> str:
    """« Code PyTorch exécuté le 21/11/2026 à 10:00 UTC sur … — PyTorch 2.13.0, Python
    3.11.7, 4,2 s pour 12 cellules. », then what the frozen store has to do with it
    ("" for a notebook that ran no code)."""
    provenance = provenance_of(notebook)
    if not provenance.get("cell_seconds"):
        return ""
    return " ".join(filter(None, [_execution(tab, provenance), _frozen(tab, frozen_of(notebook))]))


def _date(provenance: dict) -> str:
    return datetime.datetime.fromisoformat(provenance["date"]).strftime("%d/%m/%Y à %H:%M UTC")


def _frozen(tab: str, note: dict) -> str:
    if note.get("status") == "used":
        return (f"Ces sorties sont figées dans le dépôt du livre ({note['path']}) : elles ne "
                "sont recalculées que si le code change.")
    if note.get("status") == "stale":
        frozen = note["provenance"]
        return (f"Le résultat figé de ce code, obtenu le {_date(frozen)} {_devices(frozen)}, "
                f"est périmé : le code, la bibliothèque d2l ou la version majeure de "
                f"{display_name(tab)} ont changé depuis. Les sorties affichées viennent donc "
                "de cette construction.")
    return ""


def _execution(tab: str, provenance: dict) -> str:
    name = display_name(tab)
    seconds = f"{provenance['total_seconds']:.1f}".replace(".", ",")
    return (f"Code {name} exécuté le {_date(provenance)} {_devices(provenance)} — "
            f"{name} {provenance.get('framework_version', '?')}, "
            f"Python {provenance.get('python', '?')}, {seconds} s pour "
            f"{len(provenance['cell_seconds'])} cellules.")
