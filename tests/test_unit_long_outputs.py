"""Unit tests of notebooks/long_outputs.py: outputs too long to publish whole are shown
cut, their beginning and end around a notice."""
from __future__ import annotations

import nbformat

from tabbook.core.language import language_of
from tabbook.notebooks.long_outputs import (KEPT, LIMIT, Cut, cut, cut_outputs, long_outputs,
                                            merged_streams, output_text, shown_data)

v4 = nbformat.v4
LINES = "".join(f"ligne {i:06d}\n" for i in range(LIMIT // 13 + 1))   # 13 characters a line


def test_a_text_within_the_limit_is_shown_whole():
    assert cut("x" * LIMIT) is None


def test_a_long_text_keeps_whole_lines_of_its_beginning_and_end():
    shown = cut(LINES)
    assert shown.head == LINES[:KEPT][:LINES[:KEPT].rfind("\n")]
    assert shown.head.startswith("ligne 000000\n") and shown.head.endswith("ligne 000383")
    # The tail's first line, cut, is left out.
    assert shown.tail.startswith("ligne 007309\n") and shown.tail.endswith("ligne 007692\n")
    assert shown.tail == LINES[-KEPT:][LINES[-KEPT:].find("\n") + 1:]
    assert shown.megabytes == len(LINES) / 1e6
    one_line = cut("é" * (LIMIT + 1))   # no line to keep whole; its size in bytes
    assert (one_line.head, one_line.tail) == ("é" * KEPT, "é" * KEPT)
    assert one_line.megabytes == 2 * (LIMIT + 1) / 1e6


def test_the_notice_is_in_the_books_language():
    french, _ = language_of("fr")
    assert Cut("", "", 1.5).notice(french) == (
        "[… sortie tronquée : 1,5 Mo en tout ; seuls son début et sa fin sont montrés (au plus "
        "5000 caractères chacun) …]")


def test_consecutive_outputs_of_one_stream_are_one():
    outputs = [v4.new_output("stream", name="stdout", text="a\n"),
               v4.new_output("stream", name="stdout", text=["b\n", "c\n"]),
               v4.new_output("stream", name="stderr", text="e\n"),
               v4.new_output("stream", name="stdout", text="d\n")]
    assert [(o["name"], o["text"]) for o in merged_streams(outputs)] == [
        ("stdout", "a\nb\nc\n"), ("stderr", "e\n"), ("stdout", "d\n")]


def test_the_text_of_each_kind_of_output():
    assert output_text(v4.new_output("error", ename="E", evalue="v", traceback=["a", "b"])) == "a\nb"
    assert output_text(v4.new_output("execute_result", data={"text/plain": ["1", "2"]})) == "12"
    assert output_text(v4.new_output("display_data", data={"image/png": "iVBO"})) == ""
    long_html = "<p>" + "x" * LIMIT + "</p>"
    # Too long to be shown as HTML: its plain text instead (its source, where it has none).
    assert shown_data({"text/html": long_html, "text/plain": "df"}) == {"text/plain": "df"}
    assert shown_data({"text/html": long_html}) == {"text/plain": long_html}
    assert shown_data({"text/html": "<p>x</p>"}) == {"text/html": "<p>x</p>"}


def test_cut_outputs_cut_each_long_output_with_the_notice():
    short = v4.new_output("stream", name="stderr", text="warning\n")
    outputs = [v4.new_output("stream", name="stdout", text=LINES[:LIMIT // 2]),
               v4.new_output("stream", name="stdout", text=LINES[LIMIT // 2:]), short]
    assert len(long_outputs(outputs)) == 1   # the two halves are one stream
    shown = cut_outputs(outputs, lambda cut: f"[{cut.megabytes:.2f} MB]")
    assert len(shown) == 2 and shown[1] == short
    assert shown[0]["text"] == f"{cut(LINES).head}\n[0.10 MB]\n{cut(LINES).tail}"
    assert cut_outputs([short], lambda cut: "never") == [short]
    error = v4.new_output("error", ename="E", evalue="v", traceback=LINES.split("\n"))
    [cut_error] = cut_outputs([error], lambda cut: "NOTICE")
    assert "NOTICE" in cut_error["traceback"] and len(cut_error["traceback"]) < 1000
