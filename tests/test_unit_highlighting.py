"""highlight_code and its cache: Pygments' HTML kept between commands, by source."""
from __future__ import annotations

import pytest

from tabbook.output import highlighting
from tabbook.output.highlighting import VERSION, highlight_code, keep_highlighted

SOURCE = "x = torch.ones(3)  # un commentaire\n"


@pytest.fixture(autouse=True)
def fresh(monkeypatch):
    """No cache kept and no block memorised, before and after each test."""
    monkeypatch.setattr(highlighting, "_kept_in", None)
    highlight_code.cache_clear()
    yield
    highlight_code.cache_clear()


def entries(cache):
    return sorted(path.name for path in (cache / VERSION).iterdir())


def test_a_block_is_highlighted_escaped_with_its_search_terms():
    html = highlight_code("a < b and torch.no_grad()\n")
    assert html.startswith('<pre class="code highlight" data-lang="python"')
    assert "&lt;" in html and "no_grad" in html.split("data-search-terms=")[1]


def test_a_block_is_kept_and_read_back_in_a_later_command(tmp_path):
    keep_highlighted(tmp_path)
    first = highlight_code(SOURCE)
    [entry] = entries(tmp_path)
    # A later command (its memory empty) reads the file instead of highlighting.
    highlight_code.cache_clear()
    (tmp_path / VERSION / entry).write_text('<span class="n">kept</span>', encoding="utf-8")
    assert 'class="n">kept<' in highlight_code(SOURCE) and "kept" not in first


def test_the_language_is_part_of_the_key(tmp_path):
    keep_highlighted(tmp_path)
    highlight_code(SOURCE)
    highlight_code(SOURCE, "text")
    assert len(entries(tmp_path)) == 2


def test_other_versions_are_removed_and_a_full_folder_is_emptied(tmp_path, monkeypatch):
    (tmp_path / "an-old-version").mkdir()
    (tmp_path / "an-old-version" / "block").write_text("old")
    keep_highlighted(tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == [VERSION]
    for n in range(3):
        highlight_code(f"x = {n}\n")
    monkeypatch.setattr(highlighting, "KEPT_AT_MOST", 2)
    keep_highlighted(tmp_path)
    assert entries(tmp_path) == []


def test_a_folder_that_cannot_be_written_only_costs_the_highlighting(tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    keep_highlighted(blocked)
    assert highlighting._kept_in is None
    assert "torch" in highlight_code(SOURCE)
