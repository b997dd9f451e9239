"""Virtual environments the build runs in, created on first need.

This module uses the standard library only: build.py imports it before any
dependency is installed, to create the tools environment and re-run itself
inside it.
"""
from __future__ import annotations

import base64
import hashlib
import io
import os
import subprocess
import sys
import tarfile
import time
import urllib.request
import venv
from pathlib import Path

from .records import atomic_write, stamp_matches, write_stamp

ENVS_DIR = ".envs"
# The repository this build system lives in: its requirements/, .envs/ and d2l package
# serve every book it builds (this one, or another with -C DIR).
TOOL_ROOT = Path(__file__).resolve().parents[2]
STAMP = "tabbook-environment.json"
LEGACY_STAMP = "tabbook-requirements.sha256"
"""The text stamp of earlier builds: an environment it matches is not installed again."""
# Set to use the running interpreter as is (a conda env made from environment.yml).
USE_CURRENT_PYTHON = "TABBOOK_USE_CURRENT_PYTHON"
# Set to a folder of wheels (`build.py wheelhouse`) on a machine without Internet: the
# environments are installed from it alone.
WHEELHOUSE = "TABBOOK_WHEELHOUSE"


def wheelhouse() -> Path | None:
    """The wheelhouse named by TABBOOK_WHEELHOUSE, if any."""
    folder = os.environ.get(WHEELHOUSE)
    return Path(folder).resolve() if folder else None


def pip_install(python: Path | str, *arguments: str) -> None:
    """`python -m pip install arguments`, from the wheelhouse alone when one is set."""
    folder = wheelhouse()
    source = ["--no-index", "--find-links", str(folder)] if folder else []
    subprocess.run([str(python), "-m", "pip", "install", "--disable-pip-version-check",
                    *source, *arguments], check=True)


def env_python(env: Path) -> Path:
    return env / "bin" / "python"


def _fingerprint(*files: Path) -> str:
    digest = hashlib.sha256(sys.version.encode())
    for file in files:
        digest.update(file.read_bytes())
    return digest.hexdigest()


def _is_current(env: Path, fingerprint: str) -> bool:
    """Whether the environment was installed from what `fingerprint` describes."""
    if stamp_matches(env / STAMP, fingerprint):
        return True
    try:
        legacy = (env / LEGACY_STAMP).read_text(encoding="utf-8").strip() == fingerprint
    except (OSError, ValueError):
        return False
    if legacy:
        write_stamp(env / STAMP, fingerprint)
    return legacy


def ensure_env(root: Path, name: str, with_d2l: bool = False) -> Path:
    """Create or refresh ``.envs/<name>`` from ``requirements/<name>.txt``; return its python.

    With `with_d2l`, this repository's d2l package is installed too, editable, so
    that regenerated d2l/*.py files are seen at once. An environment is rebuilt
    only when its requirements (or pyproject.toml, or Python) changed.
    """
    requirements = root / "requirements" / f"{name}.txt"
    env = root / ENVS_DIR / name
    fingerprint = _fingerprint(requirements, *([root / "pyproject.toml"] if with_d2l else []))
    if _is_current(env, fingerprint):
        return env_python(env)
    started = time.monotonic()
    print(f"setting up the {name} environment in {env.relative_to(root)} "
          f"(from {requirements.relative_to(root)}; once, or when it changes)...", flush=True)
    venv.EnvBuilder(with_pip=True, clear=True).create(env)
    python = env_python(env)
    pip_install(python, "--quiet", "--upgrade", "pip")
    pip_install(python, "--progress-bar", "off", "-r", str(requirements))
    if with_d2l:
        pip_install(python, "--quiet", "--no-deps", "--editable", str(root))
    write_stamp(env / STAMP, fingerprint, requirements=requirements.name)
    print(f"{name} environment ready in {time.monotonic() - started:.0f} s", flush=True)
    return env_python(env)


CHROMIUM = Path("/usr/bin/chromium")
# How the build and the tests start it: headless, in a container, asking nothing of the network.
CHROMIUM_ARGS = ("--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync")
# What the test suite needs from Debian: the file each package provides, and the package.
TEST_TOOLS = {
    CHROMIUM: "chromium",                                # the browser tests drive it
    Path("/usr/bin/hunspell"): "hunspell",               # the French spelling test
    Path("/usr/share/hunspell/fr_FR.dic"): "hunspell-fr",
}


