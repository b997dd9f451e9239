"""Outputs too long to publish whole: a cell that prints 50 MB would make a 50 MB page, PDF
and launch notebook.

As Jupyter front-ends do with a long output (VS Code and Colab show a long stream cut, with
a notice), the book shows such an output's beginning and end, with a notice between them
in the book's language saying how long it is (catalogue key ``output_cut``): the pages and
the PDF (`output/outputs.py`) and the launch notebooks, whose outputs are only a preview of
a run (`output/launch.py`). The executed notebook in ``_build/eval`` keeps it whole, and
eval warns, at the cell's line, about each output it has cut (`execution/evaluate.py`).

An output is measured as a reader sees it: a stream (the consecutive outputs of one stream
are one, as front-ends show them), a traceback, or a result's text. A result's HTML that is
too long is not shown as HTML (cut in the middle, it is no HTML): its plain text is, cut.
Images are left as they are.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..core.language import Language

LIMIT = 100_000
"""Characters an output's text may have; beyond, it is cut. Our book's longest is 2 000."""
KEPT = 5000
"""Characters shown at most of a cut output's beginning, and as many of its end."""


def joined(value) -> str:
    """A notebook's text field, which may be a list of lines."""
    return "".join(value) if isinstance(value, list) else value


@dataclass(frozen=True)
class Cut:
    """What is shown of an output's text too long to be shown whole: its head, a notice on a
    line of its own, its tail."""
    head: str
    tail: str
    megabytes: float
    """The whole text's size."""

    def notice(self, language: Language) -> str:
        """What is said between the head and the tail, in the book's language."""
        return language.text("output_cut", size=language.decimal(self.megabytes), kept=KEPT)


def cut(text: str) -> Cut | None:
    """How `text` is shown cut (whole lines, where it has lines); None if it is shown whole."""
    if len(text) <= LIMIT:
        return None
    head, tail = text[:KEPT], text[-KEPT:]
    return Cut(head[:head.rfind("\n")] if "\n" in head else head,
               tail[tail.find("\n") + 1:] if "\n" in tail else tail,
               len(text.encode("utf-8")) / 1e6)


def merged_streams(outputs: list) -> list:
    """`outputs` with consecutive stream outputs of the same stream (stdout, stderr) made
    one: a program's printed text is one block, however the kernel cut it."""
    merged: list = []
    for output in outputs:
        previous = merged[-1] if merged else None
        if output.get("output_type") == "stream" and previous is not None and \
                previous.get("output_type") == "stream" and \
                previous.get("name") == output.get("name"):
            merged[-1] = {**previous, "text": joined(previous["text"]) + joined(output["text"])}
        else:
            merged.append(output)
    return merged


def shown_data(data: dict) -> dict:
    """A result's representations as the book shows them: HTML too long to be shown whole
    gives way to the plain text (its source, for a result that has none)."""
    html = joined(data.get("text/html", ""))
    if cut(html) is None:
        return data
    return {**{kind: value for kind, value in data.items() if kind != "text/html"},
            "text/plain": data.get("text/plain", html)}


def output_text(output: dict) -> str:
    """The text of an output that may be cut: a stream's, a traceback, a result's plain
    text ("" for an image or an output of another kind)."""
    kind = output.get("output_type")
    if kind == "stream":
        return joined(output.get("text", ""))
    if kind == "error":
        return "\n".join(output.get("traceback", []))
    if kind in ("display_data", "execute_result"):
        return joined(shown_data(output.get("data", {})).get("text/plain", ""))
    return ""


def long_outputs(outputs: list) -> list[Cut]:
    """How each output of a code cell too long to be shown whole is shown."""
    cuts = (cut(output_text(output)) for output in merged_streams(outputs))
    return [shown for shown in cuts if shown is not None]


def cut_outputs(outputs: list, notice: Callable[[Cut], str]) -> list:
    """A code cell's `outputs` as a launch notebook carries them: each too long cut to its
    beginning and end, with `notice` of it between them on a line of its own (the outputs
    as they are when none is too long)."""
    if not long_outputs(outputs):
        return outputs
    import nbformat   # not for `check`, which reaches this module through the console

    return [nbformat.from_dict(_cut_output(output, notice)) for output in merged_streams(outputs)]


def _cut_output(output: dict, notice: Callable[[Cut], str]) -> dict:
    shown = cut(output_text(output))
    if shown is None:
        return output
    text = f"{shown.head}\n{notice(shown)}\n{shown.tail}"
    kind = output.get("output_type")
    if kind == "stream":
        return {**output, "text": text}
    if kind == "error":
        return {**output, "traceback": text.split("\n")}
    return {**output, "data": {**shown_data(output["data"]), "text/plain": text}}
