"""Weight of each page of the HTML book, as Chromium loads it (budget: 200 KB, images aside).

Run by hand after `python3 build.py`: `.envs/tools/bin/python benchmarks/html_weight.py
[SITE]` (default `_build/html`). Each page is served on 127.0.0.1 and loaded in Debian's
Chromium; the bytes of every response but images are summed. The search page is
measured with a query typed, so Pagefind's index and WebAssembly count too.
"""
from __future__ import annotations

import functools
import http.server
import sys
import threading
from pathlib import Path

from playwright.sync_api import sync_playwright

REPO = Path(__file__).resolve().parents[1]
BUDGET = 200 * 1024


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def main() -> int:
    site = Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "_build" / "html"
    handler = functools.partial(QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    pages = sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html")
                   if not p.relative_to(site).as_posix().startswith("pagefind/"))
    rows = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium",
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        for name in pages:
            page = browser.new_page()
            sizes = {"document": 0, "stylesheet": 0, "script": 0, "other": 0, "image": 0}

            def count(response, sizes=sizes):
                kind = response.request.resource_type
                try:
                    size = len(response.body())
                except Exception:   # redirects and aborted requests have no body
                    size = 0
                sizes[kind if kind in sizes else "other"] += size
            page.on("response", count)
            url = f"{base}/{name}" + ("?q=processeur" if name == "search.html" else "")
            page.goto(url)
            page.wait_for_load_state("networkidle")
            if name == "search.html":
                page.locator("#search-results a").first.wait_for(timeout=15000)
                page.wait_for_load_state("networkidle")
            page.close()
            rows.append((name, sizes))
        browser.close()
    server.shutdown()
    print(f"{'page':<42} {'html':>8} {'css':>8} {'js':>8} {'other':>8} {'total':>9} "
          f"{'images':>9}")
    for name, s in rows:
        total = s["document"] + s["stylesheet"] + s["script"] + s["other"]
        print(f"{name:<42} {s['document']:>8} {s['stylesheet']:>8} {s['script']:>8} "
              f"{s['other']:>8} {total:>9} {s['image']:>9}")
    heaviest_name, heaviest = max(
        rows, key=lambda r: sum(v for k, v in r[1].items() if k != "image"))
    total = sum(v for k, v in heaviest.items() if k != "image")
    print(f"heaviest page: {heaviest_name}, {total / 1024:.1f} KB without images "
          f"(budget {BUDGET // 1024} KB: {'within' if total <= BUDGET else 'OVER'})")
    return 0 if total <= BUDGET else 1


if __name__ == "__main__":
    sys.exit(main())
