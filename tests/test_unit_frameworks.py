"""Unit tests of core/frameworks.py: the registry of the frameworks the build knows."""
from __future__ import annotations

from tabbook.core.frameworks import DEVICE_PATTERN, FRAMEWORKS, display_name, framework

from conftest import REPO


def test_the_known_frameworks():
    assert list(FRAMEWORKS) == ["pytorch", "mxnet", "tensorflow"]
    assert [(f.module, f.display_name) for f in FRAMEWORKS.values()] == [
        ("torch", "PyTorch"), ("mxnet", "MXNet"), ("tensorflow", "TensorFlow")]
    for known in FRAMEWORKS.values():
        assert known.gpu_count_code.startswith(f"import {known.module}")
        assert (REPO / known.requirements_file).is_file()
        compile(known.gpu_count_code, "<gpu count>", "exec")


def test_mxnet_does_not_run_on_colab_and_kaggle():
    mxnet = framework("mxnet")
    assert not mxnet.on_platforms and mxnet.max_python == "3.11"
    assert not mxnet.gpu_on_platforms and mxnet.platform_lacks == "mxnet==1.9.1 numpy<1.24"
    assert framework("pytorch").on_platforms and framework("pytorch").gpu_on_platforms


def test_an_unknown_tab_is_its_own_module_and_name():
    jax = framework("jax")
    assert (jax.tab, jax.module, jax.display_name, jax.gpu_count_code) == ("jax", "jax", "jax", "")
    assert jax.on_platforms and jax.requirements_file == "requirements/jax.txt"
    assert display_name("pytorch") == "PyTorch" and display_name("paddle") == "paddle"


def test_device_names_as_the_frameworks_print_them():
    printed = ("cuda:0 device(type='cuda', index=1) device(type='cpu') gpu(0) cpu(0) "
               "/device:GPU:0 /physical_device:CPU:0 /GPU:1")
    assert DEVICE_PATTERN.findall(printed) == [
        "cuda:0", "device(type='cuda', index=1)", "device(type='cpu')", "gpu(0)", "cpu(0)",
        "/device:GPU:0", "/physical_device:CPU:0", "/GPU:1"]
    assert DEVICE_PATTERN.findall("cuda memory, a gpu, 3 cpus") == []
