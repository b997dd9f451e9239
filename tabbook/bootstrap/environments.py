"""Virtual environments the build runs in, created on first need.

This module uses the standard library only: build.py imports it before any
dependency is installed, to create the tools environment and re-run itself
inside it.
"""
from __future__ import annotations

import base64
import contextlib
import fcntl
import hashlib
import io
import os
import re
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from .errors import BookError, machine_error
from .records import stamp_matches, write_stamp

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
# What pip says when it could not reach a package index (urllib3's errors, in its retries).
UNREACHABLE = re.compile(r"NewConnectionError|ConnectTimeoutError|ReadTimeoutError|ProxyError|"
                         r"SSLError|Could not fetch URL|Temporary failure in name resolution|"
                         r"Network is unreachable")


class EnvironmentSetupError(BookError):
    """An environment could not be set up: its folder refused the writes, or pip failed."""


def wheelhouse() -> Path | None:
    """The wheelhouse named by TABBOOK_WHEELHOUSE, if any."""
    folder = os.environ.get(WHEELHOUSE)
    return Path(folder).resolve() if folder else None


def pip_install(python: Path | str, *arguments: str, log: Path | None = None) -> None:
    """`python -m pip install arguments`, from the wheelhouse alone when one is set.

    With `log`, everything pip says goes to that file (appended), not to the console;
    without, its errors are shown as they come. Either way they are kept in the
    CalledProcessError it raises on failure: they tell a network out of reach from
    anything else."""
    folder = wheelhouse()
    source = ["--no-index", "--find-links", str(folder)] if folder else []
    command = [str(python), "-m", "pip", "install", "--disable-pip-version-check", *source,
               *arguments]
    said = []
    with contextlib.ExitStack() as stack:
        shown = stack.enter_context(open(log, "a", encoding="utf-8")) if log else sys.stderr
        pip = stack.enter_context(subprocess.Popen(
            command, stdout=subprocess.PIPE if log else None, text=True, errors="replace",
            stderr=subprocess.STDOUT if log else subprocess.PIPE))
        for line in pip.stdout if log else pip.stderr:
            shown.write(line)
            said.append(line)
    if pip.returncode:
        raise subprocess.CalledProcessError(pip.returncode, command, stderr="".join(said))


def env_python(env: Path) -> Path:
    return env / "bin" / "python"