def ensure_debian_packages(tools: dict[Path, str], purpose: str) -> None:
    """Install with apt-get the Debian packages of `tools` ({file: package}) whose file
    is missing; exit with the command to run if that fails.

    Playwright's own browser download is not used: the build and the tests run
    the distribution's chromium, as readers on Debian do.
    """
    missing = sorted({package for file, package in tools.items() if not file.exists()})
    if not missing:
        return
    prefix = [] if os.geteuid() == 0 else ["sudo", "-n"]
    print(f"setting up Debian packages {purpose}: {' '.join(missing)} (apt-get, once)...",
          flush=True)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    for command in (["apt-get", "update", "-q"], ["apt-get", "install", "-y", "-q", *missing]):
        try:
            failed = subprocess.run(prefix + command, env=env,
                                    stdout=subprocess.DEVNULL).returncode != 0
        except FileNotFoundError:   # no apt-get (or sudo): not Debian
            failed = True
        if failed:
            sys.exit(f"error: could not install {' '.join(missing)} — run "
                     f"`sudo apt-get install {' '.join(missing)}` (or install them with your "
                     "system's package manager) and retry")


def ensure_test_tools() -> None:
    """The Debian packages the tests use."""
    ensure_debian_packages(TEST_TOOLS, "for the tests")


def ensure_chromium() -> None:
    """Debian's chromium, which prints the PDFs."""
    ensure_debian_packages({CHROMIUM: "chromium"}, "to print the PDF")


AXE_CORE_VERSION = "4.14.1"
# The npm registry's integrity of the package's tarball (`npm view axe-core@4.14.1 dist`).
AXE_CORE_INTEGRITY = ("sha512-FHfa+lmNjQZfJz1q8wKqIDwC6DExcHt/pkjNQb09a3NPjCKg2rhu5qb2S4r76ASyF"
                      "NNtuFooJpZe37OgudVGtQ==")
AXE_CORE_URL = f"https://registry.npmjs.org/axe-core/-/axe-core-{AXE_CORE_VERSION}.tgz"


def ensure_axe_core() -> Path:
    """axe-core's browser script, which the accessibility tests inject into each page:
    downloaded once from the npm registry (no npm needed), checked against its pinned
    integrity and kept in ``.envs/axe-core-<version>/axe.min.js``."""
    target = TOOL_ROOT / ENVS_DIR / f"axe-core-{AXE_CORE_VERSION}" / "axe.min.js"
    if target.is_file():
        return target
    try:
        with urllib.request.urlopen(AXE_CORE_URL, timeout=60) as response:
            archive = response.read()
    except OSError as error:
        raise RuntimeError(f"could not download axe-core {AXE_CORE_VERSION} from {AXE_CORE_URL} "
                           f"({error}) — the accessibility tests need it once: connect this "
                           f"machine to the network, or put that version's axe.min.js at "
                           f"{target}") from error
    integrity = "sha512-" + base64.b64encode(hashlib.sha512(archive).digest()).decode()
    if integrity != AXE_CORE_INTEGRITY:
        raise RuntimeError(f"{AXE_CORE_URL}: integrity {integrity} differs from the pinned "
                           f"{AXE_CORE_INTEGRITY} — the download was altered; retry later")
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
        script = tar.extractfile("package/axe.min.js").read()
    atomic_write(target, script)   # an interrupted download leaves no half file
    return target


def run_in_tools_env(root: Path, argv: list[str]) -> None:
    """Re-execute build.py inside the tools environment unless already there."""
    if os.environ.get(USE_CURRENT_PYTHON):
        return
    env = (root / ENVS_DIR / "tools").resolve()
    if Path(sys.prefix).resolve() == env and \
            _is_current(env, _fingerprint(root / "requirements" / "tools.txt")):
        return
    try:
        python = ensure_env(root, "tools")
    except subprocess.CalledProcessError as err:
        folder = wheelhouse()
        sys.exit(f"error: setting up the tools environment failed ({err}); "
                 + (f"the wheelhouse {folder} lacks a wheel pip asked for: write it again "
                    "with `python3 build.py wheelhouse` for this machine's Python and platform"
                    if folder else "check the network access to PyPI and retry (without "
                    f"Internet: {WHEELHOUSE}=DIR, a folder written by `build.py wheelhouse`)"))
    os.execv(python, [str(python), str(root / "build.py"), *argv])
