"""Nothing changed, nothing done: the stamp of a whole command line.

After a command that builds (`build.py`, `html`, `pdf`, `launch`, `slides`, `notebooks`,
`lib`, `eval`) succeeds, a record is kept of every file of the book's folder, inputs and
outputs alike (`_build/` included, `.git` and the environments left out), of the
build system's own files, and of what the machine gives the build (the environments'
stamps and interpreters, Chromium, the GPUs, the variables the build reads). The
same command line run again compares them first and, when all is equal, says so and
stops before the build's modules are even imported.

Files are compared as git compares them: by size and time first, by content where
those differ, so that a copy or a restored cache whose times changed is still
unchanged. A file that changed while the build ran is recorded as unknown: the next
run builds.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from pathlib import Path

from ..bootstrap.bytecode import refresh_bytecode
from ..bootstrap.environments import CHROMIUM, ENVS_DIR, STAMP, TOOL_ROOT
from ..bootstrap.records import file_hash, read_record, write_record
from ..core.layout import BUILD_DIR, PARSED_SECTIONS, SPLIT_NOTEBOOKS
from .options import parse_command_line

BUILDING_COMMANDS = {None, "html", "pdf", "launch", "slides", "notebooks", "lib", "eval"}
"""The commands whose result a stamp can stand for (not serve, test or check)."""
ALWAYS_RUN = frozenset({"recheck", "force", "out", "check", "tag"})
"""Options whose command must run whatever its files: it is asked to look again, to
redo, to copy elsewhere, or to answer."""
STAMPS = "unchanged"
"""The folder of `_build` holding one stamp per command line."""
LEFT_OUT = {".git", ENVS_DIR, "__pycache__", ".pytest_cache", ".ipynb_checkpoints"}
"""Folders that are not the book: version control, environments, caches of tools."""
LEFT_OUT_SUFFIXES = (".egg-info",)
"""Folders of a kind that is not the book: the metadata pip writes beside the d2l package
when it installs it, editable, into an environment (during the build itself)."""
TOOL_PARTS = ("build.py", "tabbook", "requirements", "pyproject.toml", "d2l")
"""What of the build system's folder a book built with -C reads: its code, its pins, the
d2l package installed in the environments."""
READ_VARIABLES = ("CUDA_VISIBLE_DEVICES", "TMPDIR", "OMP_NUM_THREADS")
"""Variables the build reads (besides its own TABBOOK_* ones)."""

Snapshot = dict[str, list]
"""A file's path (relative to the book's folder, or absolute outside it) -> [size,
time in ns, hash of its bytes or None where unknown]."""


def run_unless_unchanged(argv: list[str], root: Path) -> int:
    """Run build.py's command line `argv`, unless the last one that asked the same
    succeeded and nothing it read or wrote changed since."""
    args = parse_command_line(argv)   # a malformed command line stops here, as in main
    folder = book_folder(args, root)
    stamp = stamp_path(folder, args) if folder.is_dir() and eligible(args) else None
    if stamp is not None:
        recorded = read_record(stamp)
        if recorded is not None and unchanged(recorded, folder, args):
            print(f"Nothing changed since this command last succeeded "
                  f"({recorded.get('finished', '?')}): nothing to do "
                  f"(--recheck runs its steps anyway).", file=sys.stderr)
            return 0
        # The stamp stays until a success replaces it: files back to what it records are
        # those of a success. Nothing is written before the build lock is held.
        known = (recorded or {}).get("files") or {}
        before = snapshot(folder, inputs(folder), previous=known)
    refresh_bytecode(TOOL_ROOT / "tabbook")
    from .main import main   # the build's modules, only when there is work
    status = main(argv, root)
    if stamp is not None and status == 0:
        write_record(stamp, record(folder, args, before, known))
    return status


def book_folder(args: argparse.Namespace, root: Path) -> Path:
    """The book's folder: -C's, else `root`."""
    return (args.directory or root).resolve()


def request(args: argparse.Namespace) -> dict:
    """What the command line asks, wherever the book is (-C left out), as JSON holds it:
    the order of its options does not matter."""
    asked = {name: value for name, value in vars(args).items() if name != "directory"}
    return json.loads(json.dumps(asked, sort_keys=True, default=str))


def eligible(args: argparse.Namespace) -> bool:
    """Whether a stamp may stand for the command line `args`."""
    return args.command in BUILDING_COMMANDS and not any(
        getattr(args, option, None) for option in ALWAYS_RUN)


def stamp_path(folder: Path, args: argparse.Namespace) -> Path:
    asked = json.dumps(request(args), sort_keys=True).encode()
    return folder / BUILD_DIR / STAMPS / f"{hashlib.sha256(asked).hexdigest()[:16]}.json"


# -- what is compared ----------------------------------------------------------------

def inputs(folder: Path) -> list[str]:
    """The files the build may read: the book's folder but its outputs, the build
    system's own files (from another folder with -C), the environments' stamps.
    Paths are strings here: a few thousand Path objects would cost more than the check."""
    found = _files(str(folder), skip={BUILD_DIR})
    if TOOL_ROOT != folder:
        found += [file for part in TOOL_PARTS for file in _files(str(TOOL_ROOT / part), set())
                  if not file.startswith(f"{folder}{os.sep}")]
    return found + sorted(str(path) for path in TOOL_ROOT.glob(f"{ENVS_DIR}/*/{STAMP}"))


def outputs(folder: Path) -> list[str]:
    """The files of `_build`, its published site too if it is a link; not the stamps, nor
    the section cache and the split notebooks, whose entries are taken by key only (a
    failed command refreshes them, and its sources put back are still those of the last
    success)."""
    return [file for file in _files(str(folder / BUILD_DIR),
                                    skip={STAMPS, PARSED_SECTIONS, SPLIT_NOTEBOOKS},
                                    links=True)
            if os.path.basename(file) != ".lock"]


def _files(top: str, skip: set[str], links: bool = False) -> list[str]:
    """The files under `top` (itself if it is a file) but the folders of `skip` at its
    top and of LEFT_OUT anywhere."""
    if os.path.isfile(top):
        return [top]
    found = []
    for here, folders, names in os.walk(top, followlinks=links):
        folders[:] = sorted(f for f in folders if f not in LEFT_OUT | skip
                            and not f.endswith(LEFT_OUT_SUFFIXES))
        skip = set()   # only at the top
        found += [os.path.join(here, name) for name in sorted(names)]
    return found


def machine(args: argparse.Namespace) -> dict:
    """What the build takes from the machine besides files: interpreters (the running
    one, the environments', those --python names), Chromium, GPUs, variables."""
    programs = [Path(sys.executable), CHROMIUM, Path("/usr/bin/nvidia-smi"),
                *sorted(TOOL_ROOT.glob(f"{ENVS_DIR}/*/bin/python")),
                *(Path(given.split("=", 1)[1]) for given in getattr(args, "python", None) or ())]
    return {"python": sys.version,
            "programs": {str(p): _stat(os.path.realpath(p)) for p in programs},
            "gpus": sorted(str(p) for p in Path("/dev").glob("nvidia[0-9]*")),
            "variables": {name: value for name, value in sorted(os.environ.items())
                          if name.startswith("TABBOOK_") or name in READ_VARIABLES}}


def _stat(path: str) -> list[int] | None:
    try:
        found = os.stat(path)
    except OSError:
        return None
    return [found.st_size, found.st_mtime_ns]


# -- snapshots -----------------------------------------------------------------------

def snapshot(folder: Path, files: list[str], previous: Snapshot) -> Snapshot:
    """Each file's size, time and hash; the hash is taken from `previous` where size and
    time did not change (and it was known), so that only changed files are read."""
    found = {}
    for file in files:
        stat = _stat(file)
        if stat is None:
            continue
        name = _name(folder, file)
        known = previous.get(name)
        reuse = known and known[:2] == stat and known[2] is not None
        digest = known[2] if reuse else file_hash(Path(file))
        found[name] = [*stat, digest]
    return found


def _name(folder: Path, file: str) -> str:
    """A file's name in a stamp: relative to the book's folder, so that a copied book
    keeps its stamps."""
    inside = f"{folder}{os.sep}"
    return file[len(inside):] if file.startswith(inside) else file


def record(folder: Path, args: argparse.Namespace, before: Snapshot, known: Snapshot) -> dict:
    """The stamp written after a success: the inputs as they were when the command
    started (one changed since is unknown, but for the environments' stamps, which the
    build itself writes when it sets an environment up), its outputs as they are now."""
    after = snapshot(folder, inputs(folder), previous=before)
    files = {name: (entry if before.get(name, [None, None])[:2] == entry[:2]
                    or name.endswith(f"{os.sep}{STAMP}") else [*entry[:2], None])
             for name, entry in after.items()}
    files.update(snapshot(folder, outputs(folder), previous=known))
    return {"request": request(args), "machine": machine(args), "files": files,
            "finished": time.strftime("%Y-%m-%d %H:%M:%S")}


def unchanged(recorded: dict, folder: Path, args: argparse.Namespace) -> bool:
    """Whether every file is as `recorded` (same bytes), none came or went, and the
    machine gives the build the same things."""
    if recorded.get("request") != request(args) or recorded.get("machine") != machine(args):
        return False
    files = recorded.get("files")
    if not isinstance(files, dict):
        return False
    now = {_name(folder, file): file for file in inputs(folder) + outputs(folder)}
    return now.keys() == files.keys() and all(_same(file, files[name])
                                             for name, file in now.items())


def _same(file: str, known: list) -> bool:
    """Whether `file` still has the bytes `known` records (an unknown hash: never)."""
    stat = _stat(file)
    if stat is None or not isinstance(known, list) or len(known) != 3 or known[2] is None:
        return False
    return stat == known[:2] or (stat[0] == known[0] and file_hash(Path(file)) == known[2])
