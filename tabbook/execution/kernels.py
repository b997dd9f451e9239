"""Where each framework's code runs: an interpreter, a Jupyter kernel, the GPUs.

Kernels are registered in the build's Jupyter folder (`Layout.jupyter`) and found
there by the build's own kernel manager; each kernel is told, in its environment,
to keep Jupyter's runtime and IPython's profile there too. Nothing is written to
the user's global Jupyter or IPython folders, and this process's environment is
left as it is.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..bootstrap.errors import BookError
from ..bootstrap.environments import TOOL_ROOT, ensure_env, wheelhouse
from ..bootstrap.records import conforms, read_record, write_record
from ..core.files import write_if_changed
from ..core.frameworks import framework
from ..core.layout import Layout

# Set in every kernel: TensorFlow's start-up logs would otherwise land in outputs.
QUIET_ENV = {"TF_CPP_MIN_LOG_LEVEL": "2", "TF_ENABLE_ONEDNN_OPTS": "0",
             "PYTHONWARNINGS": "ignore::DeprecationWarning"}

PROBE = """
import importlib.util, importlib.metadata as metadata, json, os, platform, sys
# find_spec, not import: importing a framework costs seconds; a broken install
# still shows up, with its traceback, in the first cell that imports it.
missing = [f"{name} (ModuleNotFoundError: No module named {name!r})"
           for name in sys.argv[1:] if importlib.util.find_spec(name) is None]
# Not the kernel's PYTHONPATH (the book's folder): an *.egg-info a wheel or an old
# editable install left there describes no installed package, and is not copied
# with the environment. A set: a .pth may put an installed package's folder twice.
book = {os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p}
installed = [p for p in sys.path if os.path.abspath(p) not in book]
packages = sorted({f"{d.metadata['Name']}=={d.version}"
                   for d in metadata.distributions(path=installed)})
print(json.dumps({"missing": missing, "python": platform.python_version(), "packages": packages}))
"""


class RuntimeSetupError(BookError):
    """An interpreter that cannot run a tab (framework or kernel missing)."""


@dataclass(frozen=True)
class Runtime:
    tab: str
    python: Path
    kernel_name: str
    python_version: str
    packages: tuple[str, ...]

    @property
    def framework_version(self) -> str:
        """The framework's version, whatever its build is called (mxnet-cu117, tensorflow-cpu)."""
        module = framework(self.tab).module
        for package in self.packages:
            name, _, version = package.partition("==")
            name = name.lower().replace("_", "-")
            if name == module or name.startswith(f"{module}-cu") or name == f"{module}-cpu":
                return version
        return "unknown"


def framework_gpus(runtime: Runtime) -> tuple[int, str]:
    """GPUs the tab's framework sees from its interpreter, and why, when it sees none.

    A CPU build, or a CUDA build older than the GPU or newer than the driver, sees
    none though nvidia-smi does."""
    code = framework(runtime.tab).gpu_count_code
    if not code:
        return 0, f"no GPU probe for the tab {runtime.tab!r}"
    try:
        result = subprocess.run([str(runtime.python), "-c", code], capture_output=True,
                                text=True, timeout=300, env=dict(os.environ, **QUIET_ENV))
    except subprocess.TimeoutExpired:
        return 0, "the framework took more than 300 s to count its GPUs"
    lines = result.stdout.strip().split("\n")
    if result.returncode == 0 and lines[-1].isdigit():
        return int(lines[-1]), "" if int(lines[-1]) else "its build finds no usable GPU"
    errors = [line for line in result.stderr.strip().split("\n") if line.strip()]
    return 0, errors[-1] if errors else f"exit status {result.returncode}"


def jupyter_environment(layout: Layout) -> dict[str, str]:
    """Environment variables that keep a kernel's Jupyter and IPython files in the
    build's folders (this process's own environment is left alone)."""
    base = layout.jupyter
    return {"JUPYTER_PATH": str(layout.jupyter_data),
            "JUPYTER_DATA_DIR": str(layout.jupyter_data),
            "JUPYTER_RUNTIME_DIR": str(base / "runtime"),
            "IPYTHONDIR": str(base / "ipython"),
            "JUPYTER_PLATFORM_DIRS": "1"}


def kernel_manager_class(layout: Layout) -> type:
    """A Jupyter kernel manager that finds kernel specs in the build's Jupyter folder
    only (for nbclient's ``kernel_manager_class``)."""
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import AsyncKernelManager
    from traitlets import default

    kernel_dirs = [str(layout.jupyter_data / "kernels")]

    class BuildKernelManager(AsyncKernelManager):   # the class nbclient uses by default
        @default("kernel_spec_manager")
        def _build_kernel_specs(self) -> KernelSpecManager:
            return KernelSpecManager(kernel_dirs=kernel_dirs)

    return BuildKernelManager


