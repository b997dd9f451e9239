"""Draw the GPU comparison figures of the chapter « Choisir son matériel » from gpus.csv.

    python3 img/gpu_figures.py [OUT_DIR]      # default: the folder of this script
    python3 img/gpu_figures.py --facts        # print the numbers the text quotes

Reads `gpus.csv` (one row per GPU, launch specifications) and writes two SVG
scatter plots on log-log axes:

* `gpu-compute-price.svg`: peak FP32 throughput against launch price;
* `gpu-compute-power.svg`: peak FP32 throughput against board power.

Standard library only, and deterministic: the same CSV always gives the same
bytes (tests/test_gpu_figures.py checks that the committed SVGs are up to date).
The functions that load the data and compute the ratios quoted in the text are
imported by that test.
"""
from __future__ import annotations

import csv
import math
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

HERE = Path(__file__).resolve().parent
CSV_PATH = HERE / "gpus.csv"
PRICE_SVG = "gpu-compute-price.svg"
POWER_SVG = "gpu-compute-power.svg"

COLUMNS = ["model", "vendor", "segment", "year", "launch_price_usd", "price_kind",
           "fp32_tflops", "power_w", "memory_gb", "bandwidth_gbs", "source"]
SEGMENTS = ("consumer", "workstation", "datacenter")
PRICE_KINDS = ("msrp", "indicative")


@dataclass(frozen=True)
class Gpu:
    model: str
    vendor: str
    segment: str                 # "consumer", "workstation" or "datacenter"
    year: int                    # launch year
    price_usd: Optional[float]   # launch price in US dollars, None when no reliable price
    price_kind: str              # "msrp" (maker's launch price), "indicative", "" (no price)
    fp32_tflops: float           # peak FP32 (non-tensor) throughput at boost clock
    power_w: float               # board power (TDP / TBP / TGP) announced by the maker
    memory_gb: float
    bandwidth_gbs: float         # peak memory bandwidth, GB/s
    source: str


def load(path: Path = CSV_PATH) -> list[Gpu]:
    """Read the CSV into typed rows (in file order); raise ValueError on a malformed row."""
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        if reader.fieldnames != COLUMNS:
            raise ValueError(f"{path}: columns must be {','.join(COLUMNS)}")
        gpus = []
        for line, row in enumerate(reader, start=2):
            try:
                price = row["launch_price_usd"].strip()
                gpus.append(Gpu(
                    model=row["model"].strip(), vendor=row["vendor"].strip(),
                    segment=row["segment"].strip(), year=int(row["year"]),
                    price_usd=float(price) if price else None,
                    price_kind=row["price_kind"].strip(),
                    fp32_tflops=float(row["fp32_tflops"]), power_w=float(row["power_w"]),
                    memory_gb=float(row["memory_gb"]),
                    bandwidth_gbs=float(row["bandwidth_gbs"]), source=row["source"].strip()))
            except (TypeError, ValueError) as err:
                raise ValueError(f"{path}:{line}: {err}") from None
    return gpus


# ---------------------------------------------------------------------------
# Ratios and the numbers quoted in the text

def gflops_per_dollar(gpu: Gpu) -> float:
    return 1000 * gpu.fp32_tflops / gpu.price_usd


def gflops_per_watt(gpu: Gpu) -> float:
    return 1000 * gpu.fp32_tflops / gpu.power_w


def by_model(gpus: list[Gpu]) -> dict[str, Gpu]:
    return {gpu.model: gpu for gpu in gpus}


