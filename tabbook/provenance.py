"""Where and when a notebook's outputs were produced, as readers are told it (in French).

The execute stage records the provenance in the notebook's metadata; the HTML
footer and the launch notebooks' first cell both say it with `describe`.
"""
from __future__ import annotations

import datetime

from .frameworks import display_name
from .model import METADATA_KEY


def provenance_of(notebook) -> dict:
    """The provenance the execute stage stored in `notebook` ({} if never executed)."""
    return notebook.get("metadata", {}).get(METADATA_KEY, {}).get("provenance") or {}


def _devices(provenance: dict) -> str:
    devices = provenance.get("devices", "CPU")
    if devices == "CPU":
        return "sur le processeur (aucun GPU)"
    return "sur " + ", ".join(
        f"{d['name']} ({d['memory_mib'] / 1024:.0f} Gio, pilote {d['driver']}, CUDA {d['cuda']})"
        for d in devices)


def describe(tab: str, provenance: dict) -> str:
    """« Code PyTorch exécuté le 21/11/2026 à 10:00 UTC sur … — PyTorch 2.13.0, Python
    3.11.7, 4,2 s pour 12 cellules. » ("" for a notebook that ran no code)."""
    if not provenance.get("cell_seconds"):
        return ""
    name = display_name(tab)
    date = datetime.datetime.fromisoformat(provenance["date"]).strftime("%d/%m/%Y à %H:%M UTC")
    seconds = f"{provenance['total_seconds']:.1f}".replace(".", ",")
    return (f"Code {name} exécuté le {date} {_devices(provenance)} — "
            f"{name} {provenance.get('framework_version', '?')}, "
            f"Python {provenance.get('python', '?')}, {seconds} s pour "
            f"{len(provenance['cell_seconds'])} cellules.")