def probe(python: Path, modules: list[str], env: dict[str, str]) -> dict:
    """What `python` sees, with the kernel's variables `env`: its Python version, its
    packages, and which of `modules` it lacks.

    The packages it lists are part of the execution cache's key, so it runs from
    an empty folder and leaves out those found on the kernel's PYTHONPATH: a
    ``*.egg-info`` in the book's folder (left by an editable install or a wheel
    built there) would be listed too, and a copy of the book (a clone, a CI cache
    restored elsewhere) would run every notebook again.
    """
    with tempfile.TemporaryDirectory(prefix="tabbook-probe-") as neutral:
        result = subprocess.run([str(python), "-c", PROBE, *modules], capture_output=True,
                                text=True, timeout=300, cwd=neutral,
                                env=dict(os.environ, **QUIET_ENV, **env))
    if result.returncode != 0:
        raise RuntimeSetupError(f"{python} does not run: {result.stderr.strip()[-300:]}")
    return json.loads(result.stdout.strip().split("\n")[-1])


def _signature(python: Path, site: Path, modules: list[str], env: dict[str, str]) -> list:
    """What a probe's result depends on: the interpreter, its packages folder and when
    that folder last changed (pip install, uninstall), the modules asked about, the
    kernel's variables, the probe's own code. Paths are this machine's: another
    interpreter (a clone's own environments) is probed again, which executes nothing."""
    return [str(python), str(site), site.stat().st_mtime_ns if site.exists() else 0,
            python.stat().st_mtime_ns if python.exists() else 0, modules, env,
            hashlib.sha256(PROBE.encode()).hexdigest()[:12]]


def _well_formed(found: dict) -> bool:
    """Whether a recorded probe has the fields the build reads, of their types."""
    return conforms(found, {"missing": list, "python": str, "packages": list}) \
        and all(isinstance(package, str) for package in found["packages"])


def _recorded_probe(record: Path, python: Path, modules: list[str],
                    env: dict[str, str]) -> dict | None:
    """The probe recorded at `record`, if its interpreter's packages are unchanged since;
    None if there is none, or it can't be read (it is then made again)."""
    cached = read_record(record, {"signature": list, "probe": dict})
    if cached is None or len(cached["signature"]) < 2 or not _well_formed(cached["probe"]):
        return None
    # The packages folder recorded last time, unchanged since: no interpreter to start.
    site = Path(str(cached["signature"][1]))
    signature = _signature(python, site, modules, env)
    return cached["probe"] if cached["signature"] == signature else None


def _cached_probe(layout: Layout, tab: str, python: Path, modules: list[str],
                  env: dict[str, str]) -> dict:
    """Probe an interpreter, again only when its packages folder changed.

    Starting interpreters takes time; a build that finds everything cached
    should not pay that.
    """
    record = layout.runtime_record(tab)
    found = _recorded_probe(record, python, modules, env)
    if found is not None:
        return found
    where = subprocess.run([str(python), "-c", "import sysconfig; "
                            "print(sysconfig.get_paths()['purelib'])"],
                           capture_output=True, text=True, timeout=60)
    if where.returncode != 0:
        raise RuntimeSetupError(f"{python} does not run: {where.stderr.strip()[-300:]}")
    signature = _signature(python, Path(where.stdout.strip()), modules, env)
    found = probe(python, modules, env)
    if not found["missing"]:
        write_record(record, {"signature": signature, "probe": found})
    return found


def _missing_message(tab: str, python: Path, missing: list[str]) -> str:
    """What a --python interpreter lacks, and the commands that install it (from the
    wheelhouse of TABBOOK_WHEELHOUSE on a machine without Internet)."""
    offline = wheelhouse()
    source = f"--no-index --find-links {offline} " if offline else ""
    return (f"--python {tab}={python} cannot run the {tab} notebooks: missing "
            + "; ".join(missing)
            + f" — install them there (e.g. `{python} -m pip install {source}ipykernel "
            f"matplotlib` and `{python} -m pip install {source}--no-deps -e {TOOL_ROOT}` "
            f"for d2l), or drop --python to use the managed environment")


