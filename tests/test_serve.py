"""The live preview (`build.py serve`): a real server on a small book, real kernels, pages
open in Debian's Chromium that follow the edits of the sources by themselves."""
from __future__ import annotations

import fcntl
import json
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from conftest import CONFIG, Visitor, md, with_build_system, write_book
from tabbook.core.language import language_of
from tabbook.output.serve import Preview, _Server
from test_execute import alive, kernels_of

SECTION = "chapters/chap/sec.md"
FILLER = "\n\n".join(f"Paragraphe de remplissage numéro {n}, pour que la page défile."
                     for n in range(60))


def section_text(prose: str = "Le texte de départ.", code: str = "print(6 * 7)",
                 tab_block: str = ":begin_tab:`pytorch`\nPour PyTorch seulement.\n:end_tab:"
                 ) -> str:
    return md("""
        ```{.python .input}
        %load_ext d2lbook.tab
        tab.interact_select(['pytorch'])
        ```
        """, "# Une section à prévisualiser", prose, tab_block,
        f"```{{.python .input}}\n{code}\n```", FILLER, "Le mot rarissime zygopétale.")


def line_of(text: str, start: str) -> int:
    return next(n for n, line in enumerate(text.split("\n"), 1) if line.startswith(start))


TABS = ("pytorch", "mxnet")
"""The book's frameworks: its section runs PyTorch only, its index pages (no code) both."""


@pytest.fixture(scope="module")
def pythons(framework_pythons) -> list[str]:
    """--python options for the managed interpreters (created on first use)."""
    return [f"--python={tab}={framework_pythons[tab]}" for tab in TABS]


def make_project(root: Path) -> Path:
    """A small book with the build system beside it (a d2l stub per framework)."""
    with_build_system(root)
    config = CONFIG.replace("tabs = pytorch, mxnet, tensorflow", "tabs = " + ", ".join(TABS)) \
        .replace("[library-tensorflow]\nlib_file = d2l/tensorflow.py\n", "")
    return write_book(root, {"chap/sec.md": section_text()},
                      config.replace("[launch]", "[execute]\ntimeout = 60\n\n[launch]"))


class Server:
    """`build.py serve --port 0` running on a book; its output read as it comes."""

    def __init__(self, root: Path, pythons: list[str], *options: str):
        self.root = root
        env = dict(os.environ, TABBOOK_USE_CURRENT_PYTHON="1")
        self.process = subprocess.Popen(
            [sys.executable, str(root / "build.py"), "serve", "--port", "0", *pythons,
             *options],
            cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.lines: queue.Queue[str] = queue.Queue()
        self.stdout: list[str] = []
        self.stderr: list[str] = []
        for stream, kept in ((self.process.stdout, self.stdout),
                             (self.process.stderr, self.stderr)):
            threading.Thread(target=self._read, args=(stream, kept), daemon=True).start()
        found = self.wait_for(r"serve: (http://127\.0\.0\.1:\d+/) serves ", timeout=300)
        self.url = found.group(1)
        self.port = int(self.url.rsplit(":", 1)[1].strip("/"))

    def _read(self, stream, kept: list[str]) -> None:
        for line in stream:
            kept.append(line)
            self.lines.put(line)

    def wait_for(self, pattern: str, timeout: float = 120) -> re.Match:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.5)
            except queue.Empty:
                if self.process.poll() is not None and self.lines.empty():
                    break
                continue
            if found := re.search(pattern, line):
                return found
        raise AssertionError(f"no line matching {pattern!r} in:\n"
                             + "".join(self.stdout) + "".join(self.stderr))

    def settle(self, quiet: float = 2.0) -> None:
        """Once it rebuilds nothing: its lock free and nothing printed for `quiet` seconds
        (what it printed before is not waited for)."""
        while True:
            try:
                self.lines.get(timeout=quiet)
            except queue.Empty:
                if lock_is_free(self.root):
                    return

    def get(self, path: str) -> tuple[int, str]:
        try:
            with urllib.request.urlopen(self.url + path, timeout=10) as response:
                return response.status, response.read().decode("utf-8")
        except urllib.error.HTTPError as err:
            return err.code, err.read().decode("utf-8")

    def interrupt(self) -> tuple[str, str]:
        """Ctrl-C; what it printed."""
        self.process.send_signal(signal.SIGINT)
        self.process.wait(timeout=60)
        time.sleep(0.2)   # the readers reach the end of the pipes
        return "".join(self.stdout), "".join(self.stderr)

    def stop(self) -> None:
        """Ctrl-C if still running; killed if that does not stop it."""
        if self.process.poll() is None:
            try:
                self.interrupt()
            finally:
                self.process.kill()
                self.process.wait()


