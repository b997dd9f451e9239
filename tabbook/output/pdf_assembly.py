"""One PDF from the prints of a book's parts (`print_layout`), joined by pikepdf (qpdf).

Pages in order, and with them what Chromium made of each part: its bookmarks (one
outline), its named destinations (the ids are the book's: one name space), its tags
(each part's structure elements under one Document element, their keys into the parent
tree moved past the previous parts'), its links, those to another part
(`print_layout.CROSS_PART`) made links to that part's destination. A chapter's closing
pages, its destinations block, are left out, and the tags on them.
"""
from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from ..bootstrap.errors import BookError
from .print_layout import CROSS_PART


@dataclass(frozen=True)
class PartPrint:
    """A part of the book as Chromium printed it."""
    data: bytes
    pages: int
    """Its pages that the book keeps: those before its destinations block."""
    destinations: dict[str, int]
    """Named destination (an id, as Chromium names it) -> its page in the part, from 1."""
    headings: list[str]
    """The text of the part's headings, which its bookmarks are titled after."""


def named_destinations(document) -> Iterator[tuple[str, Any]]:
    """(name, destination array) of each named destination of the pikepdf `document`:
    in the catalogue's /Dests (Chromium's) or its /Names tree."""
    import pikepdf

    found = []
    if "/Dests" in document.Root:
        found += [(name.lstrip("/"), dest) for name, dest in document.Root.Dests.items()]
    names = document.Root.get("/Names")
    if names is not None and "/Dests" in names:
        found += list(pikepdf.NameTree(names.Dests).items())
    for name, dest in found:
        yield name, (dest.D if isinstance(dest, pikepdf.Dictionary) else dest)