def facts(gpus: list[Gpu]) -> dict[str, float]:
    """The figures' key numbers, unrounded; the text quotes them rounded."""
    m = by_model(gpus)
    priced_dc = [g for g in gpus if g.segment == "datacenter" and g.price_usd]
    consumer = [g for g in gpus if g.segment == "consumer"]
    newest = max(g.year for g in consumer)
    consumer_new = [g for g in consumer if g.year == newest]
    geforce = [g for g in consumer if g.vendor == "NVIDIA"]
    geforce_old = [g for g in geforce if g.year <= 2015]
    geforce_new = [g for g in geforce if g.year == newest]
    old = [g for g in consumer if g.year <= 2015]
    return {
        "newest_consumer_year": newest,
        "datacenter_gflops_per_dollar_min": min(map(gflops_per_dollar, priced_dc)),
        "datacenter_gflops_per_dollar_max": max(map(gflops_per_dollar, priced_dc)),
        "newest_consumer_gflops_per_dollar_min": min(map(gflops_per_dollar, consumer_new)),
        "newest_consumer_gflops_per_dollar_max": max(map(gflops_per_dollar, consumer_new)),
        "rtx5090_gflops_per_dollar": gflops_per_dollar(m["RTX 5090"]),
        "h100_gflops_per_dollar": gflops_per_dollar(m["H100 PCIe"]),
        "rtx5090_over_h100_per_dollar": gflops_per_dollar(m["RTX 5090"])
        / gflops_per_dollar(m["H100 PCIe"]),
        "geforce_2015_best_gflops_per_dollar": max(map(gflops_per_dollar, geforce_old)),
        "geforce_newest_best_gflops_per_dollar": max(map(gflops_per_dollar, geforce_new)),
        "geforce_best_per_dollar_growth": max(map(gflops_per_dollar, geforce_new))
        / max(map(gflops_per_dollar, geforce_old)),
        "consumer_2015_median_gflops_per_watt": statistics.median(map(gflops_per_watt, old)),
        "consumer_newest_median_gflops_per_watt":
            statistics.median(map(gflops_per_watt, consumer_new)),
        "consumer_per_watt_growth": statistics.median(map(gflops_per_watt, consumer_new))
        / statistics.median(map(gflops_per_watt, old)),
        "best_gflops_per_watt": max(map(gflops_per_watt, gpus)),
        "best_gflops_per_watt_model": max(gpus, key=gflops_per_watt).model,
        "consumer_max_power_2015": max(g.power_w for g in old),
        "consumer_max_power_newest": max(g.power_w for g in consumer_new),
        "fp32_growth_980ti_to_5090": m["RTX 5090"].fp32_tflops / m["GTX 980 Ti"].fp32_tflops,
        "bandwidth_growth_980ti_to_5090":
            m["RTX 5090"].bandwidth_gbs / m["GTX 980 Ti"].bandwidth_gbs,
        "flop_per_byte_980ti": 1000 * m["GTX 980 Ti"].fp32_tflops / m["GTX 980 Ti"].bandwidth_gbs,
        "flop_per_byte_5090": 1000 * m["RTX 5090"].fp32_tflops / m["RTX 5090"].bandwidth_gbs,
        "consumer_gflops_per_dollar_min": min(map(gflops_per_dollar, consumer)),
        "consumer_gflops_per_dollar_max": max(map(gflops_per_dollar, consumer)),
        "consumer_2015_gflops_per_watt_min": min(map(gflops_per_watt, old)),
        "consumer_2015_gflops_per_watt_max": max(map(gflops_per_watt, old)),
        "consumer_newest_gflops_per_watt_min": min(map(gflops_per_watt, consumer_new)),
        "consumer_newest_gflops_per_watt_max": max(map(gflops_per_watt, consumer_new)),
        "consumer_max_memory_gb": max(g.memory_gb for g in consumer),
        "datacenter_max_memory_gb": max(g.memory_gb for g in gpus if g.segment == "datacenter"),
    }


# ---------------------------------------------------------------------------
# SVG drawing

WIDTH, HEIGHT = 900, 640
LEFT, RIGHT, TOP, BOTTOM = 78, 24, 58, 66          # margins around the plot area
FONT = "Arial, Helvetica, 'Liberation Sans', 'DejaVu Sans', sans-serif"
LABEL_SIZE = 11
COLORS = {"consumer": "#0868ac", "workstation": "#6a3d9a", "datacenter": "#c2410c"}
NAMES = {"consumer": "Cartes grand public",
         "workstation": "Cartes pour station de travail",
         "datacenter": "Cartes pour centre de données"}
PRICE_NAMES = {"consumer": "Cartes grand public (prix de lancement)",
               "workstation": "Cartes pour station de travail (prix indicatif)",
               "datacenter": "Cartes pour centre de données (prix indicatif)"}
NNBSP = "\u202f"   # French thousands separator

# Arial advance widths (per 1000 em) for estimating label sizes.
_WIDTHS = {" ": 278, "-": 333, ".": 278, ",": 278, "/": 278, "(": 333, ")": 333, "$": 556,
           "I": 278, "J": 500, "M": 833, "W": 944, "C": 722, "D": 722, "G": 778, "H": 722,
           "N": 722, "O": 778, "Q": 778, "R": 722, "U": 722, "F": 611, "T": 611, "Z": 611,
           "L": 556, "f": 278, "i": 222, "j": 222, "l": 222, "t": 278, "r": 333, "m": 833,
           "w": 722, "c": 500, "k": 500, "s": 500, "v": 500, "x": 500, "y": 500, "z": 500,
           NNBSP: 200}