def _python_version(python: Path) -> str | None:
    """`python`'s sys.version; None if it does not run (its base interpreter was removed)."""
    if Path(sys.prefix).resolve() == python.parent.parent.resolve():   # the one running
        return sys.version
    try:
        ran = subprocess.run([str(python), "-I", "-S", "-c",
                              "import sys; sys.stdout.write(sys.version)"],
                             capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return ran.stdout if ran.returncode == 0 else None


def _fingerprint(version: str, *files: Path) -> str:
    """The hash of an environment's interpreter (its sys.version) and of the files it is
    installed from."""
    digest = hashlib.sha256(version.encode())
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
        with contextlib.suppress(OSError):   # a read-only .envs keeps the legacy stamp
            write_stamp(env / STAMP, fingerprint)
    return legacy


def _sources(root: Path, name: str, with_d2l: bool) -> list[Path]:
    """The files environment `name` is installed from: its requirements first."""
    return [root / "requirements" / f"{name}.txt",
            *([root / "pyproject.toml"] if with_d2l else [])]


def _up_to_date(env: Path, sources: list[Path]) -> bool:
    """Whether `env`'s python runs and was installed from `sources` as they are now.

    The fingerprint is of that python, not of the one running this: an environment
    is kept whatever interpreter launches the build."""
    version = _python_version(env_python(env))
    return version is not None and _is_current(env, _fingerprint(version, *sources))


def ensure_env(root: Path, name: str, with_d2l: bool = False) -> Path:
    """Create or refresh ``.envs/<name>`` from ``requirements/<name>.txt``; return its python.

    With `with_d2l`, this repository's d2l package is installed too, editable, so
    that regenerated d2l/*.py files are seen at once. An environment is rebuilt
    only when its requirements (or pyproject.toml) changed or its python no longer
    runs; one build at a time sets it up, the others wait for it. Raises
    EnvironmentSetupError when that fails.
    """
    env = root / ENVS_DIR / name
    sources = _sources(root, name, with_d2l)
    if _up_to_date(env, sources):   # nothing written: a read-only .envs will do
        return env_python(env)
    try:
        with _lock(env):
            if not _up_to_date(env, sources):   # unless the build it waited for did it
                _set_up(root, env, sources, with_d2l)
    except OSError as err:
        refused = machine_error(err)
        if refused is None:
            raise
        raise EnvironmentSetupError(f"cannot set up the {name} environment in {env}: "
                                    f"{refused}") from err
    except subprocess.CalledProcessError as err:
        raise _setup_failure(name, err, setup_log(env)) from err
    return env_python(env)


@contextlib.contextmanager
def _lock(env: Path) -> Iterator[None]:
    """Hold ``<env>.lock`` beside `env`: two builds setting it up at once would delete
    each other's files. The second one waits for the first."""
    env.parent.mkdir(parents=True, exist_ok=True)
    with open(env.with_name(f"{env.name}.lock"), "w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print(f"waiting for another build, which is setting up {env}...", flush=True)
            fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def setup_log(env: Path) -> Path:
    """The file that keeps what pip said while setting up `env` (beside it)."""
    return env.with_name(f"{env.name}.log")


def _set_up(root: Path, env: Path, sources: list[Path], with_d2l: bool) -> None:
    """Install `env` afresh from `sources` (its requirements, then pyproject.toml); one
    line on the console, pip's hundreds in the environment's log."""
    started = time.monotonic()
    requirements = sources[0]
    log = setup_log(env)
    _say(f"setting up the {env.name} environment in {env.relative_to(root)} "
         f"(from {requirements.relative_to(root)}; once, or when it changes; pip's output in "
         f"{log.relative_to(root)})...")
    log.write_text("", encoding="utf-8")
    import venv   # here, not at the top: build.py's every start imports this module
    venv.EnvBuilder(with_pip=True, clear=True).create(env)
    python = env_python(env)
    pip_install(python, "--upgrade", "pip", log=log)
    pip_install(python, "--progress-bar", "off", "-r", str(requirements), log=log)
    if with_d2l:
        pip_install(python, "--no-deps", "--editable", str(root), log=log)
    # Its python is this interpreter (venv copies or links it).
    write_stamp(env / STAMP, _fingerprint(sys.version, *sources), requirements=requirements.name)
    _say(f"{env.name} environment ready in {time.monotonic() - started:.0f} s")


def _say(line: str) -> None:
    """One whole line at once: environments are set up side by side, and print() writes
    the text and its newline apart, so their lines would run into each other."""
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def _setup_failure(name: str, err: subprocess.CalledProcessError,
                   log: Path | None = None) -> EnvironmentSetupError:
    """What failed while setting up environment `name` (the command, its last error) and
    how to fix it; where pip's whole output is, if it was kept."""
    said = err.stderr or err.output or ""   # pip's errors; venv's ensurepip has them as output
    said = said.decode(errors="replace") if isinstance(said, bytes) else said
    lines = [line for line in said.splitlines() if line.startswith("ERROR:")] or \
        said.strip().splitlines()
    what = f"`{shlex.join(map(str, err.cmd))}` exited with status {err.returncode}" + \
        (f": {lines[-1].strip()}" if lines else "")
    kept = f" (pip's whole output: {log})" if log is not None and log.is_file() else ""
    return EnvironmentSetupError(f"setting up the {name} environment failed: {what}{kept} — "
                                 f"{_setup_fix(said)}")


def _setup_fix(said: str) -> str:
    """How to fix a failed setup, from what pip `said`: the network is blamed only where
    pip could not reach an index."""
    folder = wheelhouse()
    if folder and "No matching distribution" in said:
        return (f"the wheelhouse {folder} lacks a wheel pip asked for: write it again with "
                "`python3 build.py wheelhouse` for this machine's Python and platform")
    if UNREACHABLE.search(said):
        return ("pip could not reach the package index: check this machine's network access "
                f"to PyPI and retry (without Internet: {WHEELHOUSE}=DIR, a folder written by "
                "`build.py wheelhouse`)")
    return "fix the cause it names, then run the command again"


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
    # The Slurm tests' single-node cluster (the GPU job's array, the book's scripts).
    Path("/usr/sbin/munged"): "munge",
    Path("/usr/sbin/slurmctld"): "slurmctld",
    Path("/usr/sbin/slurmd"): "slurmd",
    Path("/usr/bin/sbatch"): "slurm-client",
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


@dataclass(frozen=True)
class NpmFiles:
    """Files of one pinned package of the npm registry, fetched without npm."""
    name: str
    version: str
    integrity: str
    """The registry's integrity of the package's tarball (`npm view <name>@<version> dist`)."""
    paths: tuple[str, ...]
    """What is kept, relative to the package's folder: files, or folders kept whole."""
    purpose: str
    """What needs them, for the message when they cannot be downloaded."""

    @property
    def url(self) -> str:
        return f"https://registry.npmjs.org/{self.name}/-/{self.name}-{self.version}.tgz"

    @property
    def folder(self) -> Path:
        return TOOL_ROOT / ENVS_DIR / f"{self.name}-{self.version}"


AXE_CORE = NpmFiles("axe-core", "4.14.1",
                    "sha512-FHfa+lmNjQZfJz1q8wKqIDwC6DExcHt/pkjNQb09a3NPjCKg2rhu5qb2S4r76ASyF"
                    "NNtuFooJpZe37OgudVGtQ==", ("axe.min.js",), "the accessibility tests")
REVEAL = NpmFiles("reveal.js", "5.2.1",
                  "sha512-r7//6mIM5p34hFiDMvYfXgyjXqGRta+/psd9YtytsgRlrpRzFv4RbH76TXd2qD+7ZPZE"
                  "bpBDhdRhJaFgfQ7zNQ==",
                  ("LICENSE", "dist/reveal.js", "dist/reveal.css", "dist/theme/white.css",
                   "dist/theme/fonts/source-sans-pro"), "the slide decks")


def ensure_npm_files(package: NpmFiles) -> Path:
    """The folder of `package`'s kept files, ``.envs/<name>-<version>/``: downloaded once
    from the npm registry (no npm needed), checked against its pinned integrity, and put
    in place whole by one rename; once there, no network is used."""
    target = package.folder
    if all((target / path).exists() for path in package.paths):
        return target
    import tarfile
    import tempfile
    import urllib.request   # here, not at the top: build.py's every start imports this module
    try:
        with urllib.request.urlopen(package.url, timeout=60) as response:
            archive = response.read()
    except OSError as error:
        raise RuntimeError(f"could not download {package.name} {package.version} from "
                           f"{package.url} ({error}) — {package.purpose} need it once: "
                           f"connect this machine to the network, or put that version's "
                           f"{', '.join(package.paths)} in {target}") from error
    integrity = "sha512-" + base64.b64encode(hashlib.sha512(archive).digest()).decode()
    if integrity != package.integrity:
        raise RuntimeError(f"{package.url}: integrity {integrity} differs from the pinned "
                           f"{package.integrity} — the download was altered; retry later")
    target.parent.mkdir(parents=True, exist_ok=True)
    # Extracted beside its place, then renamed: an interrupted download leaves nothing there.
    with tempfile.TemporaryDirectory(dir=target.parent) as staging, \
            tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
        kept = [member for member in tar.getmembers() if member.isfile() and any(
            member.name == f"package/{path}" or member.name.startswith(f"package/{path}/")
            for path in package.paths)]
        tar.extractall(staging, members=kept, filter="data")
        with contextlib.suppress(FileNotFoundError):   # a partial copy put there by hand
            os.rename(target, Path(staging) / "previous")
        os.rename(Path(staging) / "package", target)
    return target


def ensure_axe_core() -> Path:
    """axe-core's browser script, which the accessibility tests inject into each page."""
    return ensure_npm_files(AXE_CORE) / "axe.min.js"


def ensure_reveal() -> Path:
    """reveal.js's folder (`REVEAL.paths`), which the slide decks ship."""
    return ensure_npm_files(REVEAL)


def run_in_tools_env(root: Path, argv: list[str]) -> None:
    """Re-execute build.py inside the tools environment unless already there."""
    if os.environ.get(USE_CURRENT_PYTHON):
        return
    env = (root / ENVS_DIR / "tools").resolve()
    if Path(sys.prefix).resolve() == env and _up_to_date(env, _sources(root, "tools", False)):
        return
    try:
        python = ensure_env(root, "tools")
    except EnvironmentSetupError as err:
        sys.exit(f"error: {err}")
    os.execv(python, [str(python), str(root / "build.py"), *argv])
