"""Live preview: serve a built site on 127.0.0.1, rebuild it when its sources change,
and reload the pages open in a browser.

The server serves the site folder as it is on disk, and adds to every HTML page
it sends (never to the files, which get published) a small script that listens
to ``/__reload`` (Server-Sent Events): after a successful rebuild the page
reloads, keeping its scroll position; after a failed one it shows the located
problems, as the console printed them, until a rebuild succeeds. A prose edit
reloads it sooner, once the caller has drafted the edited page (`show_draft`),
and the rebuild that follows reloads it again only if it changed something else.

Rebuilding is the caller's (cli/main.py runs the usual steps, under the build lock,
only while it rebuilds; cli/preview.py drafts); this module prints nothing: it
tells `events`.
"""
from __future__ import annotations

import contextlib
import html
import http.server
import json
import queue
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Protocol
from urllib.parse import unquote, urlsplit

import watchfiles

from ..bootstrap.errors import BookError
from ..core.language import Language
from ..core.layout import Layout
from .typography import typeset

HOST = "127.0.0.1"
"""The only address the preview listens on: it is for the author's own browser."""
EVENTS_PATH = "/__reload"
SCRIPT_PATH = "/__preview.js"
SCRIPT = Path(__file__).parent / "assets" / "preview.js"
MAX_PORT = 65535
KEEPALIVE_SECONDS = 15.0
"""How often an idle event stream is written to (and a closed one noticed)."""
DRAFT_WAIT = 1.0
"""How long the rebuild after a draft waits for an open page to reload (seconds)."""


def _said(language: Language, key: str, quote: bool) -> str:
    """The catalogue's string `key` in the book's typography, escaped for HTML: as text, or
    (`quote`) as an attribute's value."""
    return html.escape(typeset(language.text(key), language), quote=quote)


def missing_page(language: Language) -> str:
    """The page served for a file the built site lacks, in the book's language."""
    def say(key: str) -> str:
        return _said(language, key, quote=False)
    return (f'<!DOCTYPE html>\n<html lang="{html.escape(language.tag)}"><head>'
            f'<meta charset="utf-8"><title>{say("page_missing")}</title></head>\n'
            f'<body><h1>{say("page_missing")}</h1>\n<p>{say("page_missing_text")}</p>\n'
            "</body></html>\n")


def script_words(language: Language) -> str:
    """The attributes of the preview's script that hold what its panel of problems says,
    in the book's language (assets/preview.js reads them)."""
    return (f' data-problems="{_said(language, "preview_problems", quote=True)}"'
            f' data-failed="{_said(language, "preview_failed", quote=True)}"')


class ServeError(BookError):
    """The preview cannot start (no such port, or it is taken)."""


@dataclass(frozen=True)
class Rebuilt:
    """What one rebuild gave."""
    site: Path | None
    """The folder to serve; None when the rebuild failed (the last one is kept)."""
    errors: tuple[str, ...]
    """What the console printed on stderr, when the rebuild failed; empty when it succeeded."""
    seconds: float
    drafted: float | None = None
    """When the edited pages were drafted (`cli/preview.py`): seconds after the start."""
    reload: bool = True
    """Whether the open pages reload: not when they show the drafts of what was rebuilt."""

    @property
    def ok(self) -> bool:
        return not self.errors


class Events(Protocol):
    """What the preview tells its user (the console)."""

    def serving(self, url: str, site: str, watched: list[str]) -> None: ...

    def rebuilding(self, changed: list[str]) -> None: ...

    def rebuilt(self, rebuilt: Rebuilt, url: str) -> None: ...


