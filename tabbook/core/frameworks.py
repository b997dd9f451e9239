"""The frameworks this build knows, in one registry.

A book's tabs are free names (d2lbook books have ``paddle``, ``jax``…); what the
build knows about a tab (its module, the name readers see, how it counts GPUs,
what Colab lacks for it) is looked up here, with neutral defaults for the
others.
"""
from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Framework:
    tab: str
    module: str
    """The module the notebooks import, e.g. ``torch``."""
    display_name: str
    """The name readers see on tabs, buttons and provenance lines."""
    gpu_count_code: str = ""
    """Python that prints how many GPUs the framework's build can use ("" if unknown)."""
    platform_lacks: str = ""
    """Requirements a launch notebook installs on Colab and Kaggle, which lack them."""
    gpu_on_platforms: bool = True
    """Whether Colab and Kaggle can run it on their GPUs."""
    max_python: str = ""
    """The newest Python it installs on ("" if any). Colab and Kaggle run a newer one, so
    the site offers its notebooks to download only, saying where they run."""

    @property
    def on_platforms(self) -> bool:
        """Whether its launch notebooks can run on Colab and Kaggle."""
        return not self.max_python
    device_pattern: str = ""
    """A regular expression for the device names it prints."""

    @property
    def requirements_file(self) -> str:
        """The managed environment's pinned requirements, relative to the tool root."""
        return f"requirements/{self.tab}.txt"


FRAMEWORKS = {framework.tab: framework for framework in (
    Framework(
        "pytorch", "torch", "PyTorch",
        gpu_count_code="import torch; "
                       "print(torch.cuda.device_count() if torch.cuda.is_available() else 0)",
        device_pattern=r"cuda:\d+|device\(type='(?:cuda|cpu)'(?:, index=\d+)?\)"),
    Framework(
        "mxnet", "mxnet", "MXNet",
        gpu_count_code="import mxnet; print(mxnet.context.num_gpus())",
        # Retired in 2023; it needs numpy < 1.24, and its CUDA builds stop at CUDA 11.
        platform_lacks="mxnet==1.9.1 numpy<1.24", gpu_on_platforms=False,
        max_python="3.11",   # numpy < 1.24 has no wheel for Python 3.12 (Colab, Kaggle)
        device_pattern=r"\b(?:gpu|cpu)\(\d+\)"),
    Framework(
        "tensorflow", "tensorflow", "TensorFlow",
        gpu_count_code="import tensorflow as tf; "
                       "print(len(tf.config.list_physical_devices('GPU')))",
        device_pattern=r"(?:/device:|/physical_device:|/)(?:GPU|CPU):\d+"),
)}


def framework(tab: str) -> Framework:
    """What the build knows of `tab`; a tab it does not know is its own module and name."""
    return FRAMEWORKS.get(tab) or Framework(tab, tab, tab)


def display_name(tab: str) -> str:
    return framework(tab).display_name


# Device names as the known frameworks print them.
DEVICE_PATTERN = re.compile("|".join(f.device_pattern for f in FRAMEWORKS.values()))
