"""Parse stage: d2lbook Markdown sources -> the book model.

Only the structure of the format is handled here (fences, tab blocks, the tab
declaration cell, labels, references, images, TOC). What the structure means
(are the tabs known, do labels resolve, does the code compile) is the check
stage's job. Problems found while reading are returned, never raised, so that a
single run reports all of them.
"""
from __future__ import annotations

import ast
import fnmatch
import re
from pathlib import Path

from .config import Config
from .model import (ALL_TABS, Book, Cell, CellKind, Chapter, Image, Label, Problem, Reference,
                    Section, TocEntry)

CHAPTERS_DIR = "chapters"
INDEX_FILE = "index.md"

FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*([^`]*)$")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
BEGIN_TAB = re.compile(r"^:begin_tab:`([^`]*)`\s*$")
END_TAB = re.compile(r"^:end_tab:\s*$")
TAB_MAGIC = re.compile(r"^%%tab(?:\s+(.*))?$")
LABEL = re.compile(r":(label|eqlabel):`([^`]+)`")
REFERENCE = re.compile(r":(numref|ref|eqref):`([^`]+)`")
IMAGE = re.compile(r"!\[([^\]]*)\]\(\s*<?([^)\s>]+)>?(?:\s+[\"'][^)]*[\"'])?\s*\)")
SLIDE_MARK = re.compile(r"\[\*\*(.*?)\*\*\]|\(\*\*(.*?)\*\*\)", re.S)
DECLARATION = re.compile(r"%load_ext\s+d2lbook\.tab|tab\.interact_select\(")
REQUIRED_LIBS = re.compile(r"^#\s*required_libs\((.*)\)\s*$")
GPUS = re.compile(r"^#\s*gpus\((.*)\)\s*$")


def split_names(text: str) -> tuple[str, ...]:
    """``'mxnet, pytorch'`` -> ``('mxnet', 'pytorch')``."""
    return tuple(name.strip() for name in text.split(",") if name.strip())


def strip_slide_marks(text: str) -> str:
    """Remove d2lbook's slide marks ``[**…**]`` and ``(**…**)``, keeping their text."""
    return SLIDE_MARK.sub(lambda m: m.group(1) if m.group(1) is not None else m.group(2), text)


def is_code_fence(info: str) -> bool:
    """Only ```{.python .input} (the `.input` class) runs; other fences are displayed."""
    return info.startswith("{") and ".input" in info[1:-1].split()


class _SectionParser:
    def __init__(self, section: Section, default_tab: str):
        self.section = section
        self.default_tab = default_tab
        self.problems: list[Problem] = []
        self.prose: list[tuple[int, str]] = []
        self.prose_tabs: tuple[str, ...] = (ALL_TABS,)
        self.tab_block_line: int | None = None
        self.previous_line = ""   # last non-blank prose line, to type labels
        self.code_cells_seen = 0

    def problem(self, line: int, message: str, fix: str) -> None:
        self.problems.append(Problem(self.section.source, line, message, fix))

    # -- prose --------------------------------------------------------------
    def flush_prose(self) -> None:
        while self.prose and not self.prose[-1][1].strip():
            self.prose.pop()
        while self.prose and not self.prose[0][1].strip():
            self.prose.pop(0)
        if self.prose:
            self.section.cells.append(Cell(
                CellKind.PROSE, "\n".join(text for _, text in self.prose), self.prose[0][0],
                self.prose_tabs, self.tab_block_line))
        self.prose = []

    def prose_line(self, number: int, text: str) -> None:
        stripped = text.strip()
        begin, end = BEGIN_TAB.match(stripped), END_TAB.match(stripped)
        if begin:
            if self.tab_block_line is not None:
                self.problem(self.tab_block_line, f":begin_tab: is not closed before the next "
                             f":begin_tab: at line {number}", f"add :end_tab: before line {number}")
            self.flush_prose()
            self.prose_tabs = split_names(begin.group(1)) or ("",)
            self.tab_block_line = number
            return
        if end:
            if self.tab_block_line is None:
                self.problem(number, ":end_tab: without a matching :begin_tab:",
                             "remove it or add :begin_tab:`<tab>` before the block")
            self.flush_prose()
            self.prose_tabs, self.tab_block_line = (ALL_TABS,), None
            return
        self.prose.append((number, text))
        self.scan_marks(number, text)
        if stripped:
            self.previous_line = stripped

    def scan_marks(self, number: int, text: str) -> None:
        section = self.section
        heading = HEADING.match(text)
        if heading and len(heading.group(1)) == 1 and not section.title:
            section.title = strip_slide_marks(heading.group(2)).strip()
            section.title_line = number
        for role, name in LABEL.findall(text):
            previous = self.previous_line if text.strip().startswith(":") else text.strip()
            section.labels.append(Label(name.strip(), _label_kind(role, previous), number,
                                        _label_title(previous)))
        for role, target in REFERENCE.findall(text):
            inner = re.search(r"<([^>]+)>\s*$", target)
            section.references.append(Reference(role, (inner.group(1) if inner else target).strip(),
                                                number))
        for alt, path in IMAGE.findall(text):
            section.images.append(Image(path, alt, number))

    # -- fences -------------------------------------------------------------
    def fence(self, start: int, info: str, body: list[str]) -> None:
        if info == "toc":
            self.flush_prose()
            for offset, text in enumerate(body, start=start + 1):
                entry = text.strip()
                if entry and not entry.startswith(":"):
                    self.section.toc.append(TocEntry(entry, offset))
            return
        if not is_code_fence(info):
            # Displayed code stays within its prose tab block.
            self.flush_prose()
            fence_text = "\n".join(body)
            self.section.cells.append(Cell(CellKind.DISPLAY, fence_text, start + 1,
                                           self.prose_tabs, self.tab_block_line, fence=info))
            return
        self.flush_prose()
        if self.tab_block_line is not None:
            self.problem(start, f"code cell inside the :begin_tab: block opened at line "
                         f"{self.tab_block_line}", "close the block with :end_tab: before the "
                         "cell and mark the cell with %%tab instead")
        self.code_cells_seen += 1
        if any(DECLARATION.search(line) for line in body):
            self.declaration(start, body)
            return
        first_line, tabs, tab_line = start + 1, (self.default_tab,), None
        magic = TAB_MAGIC.match(body[0].strip()) if body else None
        if magic:
            tabs, tab_line = split_names(magic.group(1) or "") or ("",), start + 1
            body, first_line = body[1:], start + 2
        for offset, text in enumerate(body):
            if TAB_MAGIC.match(text.strip()):
                self.problem(first_line + offset, "%%tab is not on the first line of the cell",
                             "move it to the cell's first line")
        self.section.cells.append(Cell(CellKind.CODE, "\n".join(body), first_line, tabs, tab_line))

    def declaration(self, start: int, body: list[str]) -> None:
        """The cell `%load_ext d2lbook.tab` / `tab.interact_select([...])`."""
        section = self.section
        if self.code_cells_seen != 1 or section.declared_tabs is not None:
            self.problem(start, "the tab declaration is not the section's first code cell",
                         "move %load_ext d2lbook.tab / tab.interact_select(...) to the first "
                         "code cell, once")
            return
        section.declaration_line = start
        section.declared_tabs = ()
        for number, text in enumerate(body, start=start + 1):
            line = text.strip()
            if not line or line.startswith("%load_ext d2lbook.tab"):
                continue
            if line.startswith("tab.interact_select("):
                tabs = _literal_names(line[len("tab.interact_select("):-1])
                if tabs is None or not line.endswith(")"):
                    self.problem(number, f"cannot read the tab list in {line!r}",
                                 "write tab.interact_select(['mxnet', 'pytorch', 'tensorflow'])")
                else:
                    section.declared_tabs = tabs
                continue
            libs, gpus = REQUIRED_LIBS.match(line), GPUS.match(line)
            if libs:
                names = _literal_names(libs.group(1))
                if names is None:
                    self.problem(number, f"cannot read {line!r}",
                                 "write #required_libs(\"package==1.0\", ...)")
                else:
                    section.required_libs += names
            elif gpus:
                count = gpus.group(1).strip()
                if not count.isdigit():
                    self.problem(number, f"#gpus needs a whole number, got {count!r}",
                                 "write #gpus(2)")
                else:
                    section.gpus = int(count)
            elif not line.startswith("#"):
                self.problem(number, "code in the tab declaration cell is never run",
                             "move it to a cell of its own")

    # -- whole file ---------------------------------------------------------
    def run(self, text: str) -> None:
        lines = text.split("\n")
        index = 0
        while index < len(lines):
            raw = lines[index]
            number = index + 1
            opening = FENCE_OPEN.match(raw)
            if not opening:
                self.prose_line(number, raw)
                index += 1
                continue
            marker, info = opening.group(1), opening.group(2).strip()
            closing = re.compile(rf"^ {{0,3}}{re.escape(marker[0])}{{{len(marker)},}}\s*$")
            end = index + 1
            while end < len(lines) and not closing.match(lines[end]):
                end += 1
            if end == len(lines):
                self.problem(number, f"code fence {marker} is never closed",
                             f"add a line {marker} after the code")
            self.fence(number, info, lines[index + 1:end])
            index = end + 1
        self.flush_prose()
        if self.tab_block_line is not None:
            self.problem(self.tab_block_line, ":begin_tab: is never closed",
                         "add :end_tab: after the tab's prose")
        if not text.strip():
            self.problem(1, "empty section", "write its content or remove it and its TOC entry")
        elif not self.section.title:
            self.problem(1, "the section has no '# Title' heading", "start it with '# Title'")


def _literal_names(text: str) -> tuple[str, ...] | None:
    """Read ``['a', 'b']`` or ``'a', 'b'`` as a tuple of strings, None if it isn't one."""
    try:
        value = ast.literal_eval(f"({text},)" if text.strip() else "()")
    except (ValueError, SyntaxError):
        return None
    if len(value) == 1 and isinstance(value[0], (list, tuple)):
        value = tuple(value[0])
    return value if all(isinstance(v, str) for v in value) else None


def _label_kind(role: str, previous: str) -> str:
    if role == "eqlabel" or previous.startswith("$$") or previous.endswith("$$"):
        return "equation"
    if previous.startswith("#"):
        return "section"
    if previous.startswith("!["):
        return "figure"
    if previous.startswith("|"):
        return "table"
    return "other"


def _label_title(previous: str) -> str:
    heading = HEADING.match(previous)
    if heading:
        return strip_slide_marks(heading.group(2)).strip()
    image = IMAGE.match(previous)
    return image.group(1) if image else ""


def parse_section(file: Path, chapters_dir: Path, default_tab: str) -> tuple[Section, list[Problem]]:
    """Read one .md file into a Section, with the problems met on the way."""
    relative = file.relative_to(chapters_dir)
    source = (Path(CHAPTERS_DIR) / relative).as_posix()
    section = Section(path=relative, source=source)
    data = file.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[:err.start].count(b"\n") + 1
        return section, [Problem(source, line, f"not valid UTF-8 (byte 0x{data[err.start]:02x})",
                                 "save the file as UTF-8")]
    parser = _SectionParser(section, default_tab)
    parser.run(text.replace("\r\n", "\n"))
    return section, parser.problems


def source_files(config: Config) -> set[Path]:
    """The .md files the book is made of: [build] notebooks minus exclusions."""
    files = set()
    for pattern in config.build.notebooks:
        files.update(p.resolve() for p in config.root.glob(pattern) if p.is_file())
    return {f for f in files
            if not any(fnmatch.fnmatch(f.relative_to(config.root.resolve()).as_posix(), pattern)
                       for pattern in config.build.exclusions)}


def parse_book(config: Config) -> tuple[Book, list[Problem]]:
    """Read the whole book following the TOCs; files outside every TOC become orphans."""
    chapters_dir = (config.root / CHAPTERS_DIR).resolve()
    problems: list[Problem] = []
    seen: dict[Path, TocEntry] = {}

    def read(file: Path) -> Section:
        section, found = parse_section(file, chapters_dir, config.build.default_tab)
        problems.extend(found)
        return section

    def toc_targets(owner: Section) -> list[Path]:
        base = (chapters_dir / owner.path).parent
        targets = []
        for entry in owner.toc:
            name = entry.target[:-3] if entry.target.endswith(".md") else entry.target
            file = (base / f"{name}.md").resolve()
            if not file.is_file():
                problems.append(Problem(owner.source, entry.line,
                                        f"TOC entry {entry.target!r} has no file {name}.md",
                                        "fix the entry or create the file"))
            elif file in seen:
                problems.append(Problem(owner.source, entry.line,
                                        f"TOC entry {entry.target!r} is listed twice",
                                        "keep a single entry"))
            else:
                seen[file] = entry
                targets.append(file)
        return targets

    index_file = chapters_dir / INDEX_FILE
    if not index_file.is_file():
        raise FileNotFoundError(f"{CHAPTERS_DIR}/{INDEX_FILE}: not found — create the book's "
                                "index with a ```toc block listing the chapters")
    seen[index_file] = TocEntry(INDEX_FILE, 0)
    book = Book(root=chapters_dir, index=read(index_file))
    for chapter_file in toc_targets(book.index):
        chapter = Chapter(index=read(chapter_file))
        book.chapters.append(chapter)
        for section_file in toc_targets(chapter.index):
            section = read(section_file)
            if section.toc:
                problems.append(Problem(section.source, section.toc[0].line,
                                        "a TOC block in a section (only the book index and "
                                        "chapter indexes hold TOCs)",
                                        "list these pages in the chapter's index.md"))
            chapter.sections.append(section)
    for file in sorted(source_files(config) - set(seen)):
        if chapters_dir in file.parents:
            book.orphans.append(read(file))
    return book, problems
