"""kept_result: a result kept in a file under its key, made again whenever it cannot be
taken from there."""
from __future__ import annotations

from tabbook.bootstrap.records import kept_result


def maker(made: list, value):
    return lambda: made.append(value) or value


def test_a_result_is_made_once_then_taken_while_its_key_holds(tmp_path):
    made = []
    entry = tmp_path / "cache" / "entry"
    assert kept_result(entry, "k1", maker(made, {"a": 1})) == {"a": 1}
    assert kept_result(entry, "k1", maker(made, "not called")) == {"a": 1}
    assert kept_result(entry, "k2", maker(made, [2])) == [2]   # another key: made, replaced
    assert kept_result(entry, "k2", maker(made, "not called")) == [2]
    assert made == [{"a": 1}, [2]]


def test_a_damaged_entry_is_made_again(tmp_path):
    entry = tmp_path / "entry"
    kept_result(entry, "k", lambda: "first")
    entry.write_bytes(entry.read_bytes()[:-3])   # truncated
    assert kept_result(entry, "k", lambda: "again") == "again"
    assert kept_result(entry, "k", lambda: "not called") == "again"


def test_an_entry_that_cannot_be_written_only_costs_the_making(tmp_path):
    (tmp_path / "file").write_text("not a folder")
    made = []
    assert kept_result(tmp_path / "file" / "entry", "k", maker(made, 1)) == 1
    assert kept_result(tmp_path / "file" / "entry", "k", maker(made, 1)) == 1
    assert made == [1, 1]
