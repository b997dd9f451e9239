"""The provenance line under a page's outputs: where they were computed, and, on a page
whose tabs ran on different machines, which tabs' outputs came from a GPU."""
from tabbook.core.language import Language
from tabbook.execution.provenance import describe, gpu_tabs

FRENCH = Language("fr", "fr")
H100 = {"name": "NVIDIA H100 80GB HBM3", "memory_mib": 81559, "driver": "580.159.04",
        "cuda": "13.0"}


def executed(devices, version):
    return {"metadata": {"tabbook": {"provenance": {
        "date": "2026-11-27T02:57:00+00:00", "devices": devices,
        "framework_version": version, "python": "3.12.3", "total_seconds": 36.0,
        "cell_seconds": [12.0, 24.0]}}}}


PAGE = {"pytorch": executed([H100], "2.11.0"), "mxnet": executed("CPU", "1.9.1"),
        "tensorflow": executed("CPU", "2.21.0")}


def test_the_tabs_whose_outputs_come_from_a_gpu_in_the_page_order():
    assert gpu_tabs(PAGE) == ["pytorch"]
    assert gpu_tabs({"mxnet": PAGE["mxnet"], "tensorflow": None}) == []


def test_a_cpu_tab_names_the_tabs_computed_on_a_gpu_and_a_gpu_tab_does_not():
    on_gpus = gpu_tabs(PAGE)
    mxnet = describe("mxnet", PAGE["mxnet"], FRENCH, on_gpus)
    assert "sur le processeur (aucun GPU)" in mxnet
    assert mxnet.endswith("Les sorties PyTorch de cette section viennent, elles, d'un GPU : "
                          "comparez les durées en connaissance de cause.")
    pytorch = describe("pytorch", PAGE["pytorch"], FRENCH, on_gpus)
    assert "sur NVIDIA H100 80GB HBM3 (80 Gio, pilote 580.159.04, CUDA 13.0)" in pytorch
    assert "viennent, elles, d'un GPU" not in pytorch


def test_a_page_computed_on_one_kind_of_machine_says_nothing_more():
    cpu_only = {tab: PAGE[tab] for tab in ("mxnet", "tensorflow")}
    for tab, notebook in cpu_only.items():
        assert "GPU :" not in describe(tab, notebook, FRENCH, gpu_tabs(cpu_only))
    two_gpus = {"pytorch": PAGE["pytorch"], "tensorflow": executed([H100], "2.21.0")}
    assert gpu_tabs(two_gpus) == ["pytorch", "tensorflow"]
    assert "viennent, elles" not in describe("tensorflow", two_gpus["tensorflow"], FRENCH,
                                             gpu_tabs(two_gpus))
