"""Unit tests of output/used_files.py: a kept page goes into the new site with the files
it uses, and only those of the previous site."""
from __future__ import annotations

from pathlib import Path

from tabbook.output.used_files import LINKED_FILE, SHOWN_FILE, copy_kept


def site_with(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return folder


def test_a_kept_page_brings_the_files_it_shows_and_nothing_outside_the_site(tmp_path):
    outside = site_with(tmp_path, {"secret.txt": "not the site's"}) / "secret.txt"
    page = ('<img src="../_images/a.png"><img src="../_images/a.png">'
            '<script src="../_static/book.js"></script><img src="../../secret.txt">'
            f'<img src="{outside}"><img src="missing.png"><img src="https://x.org/b.png">'
            '<a href="other.html">')
    previous = site_with(tmp_path / "site", {
        "chap/sec.html": page, "_images/a.png": "png", "_static/book.js": "js",
        "chap/other.html": "<p>other</p>"})
    staging = site_with(tmp_path / "site.new", {"_static/book.js": "new js"})
    copy_kept("chap/sec.html", previous, staging, used=SHOWN_FILE)
    assert (staging / "chap" / "sec.html").samefile(previous / "chap" / "sec.html")
    assert (staging / "_images" / "a.png").read_text() == "png"
    assert (staging / "_static" / "book.js").read_text() == "new js"   # what staging has stays
    # Only what the page shows: a link is not a file it uses; nothing from outside the site.
    assert sorted(p.relative_to(staging).as_posix() for p in staging.rglob("*")
                  if p.is_file()) == ["_images/a.png", "_static/book.js", "chap/sec.html"]
    # A deck is kept with what it links to as well.
    decks = site_with(tmp_path / "decks.new", {})
    copy_kept("chap/sec.html", previous, decks, used=LINKED_FILE)
    assert sorted(p.relative_to(decks).as_posix() for p in decks.rglob("*") if p.is_file()) \
        == ["_images/a.png", "_static/book.js", "chap/other.html", "chap/sec.html"]
