"""The build's virtual environments: kept whoever launches the build, set up by one build
at a time, and a failure that says what failed. Each test sets up a throwaway environment
in a temporary book, never this checkout's .envs; without pip (ensurepip alone takes
seconds) where pip is not what is tested."""
from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from conftest import REPO
from tabbook.bootstrap import environments
from tabbook.bootstrap.environments import (ENVS_DIR, EnvironmentSetupError, ensure_env,
                                            pip_install, run_in_tools_env)
from test_errors import refuse_writes_under

@pytest.fixture
def book(tmp_path, monkeypatch) -> Path:
    """A book root whose requirements/tiny.txt pins nothing; pip's own settings and the
    build's (a wheelhouse, the current python) are left out."""
    root = tmp_path / "book"
    (root / "requirements").mkdir(parents=True)
    (root / "requirements" / "tiny.txt").write_text("# nothing pinned\n")
    for name in [n for n in os.environ if n.startswith("PIP_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.delenv(environments.WHEELHOUSE, raising=False)
    monkeypatch.delenv(environments.USE_CURRENT_PYTHON, raising=False)
    builder = venv.EnvBuilder   # as the build calls it, but without ensurepip
    monkeypatch.setattr(venv, "EnvBuilder",
                        lambda **options: builder(**{**options, "with_pip": False}))
    return root


@pytest.fixture
def pip_calls(monkeypatch) -> list[tuple]:
    """The pip installs the build asks for, recorded instead of run."""
    calls = []
    monkeypatch.setattr(environments, "pip_install", lambda *arguments, **_: calls.append(arguments))
    return calls


def files_of(folder: Path) -> dict[Path, int]:
    """Every file and folder under `folder` -> its modification time."""
    return {p: p.lstat().st_mtime_ns for p in folder.rglob("*")}


def test_an_environment_is_kept_whatever_python_launches_the_build(book, pip_calls,
                                                                   monkeypatch, capsys):
    """Another interpreter (/usr/bin/python3 after pyenv's python3) launching build.py
    keeps the environment its own python still runs, writing nothing: a read-only
    .envs just works."""
    python = ensure_env(book, "tiny")
    assert "tiny environment ready" in capsys.readouterr().out and pip_calls
    before = files_of(book / ENVS_DIR)
    pip_calls.clear()
    monkeypatch.setattr(sys, "version", "3.11.2 (main, Mar 13 2023, 12:18:29) [GCC 12.2.0]")
    refuse_writes_under(book / ENVS_DIR, monkeypatch)
    assert ensure_env(book, "tiny") == python
    assert "setting up" not in capsys.readouterr().out and not pip_calls
    assert files_of(book / ENVS_DIR) == before


def test_an_environment_to_set_up_again_in_a_read_only_folder_is_a_clear_error(
        book, pip_calls, monkeypatch):
    python = ensure_env(book, "tiny")
    (book / "requirements" / "tiny.txt").write_text("# nothing pinned, still\n")
    before = files_of(book / ENVS_DIR)
    refuse_writes_under(book / ENVS_DIR, monkeypatch)
    with pytest.raises(EnvironmentSetupError) as error:
        ensure_env(book, "tiny")
    assert str(error.value).startswith(
        f"cannot set up the tiny environment in {book / ENVS_DIR / 'tiny'}: cannot write "
        f"{book / ENVS_DIR / 'tiny.lock'}: read-only file system"), error.value
    assert files_of(book / ENVS_DIR) == before
    assert subprocess.run([python, "-c", "pass"]).returncode == 0


def test_an_environment_whose_python_no_longer_runs_is_set_up_again(book, pip_calls, capsys):
    """Its base interpreter removed: its stamp still matches, yet it is set up again."""
    python = ensure_env(book, "tiny")
    python.unlink()
    python.write_text("#!/bin/sh\nexit 127\n")
    python.chmod(0o755)
    capsys.readouterr()
    assert ensure_env(book, "tiny") == python
    assert "setting up the tiny environment" in capsys.readouterr().out
    assert subprocess.run([python, "-c", "pass"]).returncode == 0


# A build that sets up .envs/tiny in the book argv[2]: without ensurepip, its pip
# installs taking a second each.
SET_UP = """
import sys, time, venv
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from tabbook.bootstrap import environments
builder = venv.EnvBuilder
venv.EnvBuilder = lambda **options: builder(**{**options, "with_pip": False})
environments.pip_install = lambda *arguments, **_: time.sleep(1)
print(environments.ensure_env(Path(sys.argv[2]), "tiny"))
"""


def test_two_builds_set_up_an_environment_once(book):
    """The second waits for the first, says so, then uses what the first set up."""
    command = [sys.executable, "-u", "-c", SET_UP, str(REPO), str(book)]
    first = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True)
    started = first.stdout.readline()
    assert "setting up the tiny environment" in started, started
    second = subprocess.run(command, capture_output=True, text=True, timeout=120)
    first_output = started + first.stdout.read()
    assert first.wait(timeout=120) == 0 and second.returncode == 0, \
        first_output + second.stdout + second.stderr
    python = str(book / ENVS_DIR / "tiny" / "bin" / "python")
    assert second.stdout.splitlines() == [
        f"waiting for another build, which is setting up {book / ENVS_DIR / 'tiny'}...", python]
    assert first_output.splitlines()[-1] == python


def test_a_failed_setup_blames_the_network_only_when_pip_could_not_reach_it(book, monkeypatch,
                                                                           capsys):
    # An environment without pip, as where ensurepip is missing: not a network problem.
    (book / "requirements" / "tools.txt").write_text("# nothing pinned\n")
    with pytest.raises(SystemExit) as exit_:
        run_in_tools_env(book, ["check"])
    message = str(exit_.value.code)
    log = book / ENVS_DIR / "tools.log"
    assert "network" not in message, message
    assert message.startswith("error: setting up the tools environment failed: ")
    assert message.endswith(f"No module named pip (pip's whole output: {log}) — fix the cause "
                            "it names, then run the command again"), message
    # What pip said is in the environment's log, not on the console: one line there.
    assert "No module named pip" in log.read_text()
    shown = capsys.readouterr()
    assert "No module named pip" not in shown.out + shown.err
    assert shown.out.splitlines() == [
        "setting up the tools environment in .envs/tools (from requirements/tools.txt; once, or "
        "when it changes; pip's output in .envs/tools.log)..."]

    # pip retrying an index nothing answers at.
    monkeypatch.setenv("PIP_INDEX_URL", "http://127.0.0.1:9/simple")
    monkeypatch.setenv("PIP_RETRIES", "1")
    with pytest.raises(subprocess.CalledProcessError) as failed:
        pip_install(sys.executable, "--dry-run", "--ignore-installed", "--no-deps", "six==1.17.0")
    message = str(environments._setup_failure("tools", failed.value))
    assert "No matching distribution found for six==1.17.0" in message
    assert "check this machine's network access to PyPI" in message, message


# -- npm packages (axe-core, reveal.js), fetched without npm ------------------------------
def _tarball(files: dict[str, bytes]) -> bytes:
    import io
    import tarfile

    written = io.BytesIO()
    with tarfile.open(fileobj=written, mode="w:gz") as tar:
        for name, data in files.items():
            member = tarfile.TarInfo(f"package/{name}")
            member.size = len(data)
            tar.addfile(member, io.BytesIO(data))
    return written.getvalue()


TARBALL = _tarball({"dist/kept.js": b"kept", "dist/theme/a.css": b"a", "dist/theme/b.css": b"b",
                    "src/left.js": b"left out"})


def _package(tarball: bytes) -> environments.NpmFiles:
    import base64
    import hashlib

    integrity = "sha512-" + base64.b64encode(hashlib.sha512(tarball).digest()).decode()
    return environments.NpmFiles("tiny", "1.0.0", integrity, ("dist/kept.js", "dist/theme"),
                                 "the tests")


@pytest.fixture
def downloads(tmp_path, monkeypatch) -> list[str]:
    """The URLs asked of the (stand-in) npm registry, which serves `TARBALL`; the tools'
    folder is a temporary one."""
    import io
    import urllib.request

    asked: list[str] = []

    def urlopen(url, timeout):
        asked.append(url)
        return io.BytesIO(TARBALL)
    monkeypatch.setattr(urllib.request, "urlopen", urlopen)
    monkeypatch.setattr(environments, "TOOL_ROOT", tmp_path)
    return asked


def test_an_npm_package_is_downloaded_once_and_only_its_kept_files_stay(downloads, tmp_path):
    package = _package(TARBALL)
    folder = environments.ensure_npm_files(package)
    assert folder == tmp_path / ENVS_DIR / "tiny-1.0.0"
    assert sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()) \
        == ["dist/kept.js", "dist/theme/a.css", "dist/theme/b.css"]
    assert downloads == ["https://registry.npmjs.org/tiny/-/tiny-1.0.0.tgz"]
    assert environments.ensure_npm_files(package) == folder   # offline: no second download
    assert len(downloads) == 1
    assert [p.name for p in folder.parent.iterdir()] == ["tiny-1.0.0"]   # no staging left


def test_an_altered_npm_download_is_refused_and_nothing_is_kept(downloads, tmp_path):
    package = _package(TARBALL + b"altered")
    with pytest.raises(RuntimeError, match="integrity .* differs from the pinned"):
        environments.ensure_npm_files(package)
    assert not (tmp_path / ENVS_DIR).exists()


def test_an_npm_package_out_of_reach_says_where_to_put_it(tmp_path, monkeypatch):
    import urllib.request

    def unreachable(url, timeout):
        raise OSError("Temporary failure in name resolution")
    monkeypatch.setattr(urllib.request, "urlopen", unreachable)
    monkeypatch.setattr(environments, "TOOL_ROOT", tmp_path)
    with pytest.raises(RuntimeError, match=r"could not download tiny 1\.0\.0 .* the tests need "
                                           r"it once.* put that version's dist/kept\.js, "
                                           r"dist/theme in .*tiny-1\.0\.0"):
        environments.ensure_npm_files(_package(TARBALL))