def text_width(text: str, size: float) -> float:
    """Estimated rendered width, a little generous (fallback fonts are wider than Arial)."""
    units = 0
    for ch in text:
        if ch in _WIDTHS:
            units += _WIDTHS[ch]
        elif ch.isdigit() or ch.islower():
            units += 556
        else:
            units += 667
    return 1.08 * units * size / 1000


def fmt(value: float) -> str:
    """Coordinates with one decimal, no trailing '.0' (stable across platforms)."""
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def thousands(value: float) -> str:
    """1000 -> '1 000' with a narrow no-break space, as French writes numbers."""
    return f"{value:,.0f}".replace(",", NNBSP)


class LogAxis:
    def __init__(self, lo: float, hi: float, start: float, end: float):
        self.lo, self.hi, self.start, self.end = lo, hi, start, end

    def __call__(self, value: float) -> float:
        t = (math.log10(value) - math.log10(self.lo)) / (math.log10(self.hi) - math.log10(self.lo))
        return self.start + t * (self.end - self.start)


@dataclass(frozen=True)
class Box:
    x0: float
    y0: float
    x1: float
    y1: float

    def overlaps(self, other: "Box", pad: float = 1.0) -> bool:
        return not (self.x1 + pad <= other.x0 or other.x1 + pad <= self.x0
                    or self.y1 + pad <= other.y0 or other.y1 + pad <= self.y0)

    def inside(self, outer: "Box") -> bool:
        return (self.x0 >= outer.x0 and self.x1 <= outer.x1
                and self.y0 >= outer.y0 and self.y1 <= outer.y1)


@dataclass(frozen=True)
class Label:
    text: str
    x: float              # text anchor point (start of the baseline)
    y: float
    box: Box
    leader: Optional[tuple[float, float, float, float]]   # line from the point, if far


def label_box(text: str, x: float, y: float) -> Box:
    """Box of a text drawn with its baseline start at (x, y)."""
    return Box(x, y - 0.78 * LABEL_SIZE, x + text_width(text, LABEL_SIZE), y + 0.22 * LABEL_SIZE)


def place_labels(points: list[tuple[str, float, float]], obstacles: list[Box],
                 area: Box, marker: float = 5.0) -> list[Label]:
    """Greedy placement of one label per point: the first free position among
    candidates at growing distances; a leader line joins far labels to their point.
    Points are handled from the most crowded to the least (deterministic order)."""
    marks = [Box(x - marker, y - marker, x + marker, y + marker) for _, x, y in points]
    taken = list(obstacles) + marks

    def crowding(i: int) -> tuple[int, str]:
        _, x, y = points[i]
        near = sum(1 for _, u, v in points if (u - x) ** 2 + (v - y) ** 2 < 60 ** 2)
        return (-near, points[i][0])

    labels: dict[int, Label] = {}
    for i in sorted(range(len(points)), key=crowding):
        text, x, y = points[i]
        w = text_width(text, LABEL_SIZE)
        h = LABEL_SIZE
        best = None
        for distance in (7, 14, 22, 32, 44, 58):
            # (dx, dy) of the box centre relative to the point, in units of `distance`.
            for ux, uy in ((1, 0), (-1, 0), (0, -1), (0, 1), (1, -1), (1, 1), (-1, -1), (-1, 1)):
                cx = x + ux * (distance + w / 2) if ux else x
                cy = y + uy * (distance + h / 2) if uy else y
                bx, by = cx - w / 2, cy + 0.28 * h
                box = label_box(text, bx, by)
                if box.inside(area) and not any(box.overlaps(t) for t in taken):
                    best = (bx, by, box, distance)
                    break
            if best:
                break
        if best is None:   # nothing free: keep the right-hand side, overlap and all
            bx, by = x + 7, y + 0.28 * h
            best = (bx, by, label_box(text, bx, by), 7)
        bx, by, box, _ = best
        # A leader line from the point to the nearest point of a label that is not
        # right next to it.
        nx = min(max(x, box.x0), box.x1)
        ny = min(max(y, box.y0), box.y1)
        leader = (x, y, nx, ny) if math.hypot(nx - x, ny - y) > 9 else None
        labels[i] = Label(text, bx, by, box, leader)
        taken.append(box)
    return [labels[i] for i in range(len(points))]


