"""The bookmarks of a PDF that Chromium printed, titled as their headings.

Chromium drops the space where a heading wraps on the page from the bookmark made of
it. The bookmarks are mended in the PDF open in pikepdf (qpdf) that is then written
compacted (`pdf.finished`): one reading of the file in C++, where pypdf took longer
to read a long book than Chromium took to print it.
"""
from __future__ import annotations

import re
from collections.abc import Iterator


def outline_items(document) -> Iterator:
    """Every bookmark of the pikepdf `document`, in any order."""
    outlines = document.Root.get("/Outlines")
    pending = [outlines.First] if outlines is not None and "/First" in outlines else []
    while pending:
        item = pending.pop()
        pending += [item[key] for key in ("/First", "/Next") if key in item]
        yield item


def whole_titles(document, headings: list[str]) -> None:
    """Title the bookmarks of the pikepdf `document` as the headings they come from:
    Chromium drops the space where a heading wraps. A bookmark is matched to its heading
    by its letters."""
    import pikepdf

    def letters(text: str) -> str:
        return re.sub(r"\s", "", text)

    whole = {letters(text): re.sub(r"[ \t\r\n]+", " ", text).strip() for text in headings}
    for item in outline_items(document):
        title = str(item.get("/Title", ""))
        heading = whole.get(letters(title), title)
        if heading != title:
            item.Title = pikepdf.String(heading)