def prepare_runtime(layout: Layout, tab: str, python: Path | None) -> Runtime:
    """The interpreter of `tab` (given, or the managed .envs/<tab>) and its kernel, for
    the book of `layout`."""
    if python is None:
        requirements = framework(tab).requirements_file
        if not (TOOL_ROOT / requirements).is_file():
            raise RuntimeSetupError(f"tab {tab!r} has no managed environment (no "
                                    f"{requirements}) — run it with an interpreter of "
                                    f"yours: --python {tab}=PATH")
        python = ensure_env(TOOL_ROOT, tab, with_d2l=True)
    elif not Path(python).exists() and shutil.which(str(python)):
        python = Path(shutil.which(str(python)))
    python = Path(python)
    if not python.exists():
        raise RuntimeSetupError(f"--python {tab}={python}: no such interpreter")
    # The notebooks import the d2l package of the book being built, whatever an
    # editable install points to: another book's (`-C DIR`), or this one copied or
    # moved elsewhere (the cache key hashes that copy's d2l file).
    book_path = {"PYTHONPATH": str(layout.root.resolve())}
    found = _cached_probe(layout, tab, python, [framework(tab).module, "ipykernel", "d2l"],
                          book_path)
    if found["missing"]:
        raise RuntimeSetupError(_missing_message(tab, python, found["missing"]))
    name = f"tabbook-{tab}"
    write_kernel_spec(layout.jupyter_data, name, python,
                      f"Python 3 ({tab})", {**QUIET_ENV, **book_path})
    return Runtime(tab, python, name, found["python"], tuple(found["packages"]))


def write_kernel_spec(jupyter_dir: Path, name: str, python: Path, display_name: str,
                      env: dict[str, str]) -> None:
    """Declare kernel `name` (running `python`) under `jupyter_dir`/kernels; rewrite only changes."""
    spec_dir = jupyter_dir / "kernels" / name
    # Log level ERROR: the kernel's start-up warnings would land in the build's output.
    spec = {"argv": [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}",
                     "--IPKernelApp.log_level=ERROR"],
            "display_name": display_name, "language": "python", "env": env}
    write_if_changed(spec_dir / "kernel.json", json.dumps(spec, indent=1) + "\n")


@dataclass(frozen=True)
class Gpu:
    index: int
    name: str
    memory_mib: int
    driver: str
    cuda: str


def _nvidia_smi(*arguments: str) -> str | None:
    """What `nvidia-smi arguments` printed; None if it is absent or failed."""
    if not shutil.which("nvidia-smi"):
        return None
    try:
        result = subprocess.run(["nvidia-smi", *arguments], capture_output=True, text=True,
                                timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return result.stdout if result.returncode == 0 else None


def parse_gpus(listing: str, header: str, visible: str | None) -> list[Gpu]:
    """The GPUs of nvidia-smi's CSV `listing` (index, name, memory, driver), with the CUDA
    version its `header` names, kept to those CUDA_VISIBLE_DEVICES (`visible`) lists."""
    cuda = next(iter(header.split("CUDA Version:")[1:2]), "").split()[:1]
    gpus = []
    for line in listing.strip().split("\n"):
        fields = [f.strip() for f in line.split(",")]
        if len(fields) == 4 and fields[0].isdigit():
            gpus.append(Gpu(int(fields[0]), fields[1], int(float(fields[2])), fields[3],
                            "".join(cuda)))
    if visible is None:
        return gpus
    wanted = {v.strip() for v in visible.split(",") if v.strip()}
    return [g for g in gpus if str(g.index) in wanted]


def detect_gpus() -> list[Gpu]:
    """The NVIDIA GPUs visible to this process (respecting CUDA_VISIBLE_DEVICES)."""
    listing = _nvidia_smi("--query-gpu=index,name,memory.total,driver_version",
                          "--format=csv,noheader,nounits")
    if listing is None:
        return []
    return parse_gpus(listing, _nvidia_smi() or "", os.environ.get("CUDA_VISIBLE_DEVICES"))


def gpu_class(gpus: list[Gpu]) -> str:
    """What the cache keys on: 'cpu', or the GPU models."""
    return ", ".join(sorted(g.name for g in gpus)) or "cpu"


def default_jobs(configured: int) -> int:
    """Kernels at once: config's value, else what the machine's cores and memory allow."""
    if configured:
        return configured
    cores = os.cpu_count() or 1
    try:
        memory_gib = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2 ** 30
    except (ValueError, OSError):
        memory_gib = 8
    # A framework kernel with its data takes up to ~3 GiB here.
    return max(1, min(cores, int(memory_gib // 3)))


def python_of(value: str) -> tuple[str, Path]:
    """Parse --python TAB=PATH."""
    tab, sep, path = value.partition("=")
    if not sep or not tab or not path:
        raise RuntimeSetupError(f"--python {value}: write TAB=PATH, e.g. pytorch=/usr/bin/python3")
    return tab, Path(path)

