"""The bookmarks of a PDF that Chromium printed, titled as their headings.

Chromium drops the space where a heading wraps on the page from the bookmark made of
it. The bookmarks are mended in an incremental update appended to Chromium's bytes
(PDF 7.5.6): pypdf rewriting the whole file of a long book takes longer than Chromium
takes to print it, and logs about its trailer on the way.
"""
from __future__ import annotations

import io
import re


def whole_titles(data: bytes, headings: list[str]) -> bytes:
    """The PDF with its bookmarks titled as the headings they come from: Chromium drops
    the space where a heading wraps. A bookmark is matched to its heading by its letters."""
    from pypdf import PdfReader
    from pypdf.generic import NameObject, TextStringObject

    def letters(text: str) -> str:
        return re.sub(r"\s", "", text)

    whole = {letters(text): re.sub(r"[ \t\r\n]+", " ", text).strip() for text in headings}
    reader = PdfReader(io.BytesIO(data))
    outlines = reader.trailer["/Root"].get("/Outlines")
    root = outlines.get_object() if outlines else {}
    pending = [root.raw_get("/First")] if "/First" in root else []
    changed = {}
    while pending:
        reference = pending.pop()
        item = reference.get_object()
        pending += [item.raw_get(key) for key in ("/First", "/Next") if key in item]
        title = str(item.get("/Title", ""))
        heading = whole.get(letters(title), title)
        if heading != title:
            item[NameObject("/Title")] = TextStringObject(heading)
            changed[reference.idnum] = (reference.generation, item)
    return _updated(data, reader, changed) if changed else data


def _updated(data: bytes, reader, objects: dict) -> bytes:
    """`data` followed by an incremental update that replaces `objects` (number ->
    (generation, object)): the objects, their cross-reference section and a trailer."""
    update = io.BytesIO(b"\n")
    update.seek(1)
    offsets = {}
    for number, (generation, value) in sorted(objects.items()):
        offsets[number] = len(data) + update.tell()
        update.write(f"{number} {generation} obj\n".encode())
        value.write_to_stream(update)
        update.write(b"\nendobj\n")
    xref = len(data) + update.tell()
    update.write(b"xref\n")
    for number, (generation, _) in sorted(objects.items()):
        update.write(f"{number} 1\n{offsets[number]:010d} {generation:05d} n \n".encode())
    update.write(b"trailer\n<<")
    for key in ("/Root", "/Info", "/ID"):
        if key in reader.trailer:
            update.write(f" {key} ".encode())
            reader.trailer.raw_get(key).write_to_stream(update)
    previous = int(re.findall(rb"startxref\s+(\d+)", data[-1024:])[-1])
    size = max(reader.trailer["/Size"], max(objects) + 1)
    update.write(f" /Size {size} /Prev {previous} >>\nstartxref\n{xref}\n%%EOF\n".encode())
    return data + update.getvalue()
