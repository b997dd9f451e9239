"""The GPU figures of chapter « Choisir son matériel » stay true to their data.

* `img/gpu_figures.py` regenerates the committed SVGs byte for byte from
  `img/gpus.csv` (so editing the data without redrawing fails here);
* the CSV is well formed (types, positive values, a source per row, no duplicate);
* every number the text draws from the data is what the data gives, rounded as
  the text rounds it.
"""
from __future__ import annotations

import ast
import csv
import importlib.util
import re
import subprocess
import sys

import pytest

from conftest import REPO

IMG = REPO / "img"
SCRIPT = IMG / "gpu_figures.py"
DATA = IMG / "gpus.csv"
FIGURES = ["gpu-compute-price.svg", "gpu-compute-power.svg"]
SECTIONS = [REPO / "chapters" / "chapter_hardware" / name for name in ("choose-gpu.md", "servers.md")]


@pytest.fixture(scope="module")
def figures():
    """The script, imported from img/ as a module."""
    spec = importlib.util.spec_from_file_location("gpu_figures", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module   # dataclasses look their module up there
    spec.loader.exec_module(module)
    yield module
    del sys.modules[spec.name]


@pytest.fixture(scope="module")
def gpus(figures):
    return figures.load(DATA)


# ---------------------------------------------------------------------------
# (a) The committed figures are what the script draws from the committed data

def test_script_reproduces_the_committed_figures(tmp_path):
    subprocess.run([sys.executable, str(SCRIPT), str(tmp_path)], check=True,
                   capture_output=True, text=True)
    for name in FIGURES:
        assert (tmp_path / name).read_bytes() == (IMG / name).read_bytes(), (
            f"img/{name} is out of date: run `python3 img/gpu_figures.py` and commit the SVGs")


def test_script_uses_the_standard_library_only():
    tree = ast.parse(SCRIPT.read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            imported.add(node.module.split(".")[0])
    assert imported <= set(sys.stdlib_module_names) | {"__future__"}, imported


def test_figures_are_readable_anywhere_and_labelled(figures, gpus):
    for name in FIGURES:
        svg = (IMG / name).read_text(encoding="utf-8")
        assert re.search(r'<rect x="0" y="0" width="\d+" height="\d+" fill="#ffffff"/>', svg), \
            f"{name}: white background missing (dark themes)"
        assert "<title" in svg and "<desc" in svg
        labels = re.findall(r'<text class="label" x="([\d.-]+)" y="([\d.-]+)">([^<]+)</text>', svg)
        shown = [g for g in gpus if g.price_usd] if "price" in name else gpus
        assert sorted(text for _, _, text in labels) == sorted(g.model for g in shown)
        boxes = [(text, figures.label_box(text, float(x), float(y))) for x, y, text in labels]
        overlapping = [(a, b) for i, (a, box_a) in enumerate(boxes)
                       for b, box_b in boxes[i + 1:] if box_a.overlaps(box_b, pad=0)]
        assert not overlapping, f"{name}: overlapping labels {overlapping}"


# ---------------------------------------------------------------------------
# (b) The data file is well formed

def test_csv_is_well_formed(figures):
    with open(DATA, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert rows and list(rows[0]) == figures.COLUMNS
    models = [row["model"] for row in rows]
    assert len(models) == len(set(models)), "duplicate model"
    for row in rows:
        where = row["model"] or rows.index(row)
        assert all(value == value.strip() for value in row.values()), where
        assert row["model"] and row["vendor"] in ("NVIDIA", "AMD"), where
        assert row["segment"] in figures.SEGMENTS, where
        assert 2010 <= int(row["year"]) <= 2026, where
        for column in ("fp32_tflops", "power_w", "memory_gb", "bandwidth_gbs"):
            assert float(row[column]) > 0, (where, column)
        assert len(row["source"]) > 10, f"{where}: no source"
        if row["launch_price_usd"]:
            assert float(row["launch_price_usd"]) > 0, where
            expected = "msrp" if row["segment"] == "consumer" else "indicative"
            assert row["price_kind"] == expected, (where, "price_kind")
        else:
            assert row["segment"] == "datacenter" and not row["price_kind"], \
                f"{where}: only data-centre cards may lack a price"
    # The loader agrees with the raw file.
    assert [g.model for g in figures.load(DATA)] == models


# ---------------------------------------------------------------------------
# (c) What the text says about the data is true

def fr(value: float, decimals: int = 0) -> str:
    """A number as the text writes it: 1 999, 4,8 (a space, normalised, for thousands)."""
    text = f"{value:,.{decimals}f}".replace(",", " ").replace(".", ",")
    return text[:-2] if decimals == 1 and text.endswith(",0") else text


def prose() -> str:
    """The two sections as one line of text, whatever the line breaks and spaces."""
    text = " ".join(path.read_text(encoding="utf-8") for path in SECTIONS)
    return re.sub(r"\s+", " ", text.replace("\u00a0", " ").replace("\u202f", " "))


def claims(figures, gpus) -> list[str]:
    f = figures.facts(gpus)
    m = figures.by_model(gpus)
    newest = f["newest_consumer_year"]
    return [
        # Memory bandwidth
        f"{fr(m['H100 PCIe'].bandwidth_gbs / 1000, 1)} To/s pour une H100 PCIe, "
        f"{fr(m['H200 SXM'].bandwidth_gbs / 1000, 1)} To/s pour une H200, "
        f"{fr(m['MI300X'].bandwidth_gbs / 1000, 1)} To/s pour l'accélérateur MI300X",
        f"{fr(m['RTX 4090'].bandwidth_gbs / 1000, 1)} To/s pour une RTX 4090, "
        f"{fr(m['RTX 5090'].bandwidth_gbs / 1000, 1)} To/s pour une RTX 5090",
        f"le calcul FP32 crête a été multiplié par {fr(f['fp32_growth_980ti_to_5090'])} et la "
        f"bande passante par {fr(f['bandwidth_growth_980ti_to_5090'])} seulement",
        f"environ {fr(f['flop_per_byte_5090'])} opérations par octet lu en mémoire, contre "
        f"{fr(f['flop_per_byte_980ti'])} pour la GeForce 980 Ti",
        f"une RTX 4090 dépasse une H100 SXM en FP32 ordinaire ({fr(m['RTX 4090'].fp32_tflops)} "
        f"TFLOPS contre {fr(m['H200 SXM'].fp32_tflops)})",   # H200 SXM: the H100 SXM's chip
        # Figure 1: compute and price
        f"la Titan RTX et ses {fr(m['Titan RTX'].memory_gb)} Go à "
        f"{fr(m['Titan RTX'].price_usd)} dollars",
        f"La meilleure GeForce de 2014-2015 offrait "
        f"{fr(f['geforce_2015_best_gflops_per_dollar'])} GFLOPS par dollar à son lancement, la "
        f"meilleure de {newest} en offre {fr(f['geforce_newest_best_gflops_per_dollar'])}, "
        f"près de {fr(f['geforce_best_per_dollar_growth'])} fois plus",
        f"Les cartes de centre de données fournissent de "
        f"{fr(f['datacenter_gflops_per_dollar_min'])} à "
        f"{fr(f['datacenter_gflops_per_dollar_max'])} GFLOPS FP32 par dollar, contre "
        f"{fr(f['newest_consumer_gflops_per_dollar_min'])} à "
        f"{fr(f['newest_consumer_gflops_per_dollar_max'])} pour les cartes grand public de "
        f"{newest}",
        f"une RTX 5090 donne environ {fr(f['rtx5090_over_h100_per_dollar'])} fois plus de "
        f"calcul FP32 par dollar qu'une H100 PCIe",
        f"La RTX PRO 6000 se place entre les deux familles : environ "
        f"{fr(figures.gflops_per_dollar(m['RTX PRO 6000 Blackwell']))} GFLOPS par dollar",
        # Figure 2: compute and power
        f"la carte grand public médiane de 2014-2015 fournissait "
        f"{fr(f['consumer_2015_median_gflops_per_watt'])} GFLOPS par watt, celle de {newest} en "
        f"fournit {fr(f['consumer_newest_median_gflops_per_watt'])}, près de "
        f"{fr(f['consumer_per_watt_growth'])} fois plus",
        f"{fr(f['consumer_max_power_2015'])} W pour les plus gourmandes de 2014-2015, "
        f"{fr(f['consumer_max_power_newest'])} W pour la RTX 5090",
        f"la {f['best_gflops_per_watt_model']} : {fr(f['best_gflops_per_watt'])} GFLOPS par watt "
        f"dans une enveloppe de {fr(m[f['best_gflops_per_watt_model']].power_w)} W",
        f"| Mémoire | 8 à 32 Go de GDDR | "
        f"{fr(min(g.memory_gb for g in gpus if g.segment == 'datacenter'))} à "
        f"{fr(f['datacenter_max_memory_gb'])} Go dans nos données",
        f"{fr(f['consumer_max_memory_gb'])} Go au plus pour les cartes grand public du tableau, "
        f"jusqu'à {fr(f['datacenter_max_memory_gb'])} Go pour la MI300X",
        # What to buy: launch prices and powers quoted in the tables
        f"RTX 5060 Ti 16 Go ({fr(m['RTX 5060 Ti 16GB'].price_usd)} dollars)",
        f"RTX 5070 Ti ({fr(m['RTX 5070 Ti'].price_usd)} dollars), "
        f"RTX 5080 ({fr(m['RTX 5080'].price_usd)} dollars)",
        f"RTX 5090 ({fr(m['RTX 5090'].price_usd)} dollars) | {fr(m['RTX 5090'].memory_gb)} Go | "
        f"{fr(m['RTX 5090'].power_w)} W",
        f"Une RTX 5090 ({fr(m['RTX 5090'].power_w)} W)",
        f"Deux RTX 5090 demandent à elles seules {fr(2 * m['RTX 5090'].power_w)} W",
    ]


def test_the_text_quotes_the_data_correctly(figures, gpus):
    text = prose()
    missing = [claim for claim in claims(figures, gpus) if claim not in text]
    assert not missing, ("the text no longer matches img/gpus.csv; it should say:\n"
                         + "\n".join(missing))


def test_qualitative_claims_hold(figures, gpus):
    f = figures.facts(gpus)
    # "la carte la plus efficace du tableau est une carte de centre de données"
    best = figures.by_model(gpus)[f["best_gflops_per_watt_model"]]
    assert best.segment == "datacenter"
    # "La génération RTX 20 ... son calcul FP32 par dollar a à peine progressé"
    best_of = {prefix: max(figures.gflops_per_dollar(g) for g in gpus
                           if g.model.startswith(prefix) and g.price_usd)
               for prefix in ("GTX 10", "RTX 20")}
    assert 0.9 <= best_of["RTX 20"] / best_of["GTX 10"] <= 1.15
    # "Chaque génération s'élève au-dessus de la précédente" (best FP32 per dollar),
    # the RTX 20 generation aside.
    series = ["GTX 9", "GTX 10", "RTX 30", "RTX 40", "RTX 50"]
    best = [max(figures.gflops_per_dollar(g) for g in gpus if g.model.startswith(s))
            for s in series]
    assert best == sorted(best)
    # "Les Titan font exception" : the worst FP32 per dollar of their generation.
    for titan, prefix in (("GTX Titan X", "GTX 9"), ("Titan Xp", "GTX 10"),
                          ("Titan RTX", "RTX 20")):
        generation = [g for g in gpus if g.model.startswith(prefix) or g.model == titan]
        assert min(generation, key=figures.gflops_per_dollar).model == titan
    # "cartes de centre de données ... pas de prix" : two of them, from 2017 and 2018.
    unpriced = sorted(g.year for g in gpus if g.price_usd is None)
    assert unpriced == [2017, 2018]