def ticks(lo: float, hi: float) -> list[float]:
    """1-2-5 ticks between lo and hi."""
    values = []
    for exponent in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1):
        for mantissa in (1, 2, 5):
            value = mantissa * 10 ** exponent
            if lo <= value <= hi:
                values.append(value)
    return values


def tick_text(value: float, unit: str = "") -> str:
    text = thousands(value) if value >= 1 else f"{value:g}".replace(".", ",")
    return text + unit


def scatter_svg(gpus: list[Gpu], *, x_of: Callable[[Gpu], float], x_lo: float, x_hi: float,
                x_title: str, x_unit: str, iso: list[float], iso_unit: str, title: str,
                description: str, note: str, names: dict[str, str] = NAMES) -> str:
    """A log-log scatter plot of FP32 throughput against x_of(gpu), as SVG text."""
    y_lo, y_hi = 1.0, 300.0
    area = Box(LEFT, TOP, WIDTH - RIGHT, HEIGHT - BOTTOM)
    X = LogAxis(x_lo, x_hi, area.x0, area.x1)
    Y = LogAxis(y_lo, y_hi, area.y1, area.y0)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-labelledby="title desc">',
        f'  <title id="title">{esc(title)}</title>',
        f'  <desc id="desc">{esc(description)}</desc>',
        "  <style>",
        f"    text {{ font-family: {FONT}; fill: #1a1a1a; }}",
        f"    .label {{ font-size: {LABEL_SIZE}px; }}",
        "    .tick { font-size: 12px; fill: #333333; }",
        "    .axis-title { font-size: 14px; }",
        "    .title { font-size: 16px; font-weight: bold; }",
        "    .iso { font-size: 11px; fill: #6b6b6b; font-style: italic; }",
        "    .note { font-size: 11px; fill: #444444; }",
        "  </style>",
        f'  <rect x="0" y="0" width="{WIDTH}" height="{HEIGHT}" fill="#ffffff"/>',
        f'  <text class="title" x="{LEFT}" y="26">{esc(title)}</text>',
    ]
    # Grid and ticks.
    out.append('  <g stroke="#e3e3e3" stroke-width="1">')
    for value in ticks(x_lo, x_hi):
        out.append(f'    <line x1="{fmt(X(value))}" y1="{fmt(area.y0)}" x2="{fmt(X(value))}" '
                   f'y2="{fmt(area.y1)}"/>')
    for value in ticks(y_lo, y_hi):
        out.append(f'    <line x1="{fmt(area.x0)}" y1="{fmt(Y(value))}" x2="{fmt(area.x1)}" '
                   f'y2="{fmt(Y(value))}"/>')
    out.append("  </g>")
    for value in ticks(x_lo, x_hi):
        out.append(f'  <text class="tick" x="{fmt(X(value))}" y="{fmt(area.y1 + 18)}" '
                   f'text-anchor="middle">{esc(tick_text(value, x_unit))}</text>')
    for value in ticks(y_lo, y_hi):
        out.append(f'  <text class="tick" x="{fmt(area.x0 - 8)}" y="{fmt(Y(value) + 4)}" '
                   f'text-anchor="end">{esc(tick_text(value))}</text>')
    out.append(f'  <text class="axis-title" x="{fmt((area.x0 + area.x1) / 2)}" '
               f'y="{fmt(HEIGHT - 24)}" text-anchor="middle">{esc(x_title)}</text>')
    cy = (area.y0 + area.y1) / 2
    out.append(f'  <text class="axis-title" x="20" y="{fmt(cy)}" text-anchor="middle" '
               f'transform="rotate(-90 20 {fmt(cy)})">'
               f'Calcul FP32 crête (TFLOPS, échelle logarithmique)</text>')

    shown = [g for g in gpus if x_lo <= x_of(g) <= x_hi and y_lo <= g.fp32_tflops <= y_hi]
    points = [(g.model, X(x_of(g)), Y(g.fp32_tflops)) for g in shown]
    marks = [Box(x - 6, y - 6, x + 6, y + 6) for _, x, y in points]
    obstacles: list[Box] = []
    # Iso-efficiency lines: fp32 (TFLOPS) = k * x / 1000 for k in GFLOPS per x unit.
    out.append('  <g stroke="#9a9a9a" stroke-width="1" stroke-dasharray="5 4" fill="none">')
    iso_labels = []
    for k in iso:
        # Clip the line y = k x / 1000 to the plot rectangle (a straight line in log-log).
        x_start = max(x_lo, 1000 * y_lo / k)
        x_end = min(x_hi, 1000 * y_hi / k)
        if x_start >= x_end:
            continue
        x0, y0 = X(x_start), Y(k * x_start / 1000)
        x1, y1 = X(x_end), Y(k * x_end / 1000)
        out.append(f'    <line x1="{fmt(x0)}" y1="{fmt(y0)}" x2="{fmt(x1)}" y2="{fmt(y1)}"/>')
        text = f"{thousands(k)} {iso_unit}"
        w = text_width(text, 11)
        # Label above the line near its upper end, slid down the line until it fits.
        angle = math.degrees(math.atan2(y1 - y0, x1 - x0))
        length = math.hypot(x1 - x0, y1 - y0)
        ux, uy = (x1 - x0) / length, (y1 - y0) / length     # along the line
        px, py = uy, -ux                                      # normal, pointing up
        inner = Box(area.x0 + 4, area.y0 + 4, area.x1 - 4, area.y1 - 4)
        for back in range(12, int(length - w), 6):
            sx, sy = x1 - (back + w) * ux + 4 * px, y1 - (back + w) * uy + 4 * py
            ex, ey = sx + w * ux, sy + w * uy
            corners = [(sx, sy), (ex, ey), (sx + 11 * px, sy + 11 * py),
                       (ex + 11 * px, ey + 11 * py)]
            box = Box(min(c[0] for c in corners), min(c[1] for c in corners),
                      max(c[0] for c in corners), max(c[1] for c in corners))
            if box.inside(inner) and not any(box.overlaps(m) for m in marks):
                break
        iso_labels.append(f'  <text class="iso" x="{fmt(sx)}" y="{fmt(sy)}" '
                          f'transform="rotate({fmt(angle)} {fmt(sx)} {fmt(sy)})">{esc(text)}</text>')
        obstacles.append(box)
    out.append("  </g>")
    out.extend(iso_labels)

    # Legend (top left, where no GPU lies: cheap or frugal yet fast).
    lx, ly = area.x0 + 14, area.y0 + 14
    legend_w = 14 + 18 + max(text_width(names[s], 12) for s in SEGMENTS) + 14
    legend_h = 18 * len(SEGMENTS) + 16
    obstacles.append(Box(lx, ly, lx + legend_w, ly + legend_h))
    out.append(f'  <rect x="{fmt(lx)}" y="{fmt(ly)}" width="{fmt(legend_w)}" '
               f'height="{fmt(legend_h)}" fill="#ffffff" stroke="#bdbdbd" rx="4"/>')
    for row, segment in enumerate(SEGMENTS):
        mx, my = lx + 18, ly + 16 + 18 * row
        out.append("  " + marker_svg(segment, mx, my))
        out.append(f'  <text x="{fmt(mx + 14)}" y="{fmt(my + 4)}" font-size="12">'
                   f'{esc(names[segment])}</text>')

    # Points and labels.
    labels = place_labels(points, obstacles, area)
    out.append('  <g stroke="#8c8c8c" stroke-width="0.8">')
    for label in labels:
        if label.leader:
            x0, y0, x1, y1 = label.leader
            out.append(f'    <line x1="{fmt(x0)}" y1="{fmt(y0)}" x2="{fmt(x1)}" y2="{fmt(y1)}"/>')
    out.append("  </g>")
    for gpu, (_, x, y) in zip(shown, points):
        out.append("  " + marker_svg(gpu.segment, x, y))
    for label in labels:
        out.append(f'  <text class="label" x="{fmt(label.x)}" y="{fmt(label.y)}">'
                   f'{esc(label.text)}</text>')
    out.append(f'  <rect x="{fmt(area.x0)}" y="{fmt(area.y0)}" width="{fmt(area.x1 - area.x0)}" '
               f'height="{fmt(area.y1 - area.y0)}" fill="none" stroke="#555555"/>')
    out.append(f'  <text class="note" x="{WIDTH - RIGHT}" y="{HEIGHT - 6}" '
               f'text-anchor="end">{esc(note)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def marker_svg(segment: str, x: float, y: float) -> str:
    color = COLORS[segment]
    if segment == "consumer":
        return (f'<circle cx="{fmt(x)}" cy="{fmt(y)}" r="4.5" fill="{color}" '
                f'stroke="#ffffff" stroke-width="1"/>')
    if segment == "workstation":
        return (f'<polygon points="{fmt(x)},{fmt(y - 6)} {fmt(x + 6)},{fmt(y)} {fmt(x)},{fmt(y + 6)} '
                f'{fmt(x - 6)},{fmt(y)}" fill="{color}" stroke="#ffffff" stroke-width="1"/>')
    return (f'<rect x="{fmt(x - 4.5)}" y="{fmt(y - 4.5)}" width="9" height="9" fill="{color}" '
            f'stroke="#ffffff" stroke-width="1"/>')


SOURCE_NOTE = ("Données : img/gpus.csv (fiches des constructeurs, TechPowerUp GPU Database, "
               "estimations de presse pour les prix indicatifs).")


def price_figure(gpus: list[Gpu]) -> str:
    f = facts(gpus)
    priced = [g for g in gpus if g.price_usd]
    return scatter_svg(
        priced, x_of=lambda g: g.price_usd, x_lo=100, x_hi=50000,
        x_title="Prix de lancement (dollars US, échelle logarithmique)", x_unit=" $",
        iso=[1, 3, 10, 30, 100], iso_unit="GFLOPS/$",
        title="Calcul FP32 crête et prix de lancement",
        description=(
            "Nuage de points en échelles logarithmiques : chaque GPU est placé selon son prix "
            "de lancement en dollars et son calcul FP32 crête en TFLOPS ; des droites en "
            "tirets marquent 1, 3, 10, 30 et 100 GFLOPS par dollar. Les cartes grand public "
            f"(ronds bleus) vont de {f['consumer_gflops_per_dollar_min']:.0f} à "
            f"{f['consumer_gflops_per_dollar_max']:.0f} GFLOPS par dollar, les générations récentes "
            "plus haut ; les cartes pour centre de données (carrés orange, "
            f"prix indicatifs) vont de {f['datacenter_gflops_per_dollar_min']:.0f} à "
            f"{f['datacenter_gflops_per_dollar_max']:.0f} GFLOPS par dollar."
            + "".join(f" La {g.model}, carte pour station de travail (losange violet, prix "
                      f"indicatif), en donne {gflops_per_dollar(g):.0f}."
                      for g in priced if g.segment == "workstation")),
        note=SOURCE_NOTE, names=PRICE_NAMES)


def power_figure(gpus: list[Gpu]) -> str:
    f = facts(gpus)
    return scatter_svg(
        gpus, x_of=lambda g: g.power_w, x_lo=50, x_hi=1000,
        x_title="Puissance de la carte annoncée (watts, échelle logarithmique)", x_unit=" W",
        iso=[10, 30, 100, 300], iso_unit="GFLOPS/W",
        title="Calcul FP32 crête et puissance électrique",
        description=(
            "Nuage de points en échelles logarithmiques : chaque GPU est placé selon la "
            "puissance annoncée de la carte en watts et son calcul FP32 crête en TFLOPS ; des "
            "droites en tirets marquent 10, 30, 100 et 300 GFLOPS par watt. Les cartes grand "
            f"public de 2014-2015 donnent de {f['consumer_2015_gflops_per_watt_min']:.0f} à "
            f"{f['consumer_2015_gflops_per_watt_max']:.0f} GFLOPS par watt, celles de "
            f"{f['newest_consumer_year']} de {f['consumer_newest_gflops_per_watt_min']:.0f} à "
            f"{f['consumer_newest_gflops_per_watt_max']:.0f} ; la "
            f"{f['best_gflops_per_watt_model']} atteint {f['best_gflops_per_watt']:.0f} "
            "GFLOPS par watt."
            + "".join(f" La {g.model}, carte pour station de travail (losange violet), en "
                      f"donne {gflops_per_watt(g):.0f}."
                      for g in gpus if g.segment == "workstation")),
        note=SOURCE_NOTE)


def write_figures(out_dir: Path, csv_path: Path = CSV_PATH) -> list[Path]:
    gpus = load(csv_path)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, draw in ((PRICE_SVG, price_figure), (POWER_SVG, power_figure)):
        path = out_dir / name
        path.write_bytes(draw(gpus).encode("utf-8"))
        written.append(path)
    return written


def main(argv: list[str]) -> int:
    if argv[:1] == ["--facts"]:
        for key, value in facts(load()).items():
            print(f"{key}: {value:.3f}" if isinstance(value, float) else f"{key}: {value}")
        return 0
    out_dir = Path(argv[0]) if argv else HERE
    for path in write_figures(out_dir):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