@dataclass
class _Assembly:
    """The PDF being assembled, and what its catalogue will hold."""
    pdf: Any
    destinations: dict[str, Any] = field(default_factory=dict)
    bookmarks: list = field(default_factory=list)
    visible_bookmarks: int = 0
    elements: list = field(default_factory=list)
    """The structure elements under the Document element."""
    parent_tree: dict[int, Any] = field(default_factory=dict)
    ids: dict[str, Any] = field(default_factory=dict)
    next_key: int = 0
    language: Any = None

    def copy(self, obj):
        """`obj` of a part's PDF, in this one: qpdf copies indirect objects (and what they
        refer to) once per part; a direct one is rebuilt around them."""
        import pikepdf

        if not isinstance(obj, pikepdf.Object):   # a number or a boolean, as Python's
            return obj
        if obj.is_indirect:
            return self.pdf.copy_foreign(obj)
        if isinstance(obj, pikepdf.Array):
            return pikepdf.Array([self.copy(item) for item in obj])
        if isinstance(obj, pikepdf.Dictionary):
            return pikepdf.Dictionary({key: self.copy(value) for key, value in obj.items()})
        return obj

    def add(self, source, kept: int) -> None:
        """Append the first `kept` pages of the pikepdf `source` and what goes with them.
        Pages are copied first: an object copied later that refers to one (a tag's page,
        a destination) then refers to its copy."""
        dropped = {page.objgen for page in source.pages[kept:]}
        offset, dropped_keys = self.next_key, self._shift_keys(source, dropped)
        for page in source.pages[:kept]:
            self.pdf.pages.append(page)
        self._add_tags(source, dropped, dropped_keys, offset)
        for name, dest in named_destinations(source):
            if dest[0].objgen not in dropped:
                self.destinations[name] = self.copy(dest)
        outlines = source.Root.get("/Outlines")
        item = outlines.get("/First") if outlines is not None else None
        while item is not None:
            self.bookmarks.append(self.copy(item))
            item = item.get("/Next")
        self.visible_bookmarks += int(outlines.get("/Count", 0)) if outlines is not None else 0

    def _shift_keys(self, source, dropped: set) -> set[int]:
        """Move the keys of `source`'s pages and annotations into the parent tree past the
        parts before it; the keys (unmoved) of those on `dropped` pages."""
        tree = source.Root.get("/StructTreeRoot")
        if tree is None:
            return set()
        dropped_keys = set()
        for page in source.pages:
            for owner in (page.obj, *page.obj.get("/Annots", [])):
                for key in ("/StructParents", "/StructParent"):
                    if key in owner:
                        if page.objgen in dropped:
                            dropped_keys.add(int(owner[key]))
                        owner[key] = int(owner[key]) + self.next_key
        self.next_key += int(tree.get("/ParentTreeNextKey", 0))
        return dropped_keys

    def _add_tags(self, source, dropped: set, dropped_keys: set[int], offset: int) -> None:
        """Take `source`'s structure elements, but those on `dropped` pages."""
        import pikepdf

        tree = source.Root.get("/StructTreeRoot")
        if tree is None:
            return
        for key, value in pikepdf.NumberTree(tree.ParentTree).items():
            if key not in dropped_keys:
                self.parent_tree[key + offset] = self.copy(value)
        self._take_elements(tree.K, dropped)
        if "/IDTree" in tree:
            self.ids.update((name, self.copy(element))
                            for name, element in pikepdf.NameTree(tree.IDTree).items())

    def _take_elements(self, document, dropped: set) -> None:
        """The elements under a part's Document element (or its root), but those on
        `dropped` pages: all of them are under the book's Document element."""
        import pikepdf

        if isinstance(document, pikepdf.Dictionary) and document.get("/S") == "/Document":
            if self.language is None:
                self.language = document.get("/Lang")
            document = document.get("/K", pikepdf.Array())
        kids = document if isinstance(document, pikepdf.Array) else [document]
        self.elements += [self.copy(kid) for kid in kids
                          if not ("/Pg" in kid and kid.Pg.objgen in dropped)]

    def link_parts(self) -> None:
        """Links to another part's id: links to its named destination."""
        import pikepdf

        # Chromium escapes an id in a URL and in a destination's name, maybe not alike.
        names = {unquote(name): name for name in self.destinations}
        for page in self.pdf.pages:
            for annot in page.obj.get("/Annots", []):
                action = annot.get("/A")
                uri = str(action.get("/URI", "")) if action is not None else ""
                if not uri.startswith(CROSS_PART):
                    continue
                target = unquote(uri[len(CROSS_PART):])
                if target not in names:
                    raise BookError(f"the PDF links to « {target} », which no part of it "
                                    "holds: a bug of the print layout")
                annot.Dest = pikepdf.Name("/" + names[target])
                del annot["/A"]

    def write_catalogue(self, first) -> None:
        """Destinations, bookmarks, tags, language and metadata (the first part's)."""
        import pikepdf

        pdf, root = self.pdf, self.pdf.Root
        for key in ("/Lang", "/MarkInfo", "/ViewerPreferences"):
            if key in first.Root:
                root[key] = self.copy(first.Root[key])
        if "/Info" in first.trailer:
            pdf.trailer.Info = self.copy(first.trailer.Info)
        root.Dests = pdf.make_indirect(pikepdf.Dictionary(
            {"/" + name: dest for name, dest in sorted(self.destinations.items())}))
        self._write_outline()
        if self.elements:
            self._write_structure_tree()

    def _write_outline(self) -> None:
        import pikepdf

        if not self.bookmarks:
            return
        outlines = self.pdf.make_indirect(pikepdf.Dictionary(
            Type=pikepdf.Name.Outlines, First=self.bookmarks[0], Last=self.bookmarks[-1],
            Count=self.visible_bookmarks))
        for position, item in enumerate(self.bookmarks):
            item.Parent = outlines
            for key, neighbour in (("/Prev", position - 1), ("/Next", position + 1)):
                if 0 <= neighbour < len(self.bookmarks):
                    item[key] = self.bookmarks[neighbour]
                elif key in item:
                    del item[key]
        self.pdf.Root.Outlines = outlines

    def _write_structure_tree(self) -> None:
        import pikepdf

        pdf = self.pdf
        tree = pdf.make_indirect(pikepdf.Dictionary(Type=pikepdf.Name.StructTreeRoot,
                                                    ParentTreeNextKey=self.next_key))
        document = pdf.make_indirect(pikepdf.Dictionary(
            Type=pikepdf.Name.StructElem, S=pikepdf.Name.Document, P=tree,
            K=pikepdf.Array(self.elements)))
        if self.language is not None:
            document.Lang = self.language
        for element in self.elements:
            if isinstance(element, pikepdf.Dictionary):
                element.P = document
        parent_tree = pikepdf.NumberTree.new(pdf)
        for key, value in sorted(self.parent_tree.items()):
            parent_tree[key] = value
        tree.K, tree.ParentTree = document, parent_tree.obj
        if self.ids:
            ids = pikepdf.NameTree.new(pdf)
            for name, element in sorted(self.ids.items()):
                ids[name] = element
            tree.IDTree = ids.obj
        pdf.Root.StructTreeRoot = tree


@contextlib.contextmanager
def assembled(parts: list[PartPrint]) -> Iterator:
    """The pikepdf PDF of `parts` joined, open until the context ends: copied objects
    read their streams from the parts' documents, which stay open until then."""
    import pikepdf

    with contextlib.ExitStack() as stack:
        assembly = _Assembly(stack.enter_context(pikepdf.new()))
        sources = [stack.enter_context(pikepdf.open(io.BytesIO(part.data))) for part in parts]
        for part, source in zip(parts, sources):
            assembly.add(source, part.pages)
        assembly.link_parts()
        if sources:
            assembly.write_catalogue(sources[0])
        yield assembly.pdf
