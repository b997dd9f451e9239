"""The build's records: what made an output, read and written one way.

Every stamp the build keeps beside its outputs (the execution cache, the
runtime probes, the launch, PDF and HTML stamps, the tool environments') is a
JSON object written atomically. A record that cannot be read (missing, not
UTF-8, not JSON, not an object, a field of the wrong type) is treated as
missing: the output it describes is made again, never a fatal error.
Standard library only: the bootstrap writes the environments' stamps before
any other package is installed.
"""
from __future__ import annotations

import hashlib
import json
import os
import pickle
import threading
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, TypeVar

Kept = TypeVar("Kept")

FINGERPRINT = "fingerprint"
"""The field of a stamp that holds the fingerprint of what made the output."""


def fingerprint(root: Path, files: Iterable[Path] = (), *texts: str) -> str:
    """A hash of `texts` and of the existing `files`: their bytes and their paths
    relative to `root` (else their names), so that a moved or cloned repository
    keeps its fingerprints."""
    root = root.resolve()
    found = hashlib.sha256("\0".join(texts).encode())
    for file in sorted({Path(f).resolve() for f in files}):
        if file.is_file():
            name = file.relative_to(root) if file.is_relative_to(root) else file.name
            found.update(str(name).encode() + b"\0" + file.read_bytes() + b"\0")
    return found.hexdigest()


def file_hash(path: Path) -> str | None:
    """The hash of a file's bytes; None if it cannot be read."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def tree_hashes(folder: Path, leave_out: Iterable[str] = ()) -> dict[str, str]:
    """Every file under `folder` but `leave_out` (POSIX paths relative to it) -> the hash
    of its bytes: what a stamp records of an output folder, to find a file of it deleted,
    truncated or edited since."""
    hashes = {}
    for file in sorted(folder.rglob("*")):
        name = file.relative_to(folder).as_posix()
        if file.is_file() and name not in leave_out:
            hashes[name] = file_hash(file)
    return hashes


def key_of(material: Mapping) -> str:
    """The hash of a JSON-able description of what an output depends on."""
    return hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()


def atomic_write(path: Path, text: str | bytes) -> None:
    """Write `text` (or bytes) to a temporary file beside `path`, then rename it over
    `path`; the temporary file is removed if writing fails (a full disk)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    # pid and thread in the name: concurrent builds and workers never share a temporary.
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        if isinstance(text, bytes):
            temporary.write_bytes(text)
        else:
            temporary.write_text(text, encoding="utf-8")
        temporary.replace(path)
    except BaseException as err:
        temporary.unlink(missing_ok=True)
        if isinstance(err, OSError):   # a write error names no file: name the one meant
            err.filename = str(path)
        raise


def kept_result(path: Path, key: str, make: Callable[[], Kept]) -> Kept:
    """`make()`, or what an earlier call kept at `path` under the same `key` (its first
    line, then the pickled result). An entry that cannot be read (missing, truncated,
    pickled by other code) or holds another key is made again and replaced; one that
    cannot be written only costs the next call a `make`."""
    head = f"{key}\n".encode()
    try:
        stored = path.read_bytes()
        if stored.startswith(head):
            return pickle.loads(stored[len(head):])
    except Exception:
        pass
    result = make()
    try:
        atomic_write(path, head + pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL))
    except OSError:
        pass
    return result


Fields = Mapping[str, type | tuple[type, ...]]
"""A record's shape: field name -> its type (or types)."""


def conforms(data: Any, fields: Fields) -> bool:
    """Whether `data` is a JSON object whose `fields` are all there, each of its type."""
    return isinstance(data, dict) and all(isinstance(data.get(name), kind)
                                          for name, kind in fields.items())


def read_record(path: Path, fields: Fields = {}) -> dict | None:
    """The JSON object at `path`, or None if it is missing or unreadable, or if one of
    `fields` is absent or not of its type."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):   # UnicodeDecodeError and JSONDecodeError included
        return None
    return record if conforms(record, fields) else None


def write_record(path: Path, record: Mapping) -> None:
    atomic_write(path, json.dumps(record, sort_keys=True, indent=1) + "\n")


def stamp_matches(path: Path, print_: str) -> bool:
    """Whether the stamp at `path` records the fingerprint `print_`."""
    record = read_record(path, {FINGERPRINT: str})
    return record is not None and record[FINGERPRINT] == print_


def write_stamp(path: Path, print_: str, **extra) -> None:
    write_record(path, {FINGERPRINT: print_, **extra})