@pytest.fixture(scope="module")
def served(tmp_path_factory, pythons):
    """One server on one book for the tests that edit it (each restores the section)."""
    server = Server(make_project(tmp_path_factory.mktemp("served")), pythons)
    yield server
    server.stop()


def edit(root: Path, text: str) -> None:
    (root / SECTION).write_text(text, encoding="utf-8")


def open_page(make_visitor, server: Server) -> Visitor:
    browse = make_visitor()
    browse.page.goto(server.url + "chap/sec.html")
    # The page follows the server once its event stream is open.
    browse.page.wait_for_selector("html[data-preview=following]", state="attached")
    return browse


def lock_is_free(root: Path) -> bool:
    with open(root / "_build" / ".lock", "w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        fcntl.flock(handle, fcntl.LOCK_UN)
        return True


# -- following the edits ---------------------------------------------------------------

@pytest.mark.browser
@pytest.mark.kernels
def test_a_prose_edit_shows_in_the_open_page_at_the_same_place(served, visitor):
    browse = open_page(visitor, served)
    page = browse.page
    assert page.locator("text=Le texte de départ.").is_visible()
    page.evaluate("window.scrollTo(0, 900)")
    page.evaluate("window.notReloaded = true")
    edit(served.root, section_text(prose="Le texte corrigé, tout neuf."))
    # The test never reloads the page: it reloads by itself.
    page.wait_for_selector("text=Le texte corrigé, tout neuf.", timeout=30_000)
    page.wait_for_load_state("load")
    assert page.evaluate("window.notReloaded") is None
    page.wait_for_function("() => Math.abs(window.scrollY - 900) < 2", timeout=5_000)
    assert not page.locator("#preview-problems").count()
    assert not browse.errors and not browse.outside
    edit(served.root, section_text())
    page.wait_for_selector("text=Le texte de départ.", timeout=30_000)


def events_of(server: Server) -> queue.Queue:
    """The states the preview sends to an open page, as its event stream receives them."""
    found: queue.Queue[dict] = queue.Queue()

    def read() -> None:
        with urllib.request.urlopen(server.url + "__reload", timeout=120) as stream:
            for line in stream:
                if line.startswith(b"data: "):
                    found.put(json.loads(line[len(b"data: "):]))

    threading.Thread(target=read, daemon=True).start()
    return found


def generations(states: queue.Queue) -> list[int]:
    """The generations received so far."""
    received = []
    while not states.empty():
        received.append(states.get_nowait()["generation"])
    return received


@pytest.mark.kernels
def test_a_prose_edit_is_drafted_first_and_reloads_the_open_pages_once(served):
    served.settle()   # the rebuild after another test's last edit
    states = events_of(served)
    generation = states.get(timeout=10)["generation"]
    edit(served.root, section_text(prose="Une phrase montrée en brouillon."))
    # The page drafted, then the whole site rebuilt: it made the same page, so the open
    # pages, reloaded once for the draft, are not reloaded again.
    served.wait_for(r"serve: rebuilt in [\d.]+ s, edited page shown after [\d.]+ s — ")
    assert "Une phrase montrée en brouillon." in served.get("chap/sec.html")[1]
    assert generations(states) == [generation + 1]
    # Code edited: its outputs must come from a run, so the page waits for the rebuild.
    edit(served.root, section_text(prose="Une phrase montrée en brouillon.",
                                   code="print(6 * 8)"))
    served.wait_for(r"serve: rebuilt in [\d.]+ s — ")
    assert "48" in served.get("chap/sec.html")[1]
    assert generations(states) == [generation + 2]
    edit(served.root, section_text())
    served.wait_for(r"serve: rebuilt in ")


@pytest.mark.kernels
def test_the_reload_script_is_in_the_served_pages_only(served):
    status, served_page = served.get("chap/sec.html")
    assert status == 200 and "/__preview.js" in served_page
    built = served.root / "_build" / "html"
    assert (built / "chap" / "sec.html").is_file()
    assert not [p for p in built.rglob("*") if p.is_file() and b"__preview" in p.read_bytes()]


@pytest.mark.browser
@pytest.mark.kernels
def test_a_source_error_shows_in_the_page_located_until_fixed(served, visitor):
    browse = open_page(visitor, served)
    page = browse.page
    broken = section_text(tab_block=":begin_tab:`pytorch`\nPour PyTorch, sans fin.")
    edit(served.root, broken)
    problems = page.locator("#preview-problems")
    problems.wait_for(state="visible", timeout=30_000)
    line = line_of(broken, ":begin_tab:")
    assert f"{SECTION}:{line}:" in problems.inner_text()
    assert ":begin_tab:" in problems.inner_text() and "La construction a échoué" in \
        problems.inner_text()
    # The server lives on and still serves the last good book.
    assert served.process.poll() is None
    assert served.get("index.html")[0] == 200
    assert "Pour PyTorch seulement." in served.get("chap/sec.html")[1]
    edit(served.root, section_text(prose="Réparé : le texte revient."))
    page.wait_for_selector("text=Réparé : le texte revient.", timeout=30_000)
    assert not problems.count() or not problems.is_visible()
    edit(served.root, section_text())
    page.wait_for_selector("text=Le texte de départ.", timeout=30_000)


@pytest.mark.browser
@pytest.mark.kernels
def test_a_failing_cell_shows_in_the_page_at_its_md_line(served, visitor):
    browse = open_page(visitor, served)
    page = browse.page
    failing = section_text(code="print(1 / 0)")
    edit(served.root, failing)
    problems = page.locator("#preview-problems")
    problems.wait_for(state="visible", timeout=120_000)
    line = line_of(failing, "print(1 / 0)")
    assert re.search(rf"{SECTION}:{line} \[pytorch\] cell 1: ZeroDivisionError",
                     problems.inner_text()), problems.inner_text()
    edit(served.root, section_text())   # the cached good result comes back
    page.wait_for_selector("#preview-problems", state="detached", timeout=120_000)
    assert page.locator(".outputs").inner_text().strip() == "42"


@pytest.mark.browser
@pytest.mark.kernels
def test_config_ini_saved_by_renaming_stays_watched(served, visitor):
    """Editors often save by writing a new file and renaming it over the old one."""
    page = open_page(visitor, served).page
    config = served.root / "config.ini"
    original = config.read_text(encoding="utf-8")
    for title in ("Un livre renommé", "Un livre renommé deux fois", "Un livre de test"):
        temporary = config.with_name(".config.ini.new")
        temporary.write_text(original.replace("title = Un livre de test", f"title = {title}"),
                             encoding="utf-8")
        os.replace(temporary, config)
        page.wait_for_selector(f'.book-title:text-is("{title}")', timeout=30_000)


@pytest.mark.browser
@pytest.mark.kernels
def test_search_finds_a_word_of_the_served_book(served, visitor):
    browse = visitor()
    browse.page.goto(served.url + "search.html?q=zygop%C3%A9tale")
    results = browse.page.locator("#search-results a")
    results.first.wait_for(timeout=20_000)
    # The result leads to the heading the word is under, on its page.
    assert results.first.get_attribute("href").split("#")[0].endswith("chap/sec.html")
    assert not browse.errors


# -- the server itself ------------------------------------------------------------------

@pytest.mark.kernels
def test_the_server_listens_on_127_0_0_1_only(served):
    port = f"{served.port:04X}"
    listening = [line.split()[1] for name in ("/proc/net/tcp", "/proc/net/tcp6")
                 if Path(name).exists()
                 for line in Path(name).read_text().split("\n")[1:]
                 if line.split() and line.split()[1].endswith(":" + port)
                 and line.split()[3] == "0A"]
    assert listening == [f"0100007F:{port}"]
    # Another address of this machine, loopback too, is refused.
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.1.1", served.port), timeout=5)


@pytest.mark.kernels
def test_a_taken_port_is_a_clear_error(served, pythons):
    env = dict(os.environ, TABBOOK_USE_CURRENT_PYTHON="1")
    result = subprocess.run([sys.executable, str(served.root / "build.py"), "serve", "--port",
                             str(served.port), *pythons],
                            cwd=served.root, env=env, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 1
    assert f"error: cannot listen on 127.0.0.1:{served.port}" in result.stderr
    assert "--port" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.browser
@pytest.mark.kernels
def test_a_book_broken_from_the_start_is_served_once_fixed(tmp_path, pythons, visitor):
    root = make_project(tmp_path)
    broken = section_text(tab_block=":begin_tab:`pytorch`\nPour PyTorch, sans fin.")
    edit(root, broken)
    server = Server(root, pythons)
    try:
        page = visitor().page
        page.goto(server.url + "chap/sec.html")
        problems = page.locator("#preview-problems")
        problems.wait_for(state="visible", timeout=30_000)
        assert f"{SECTION}:{line_of(broken, ':begin_tab:')}:" in problems.inner_text()
        assert page.locator("h1").inner_text() == "Page introuvable"
        edit(root, section_text())
        page.wait_for_selector("text=Le texte de départ.", timeout=60_000)
        assert not problems.count()
    finally:
        server.stop()


@pytest.mark.browser
@pytest.mark.kernels
def test_one_framework_and_ctrl_c(tmp_path, pythons, visitor):
    server = Server(make_project(tmp_path), pythons, "--tab", "pytorch")
    try:
        assert "serves _build/html-pytorch/" in "".join(server.stdout)
        browse = open_page(visitor, server)
        assert browse.page.locator("#framework-select").count() == 0
        assert lock_is_free(tmp_path), "an idle preview holds no lock"
        stdout, stderr = server.interrupt()
    finally:
        server.stop()
    assert server.process.returncode == 0, stdout + stderr
    assert "serve: stopped" in stdout
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr, stderr
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", server.port), timeout=5)
    assert lock_is_free(tmp_path)


@pytest.mark.kernels
def test_ctrl_c_while_a_cell_runs_stops_its_kernel(tmp_path, pythons):
    server = Server(make_project(tmp_path), pythons)
    flag, running = tmp_path / "slow", tmp_path / "running"
    flag.write_text("")
    try:
        edit(tmp_path, section_text(code=f"import os, time\nopen({str(running)!r}, 'w').close()"
                                         f"\nwhile os.path.exists({str(flag)!r}):"
                                         "\n    time.sleep(0.1)"))
        server.wait_for("serve: .*sec.md changed, rebuilding")
        deadline = time.monotonic() + 120
        while not running.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        kernels = kernels_of(server.process.pid)
        assert running.exists() and kernels, "the edited cell should be running"
        assert not lock_is_free(tmp_path), "a rebuild holds the lock"
        stdout, stderr = server.interrupt()
    finally:
        server.stop()
        flag.unlink()
    assert server.process.returncode == 0, stdout + stderr
    assert "Traceback" not in stderr, stderr
    assert "serve: stopped" in stdout
    time.sleep(1)
    assert not any(alive(pid) for pid in kernels)
    assert lock_is_free(tmp_path)


def test_a_port_out_of_range_is_a_usage_error(tmp_path):
    root = make_project(tmp_path)
    env = dict(os.environ, TABBOOK_USE_CURRENT_PYTHON="1")
    for port in ("99999", "-1"):
        result = subprocess.run([sys.executable, str(root / "build.py"), "serve", "--port", port],
                                cwd=root, env=env, capture_output=True, text=True, timeout=120)
        assert result.returncode == 1, result.stderr
        assert f"error: --port {port}: a port is a number from 0 to 65535" in result.stderr
        assert "Traceback" not in result.stderr
    assert not (root / "_build").exists()   # refused before building anything


@pytest.fixture
def quiet_server(tmp_path):
    """The preview's server on a two-page site (no build); its URL."""
    (tmp_path / "index.html").write_text("<html><body><p>Accueil</p></body></html>")
    (tmp_path / "damaged.html").write_bytes(b"<p>caf\xe9</p></body>")   # not UTF-8
    server = _Server(0, Preview(tmp_path), language_of("fr")[0])
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def status_of(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as err:
        return err.code


def test_odd_urls_get_an_error_status_and_no_traceback(quiet_server, capsys):
    statuses = {path: status_of(quiet_server + path) for path in (
        "/%00", "/index.html%00", "/a%00b.html", "/%00/", "/..%2f..%2fetc%2fpasswd",
        "/../../etc/passwd", "/%ff.html", "/%ff", "/%zz", "/damaged.html", "/index.html")}
    assert statuses == {"/%00": 400, "/index.html%00": 400, "/a%00b.html": 400, "/%00/": 400,
                        "/..%2f..%2fetc%2fpasswd": 404, "/../../etc/passwd": 404,
                        "/%ff.html": 404, "/%ff": 404, "/%zz": 404, "/damaged.html": 200,
                        "/index.html": 200}
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("lang, title, text, problems, failed", [
    ("en", "Page not found", "This page does not exist (yet) in the built book.",
     "Build errors", "The build failed: this page shows the last version built."),
    ("fr", "Page introuvable", "Cette page n'existe pas (encore) dans le livre construit.",
     "Erreurs de construction", "La construction a échoué\u202f: cette page montre"),
])
def test_a_missing_page_says_so_in_the_book_s_language(tmp_path, lang, title, text, problems,
                                                       failed):
    server = _Server(0, Preview(tmp_path), language_of(lang)[0])
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with pytest.raises(urllib.error.HTTPError) as missing:
            urllib.request.urlopen(f"http://127.0.0.1:{server.server_address[1]}/x.html",
                                   timeout=10)
        page = missing.value.read().decode("utf-8")
    finally:
        server.shutdown()
        server.server_close()
    assert missing.value.code == 404
    assert f'<html lang="{lang}">' in page and f"<h1>{title}</h1>" in page and text in page
    assert "__preview.js" in page   # it reloads itself once a build makes it
    # What the script's panel says if a rebuild fails, in the book's language too.
    assert f'data-problems="{problems}"' in page and f'data-failed="{failed}' in page


def test_an_overlong_path_is_a_404_without_traceback(quiet_server, capsys):
    long = "/" + "a" * 10_000   # longer than any file name the OS takes (ENAMETOOLONG)
    statuses = {path: status_of(quiet_server + path) for path in (
        long + ".html", long + "/", long, "/" + "b/" * 3000 + "c.html")}
    assert set(statuses.values()) == {404}, statuses
    assert capsys.readouterr().err == ""


def test_a_burst_of_connections_is_queued_not_dropped(tmp_path):
    (tmp_path / "index.html").write_text("<html><body><p>Accueil</p></body></html>")
    with _Server(0, Preview(tmp_path), language_of("fr")[0]) as server:   # closed at the end
        # Before the server accepts any: the kernel's queue holds them all, none is dropped
        # (a dropped one would be tried again by the client only after 1 s, then 3, 7…).
        burst = [socket.create_connection(server.server_address, timeout=0.5)
                 for _ in range(100)]
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            for connection in burst:
                connection.sendall(b"GET /index.html HTTP/1.0\r\n\r\n")
            for connection in burst:
                with connection, connection.makefile("rb") as response:
                    assert response.readline().startswith(b"HTTP/1.0 200")
        finally:
            server.shutdown()
