"""`build.py wheelhouse`: the wheels a machine without Internet installs the build from.

A national centre's compute node, or a school's GPU server, often reaches no
package index. On a connected machine, this command downloads, for the node's
Python version and platform, the wheels of the build's tools
(requirements/tools.txt) and of what the node's own interpreter (`--python
TAB=PATH`, its framework already installed) needs to serve as the book's
kernel. On the node, ``TABBOOK_WHEELHOUSE=DIR python3 build.py …`` installs
the tools environment from that folder alone (`environments.pip_install`).

Standard library only: it runs before, and without, the tools environment
(build.py hands it the command line first); it needs pip only, this
interpreter's or, when it has none, one in a temporary virtual environment.
"""
from __future__ import annotations

import argparse
import importlib.util
import re
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

KERNEL_PACKAGES = ("pip", "setuptools", "ipykernel", "matplotlib")
"""Beyond requirements/tools.txt: pip (each environment upgrades its own), setuptools
(the build backend of `pip install -e .`, for d2l), and what a --python interpreter
needs beside its framework to serve as the book's kernel: ipykernel, and matplotlib
for d2l (NumPy comes with it)."""

LEGACY_MANYLINUX = {"manylinux2014": 17, "manylinux2010": 12, "manylinux1": 5}
"""The old manylinux names, with the glibc minor version each stands for."""

MANYLINUX = re.compile(r"(manylinux2014|manylinux2010|manylinux1|manylinux_2_(\d+))_(\w+)")


def platform_tags(platform: str) -> list[str]:
    """pip's --platform values for a machine of `platform`.

    A manylinux platform also runs the wheels made for an older glibc, but pip
    itself only widens manylinux2014 and manylinux2010: asked for
    manylinux_2_28_x86_64, it would refuse a package whose only Linux wheel is
    manylinux_2_17. Every older glibc is listed here.
    """
    found = MANYLINUX.fullmatch(platform)
    if not found:
        return [platform]
    glibc = int(found.group(2)) if found.group(2) else LEGACY_MANYLINUX[found.group(1)]
    arch = found.group(3)
    tags = [f"manylinux_2_{minor}_{arch}" for minor in range(glibc, 4, -1)]
    return tags + [f"{name}_{arch}" for name, minor in LEGACY_MANYLINUX.items()
                   if minor <= glibc]


def download_command(pip: list[str], out: Path, requirements: list[Path], packages: list[str],
                     python_version: str | None, platforms: list[str]) -> list[str]:
    """The `pip download` that puts the wheels of `requirements` (files) and `packages`,
    with their dependencies, in `out`, for `python_version` and `platforms` (this
    interpreter's when not given). Wheels only: the node may have no compiler."""
    command = [*pip, "download", "--disable-pip-version-check", "--only-binary=:all:",
               "--dest", str(out)]
    if python_version:
        command += ["--python-version", python_version]
    # Several platforms share their older glibc's tags: each once.
    for tag in dict.fromkeys(t for platform in platforms for t in platform_tags(platform)):
        command += ["--platform", tag]
    for file in requirements:
        command += ["-r", str(file)]
    return command + list(packages)


def write_wheelhouse(out: Path, requirements: list[Path], packages: list[str],
                     python_version: str | None = None,
                     platforms: list[str] = ()) -> subprocess.CompletedProcess:
    """Download the wheels into `out` with this interpreter's pip, or with one made
    for the occasion when it has none (Debian's python3 without python3-pip)."""
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="tabbook-pip-") as scratch:
        if importlib.util.find_spec("pip") is not None:
            pip = [sys.executable, "-m", "pip"]
        else:
            venv.EnvBuilder(with_pip=True).create(scratch)
            pip = [str(Path(scratch) / "bin" / "python"), "-m", "pip"]
        command = download_command(pip, out, requirements, packages, python_version,
                                   list(platforms))
        return subprocess.run(command)


def main(argv: list[str], root: Path) -> int:
    parser = argparse.ArgumentParser(
        prog="build.py wheelhouse",
        description="Download the wheels that a machine without Internet (a GPU compute "
                    "node) installs the build from: the build's tools and what its own "
                    "Python needs to run the notebooks (ipykernel, matplotlib). There: "
                    "TABBOOK_WHEELHOUSE=DIR python3 build.py eval --python TAB=PATH …")
    parser.add_argument("--out", type=Path, required=True, metavar="DIR",
                        help="the folder the wheels are written to (created if needed)")
    parser.add_argument("--python-version", metavar="X.Y",
                        help="the Python version of the machine that will install them "
                             "(default: this one's), e.g. 3.12")
    parser.add_argument("--platform", action="append", default=[], metavar="TAG",
                        help="its platform (default: this one's), e.g. manylinux_2_28_x86_64 "
                             "for glibc 2.28 (`ldd --version` there); older glibc's wheels "
                             "are included; repeat for several")
    args = parser.parse_args(argv)
    if args.python_version and not re.fullmatch(r"3\.\d+", args.python_version):
        parser.error(f"--python-version {args.python_version}: write MAJOR.MINOR, e.g. 3.12")
    result = write_wheelhouse(args.out, [root / "requirements" / "tools.txt"],
                              list(KERNEL_PACKAGES), args.python_version, args.platform)
    if result.returncode != 0:
        print(f"error: pip could not download every wheel into {args.out} (see above): a "
              "package may have no wheel for that Python version and platform",
              file=sys.stderr)
        return 1
    print(f"wheelhouse ready in {args.out}; on the machine without Internet: "
          f"TABBOOK_WHEELHOUSE={args.out.resolve()} python3 build.py …")
    return 0