class Preview:
    """The state open pages follow: a generation counted up by every successful rebuild,
    and the problems of the last rebuild if it failed."""

    def __init__(self, site: Path):
        self._condition = threading.Condition()
        self.site = site
        self.generation = 0
        self.errors: tuple[str, ...] = ()
        self.closed = False
        self.following = 0
        """The event streams open (one per open page; a closed page's until written to)."""
        self.followed = 0
        """The event streams opened so far."""

    def state(self) -> dict:
        with self._condition:
            return {"generation": self.generation, "errors": list(self.errors)}

    def show_draft(self) -> None:
        """The served site holds drafts of edited pages: open pages reload. Returns once
        one of them follows again (its script runs after its page and style sheet are
        fetched), or after DRAFT_WAIT: the rebuild that comes next holds the interpreter,
        which would slow the server's answers to the browser down."""
        with self._condition:
            self.generation += 1
            self._condition.notify_all()
            if self.following:
                followed = self.followed
                self._condition.wait_for(lambda: self.followed > followed or self.closed,
                                         DRAFT_WAIT)

    @contextlib.contextmanager
    def followed_by_a_page(self) -> Iterator[None]:
        """An event stream open while in the ``with``."""
        with self._condition:
            self.following += 1
            self.followed += 1
            self._condition.notify_all()
        try:
            yield
        finally:
            with self._condition:
                self.following -= 1

    def publish(self, rebuilt: Rebuilt) -> None:
        with self._condition:
            if rebuilt.ok:
                if rebuilt.reload:
                    self.generation += 1
                self.site = rebuilt.site
            self.errors = rebuilt.errors
            self._condition.notify_all()

    def wait(self, seen: dict | None, timeout: float) -> dict | None:
        """The state once it differs from `seen` (or after `timeout`); None once closed."""
        with self._condition:
            self._condition.wait_for(lambda: self.closed or self.state() != seen, timeout)
            return None if self.closed else self.state()

    def close(self) -> None:
        with self._condition:
            self.closed = True
            self._condition.notify_all()


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True   # an open event stream never keeps the process alive
    # The listen backlog: a page's burst of requests (styles, fonts, images) waits in the
    # kernel's queue; beyond it the client would try again only after 1 s, then 3, 7…
    request_queue_size = 128

    def __init__(self, port: int, preview: Preview, language: Language):
        self.preview = preview
        self.missing_page = missing_page(language)
        self.script_words = script_words(language)
        super().__init__((HOST, port), _Handler)

    def handle_error(self, request, client_address) -> None:
        """A browser that leaves while a file is sent is no error; anything else is."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class _Handler(http.server.SimpleHTTPRequestHandler):
    server: _Server

    def __init__(self, request, client_address, server: _Server):
        super().__init__(request, client_address, server, directory=str(server.preview.site))

    def log_message(self, *args) -> None:   # the console shows rebuilds, not requests
        pass

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-cache")   # a rebuilt file is fetched again
        super().end_headers()

    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        if "\0" in unquote(path):   # no file name holds one: the OS would refuse it
            self.send_error(400, "Bad request: a NUL character in the path")
        elif path == EVENTS_PATH:
            self._events()
        elif path == SCRIPT_PATH:
            self._send(200, "text/javascript; charset=utf-8", SCRIPT.read_bytes())
        elif (page := self._page_file(path)) is not None:
            self._page(page)
        else:
            super().do_GET()

    def _page_file(self, path: str) -> Path | None:
        """The HTML file a request asks for; None for any other file (or a folder to
        redirect to with its slash)."""
        file = Path(self.translate_path(path))
        if path.endswith("/"):
            return file / "index.html"
        return file if file.suffix == ".html" else None

    def _page(self, file: Path) -> None:
        """The page with the preview's script; a missing one says so and reloads too."""
        try:   # a damaged page is served damaged (a rebuild makes it again), not as an error
            status, text = 200, file.read_bytes().decode("utf-8", "replace")
        except OSError:   # no such page, a folder, or a name too long for the OS
            status, text = 404, self.server.missing_page
        tag = (f'<script src="{SCRIPT_PATH}" data-generation="{self.server.preview.generation}"'
               f"{self.server.script_words}></script>\n")
        head, body_end, tail = text.rpartition("</body>")
        served = head + tag + body_end + tail if body_end else text + tag
        self._send(status, "text/html; charset=utf-8", served.encode("utf-8"))

    def _send(self, status: int, kind: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _events(self) -> None:
        """The preview's state as Server-Sent Events: now, then at every change."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        state = None
        with self.server.preview.followed_by_a_page():
            while (state := self.server.preview.wait(state, KEEPALIVE_SECONDS)) is not None:
                try:
                    self.wfile.write(f"data: {json.dumps(state)}\n\n".encode())
                    self.wfile.flush()
                except OSError:   # the page was closed or left
                    return


def watch(watched: list[Path], ignored: list[Path], stop: threading.Event) -> queue.Queue:
    """Start watching `watched` (those under `ignored` aside) until `stop` is set; each
    batch of changed paths is put in the queue returned.

    A watched file an editor replaces (written beside it, then renamed over it)
    would no longer be watched: once it changes, it is watched again at once.
    """
    default = watchfiles.DefaultFilter()
    keep = watchfiles.DefaultFilter(ignore_dirs=default.ignore_dirs,
                                    ignore_entity_patterns=default.ignore_entity_patterns,
                                    ignore_paths=[str(p) for p in ignored])
    files = {p for p in watched if p.is_file()}
    found: queue.Queue[set[Path]] = queue.Queue()

    def run() -> None:
        while not stop.is_set():
            # step: a batch is complete after 50 ms without a new change (a save).
            for batch in watchfiles.watch(*(p for p in watched if p.exists()),
                                          watch_filter=keep, step=50, debounce=800,
                                          stop_event=stop):
                paths = {Path(path) for _, path in batch}
                found.put(paths)
                if files & paths:
                    break

    threading.Thread(target=run, daemon=True).start()
    return found


def batches(found: queue.Queue, stop: threading.Event) -> Iterator[list[Path]]:
    """The batches of `found`, until `stop` is set; those put while one is handled are
    handled together next."""
    while not stop.is_set():
        try:
            changed = found.get(timeout=0.5)
        except queue.Empty:
            continue
        while not found.empty():
            changed |= found.get_nowait()
        yield sorted(changed)


def serve(layout: Layout, port: int, site: Path, watched: list[Path],
          rebuild: Callable[[list[Path], Callable[[], None] | None], Rebuilt],
          events: Events, language: Language) -> None:
    """Build, serve `site` on 127.0.0.1:`port` (0: a free port), rebuild whenever a file
    under `watched` changes (the build's own outputs aside: `rebuild` gets the changed
    files, and what to call once it drafted the edited pages, if it may); until Ctrl-C, whose
    KeyboardInterrupt reaches the caller once the server is closed. A page the site lacks
    says so in the book's `language`."""
    if not 0 <= port <= MAX_PORT:
        raise ServeError(f"--port {port}: a port is a number from 0 to {MAX_PORT} "
                         "(0: any free one)")
    preview = Preview(site)
    try:
        server = _Server(port, preview, language)
    except OSError as err:
        raise ServeError(f"cannot listen on {HOST}:{port} ({err.strerror}) — choose another "
                         "port with --port, or --port 0 for any free one") from err
    threading.Thread(target=server.serve_forever, daemon=True).start()
    stop = threading.Event()
    url = f"http://{HOST}:{server.server_address[1]}/"
    try:
        found = watch(watched, [layout.build], stop)   # edits made while it builds count
        preview.publish(rebuild([], preview.show_draft))
        events.serving(url, layout.shown(preview.site), [layout.shown(p) for p in watched])
        for changed in batches(found, stop):
            events.rebuilding([layout.shown(p) for p in changed])
            # After a failed rebuild, the pages show its problems until one succeeds.
            rebuilt = rebuild(changed, None if preview.errors else preview.show_draft)
            preview.publish(rebuilt)
            events.rebuilt(rebuilt, url)
    finally:
        stop.set()
        preview.close()
        server.shutdown()
        server.server_close()
