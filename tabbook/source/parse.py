"""Parse stage: d2lbook Markdown sources -> the book model.

The files are found by following the TOCs from the book's index; each is read
as d2lbook reads it (universal newlines, UTF-8) and parsed by `sections`. What
the structure means (are the tabs known, do labels resolve, does the code
compile) is the check stage's job. Problems found while reading are returned,
never raised, so that a single run reports all of them.
"""
from __future__ import annotations

import fnmatch
import glob
from pathlib import Path
from typing import Callable

from ..core.config import Config
from ..core.layout import Layout
from ..core.model import Book, Chapter, Problem, Section, SourceError, TocEntry
from .sections import SectionParser


SectionReader = Callable[[Path, Path, Path, tuple[str, ...]], tuple[Section, list[Problem]]]
"""(file, source root, project root, book tabs) -> the file's Section and its problems:
`parse_section`, or the section cache's reader (`section_cache.SectionCache.read`)."""


def parse_section(file: Path, source_root: Path, project_root: Path,
                  book_tabs: tuple[str, ...]) -> tuple[Section, list[Problem]]:
    """Read one .md file into a Section, with the problems met on the way."""
    return section_of(file.read_bytes(), file.relative_to(source_root),
                      file.relative_to(project_root).as_posix(), book_tabs)


def section_of(data: bytes, relative: Path, source: str,
               book_tabs: tuple[str, ...]) -> tuple[Section, list[Problem]]:
    """The Section of a .md file's bytes (`relative` to the source folder, `source` as
    messages name it), with the problems met on the way."""
    section = Section(path=relative, display_path=source)
    text, problems = read_source(data, source)
    parser = SectionParser(section, book_tabs)
    parser.run(text)
    return section, problems + parser.problems


def read_source(data: bytes, source: str) -> tuple[str, list[Problem]]:
    """The text of a .md file as d2lbook reads it (universal newlines, no byte-order mark),
    with what is wrong in its encoding.

    A file that is not UTF-8 is still read (undecodable bytes replaced), so that its
    labels exist and its fault is not reported again as broken references elsewhere."""
    problems = []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[:err.start].replace(b"\r\n", b"\n").replace(b"\r", b"\n").count(b"\n") + 1
        problems.append(Problem(source, line, f"not valid UTF-8 (byte 0x{data[err.start]:02x})",
                                "save the file as UTF-8", file_fault=True))
        text = data.decode("utf-8", errors="replace")
    if text.startswith("\ufeff"):
        text = text[1:]
        problems.append(Problem(source, 1, "the file starts with a byte-order mark (U+FEFF)",
                                "save it as UTF-8 without BOM", warning=True))
    text = text.replace("\r\n", "\n")
    if "\r" in text:
        line = text[:text.index("\r")].count("\n") + 1
        problems.append(Problem(source, line, "lines end with a lone CR (old Mac line endings); "
                                "they are read as line breaks",
                                "convert the file's line endings to LF (\\n)", warning=True))
        text = text.replace("\r", "\n")
    return text, problems


def source_files(config: Config) -> set[Path]:
    """The .md files the book is made of: [build] notebooks minus exclusions, both
    relative to the source folder. As d2lbook's `glob.glob`, wildcards skip hidden files
    and folders (.git, .envs); the build's own outputs (_build, frozen) are never sources."""
    source_root = config.source_root.resolve()
    outputs = [folder.resolve() for folder in Layout(config.root).outputs]
    files = set()
    for pattern in config.build.notebooks:
        found = (source_root / name for name in glob.glob(pattern, root_dir=source_root,
                                                           recursive=True))
        files.update(path.resolve() for path in found if path.is_file())
    return {f for f in files
            if not any(f.is_relative_to(folder) for folder in outputs)
            and not any(fnmatch.fnmatch(f.relative_to(source_root).as_posix(), pattern)
                        for pattern in config.build.exclusions)}


def parse_book(config: Config, reader: SectionReader = parse_section
               ) -> tuple[Book, list[Problem]]:
    """Read the whole book following the TOCs, each file by `reader`; files outside every
    TOC become orphans."""
    source_root = config.source_root.resolve()
    project_root = config.root.resolve()
    problems: list[Problem] = []
    seen: dict[Path, TocEntry] = {}

    def read(file: Path) -> Section:
        section, found = reader(file, source_root, project_root, config.build.tabs)
        problems.extend(found)
        return section

    def toc_targets(owner: Section) -> list[tuple[Path, TocEntry]]:
        base = (source_root / owner.path).parent
        targets = []
        for entry in owner.toc:
            name = entry.target[:-3] if entry.target.endswith(".md") else entry.target
            file = (base / f"{name}.md").resolve()
            if not file.is_file():
                problems.append(Problem(owner.display_path, entry.line,
                                        f"TOC entry {entry.target!r} has no file {name}.md "
                                        "(left out)", "fix the entry or create the file",
                                        warning=True))
            elif file in seen:
                problems.append(Problem(owner.display_path, entry.line,
                                        f"TOC entry {entry.target!r} is listed twice (the first "
                                        "is kept)", "keep a single entry", warning=True))
            else:
                seen[file] = entry
                targets.append((file, entry))
        return targets

    index_file = source_root / f"{config.build.index}.md"
    index_name = index_file.relative_to(project_root).as_posix()
    if not index_file.is_file():
        raise SourceError([Problem(index_name, 0, "not found",
                                   "create the book's root page with a ```toc block listing "
                                   "the chapters ([build] source_dir and index in config.ini "
                                   "say where it is)")])
    seen[index_file] = TocEntry(index_name, 0)
    book = Book(source_root=source_root, index=read(index_file))
    for chapter_file, entry in toc_targets(book.index):
        chapter = Chapter(index=read(chapter_file), numbered=entry.numbered)
        book.chapters.append(chapter)
        for section_file, _ in toc_targets(chapter.index):
            section = read(section_file)
            if section.toc:
                problems.append(Problem(section.display_path, section.toc[0].line,
                                        "a TOC block in a section (only the book index and "
                                        "chapter indexes hold TOCs)",
                                        "list these pages in the chapter's index.md"))
            chapter.sections.append(section)
    for file in sorted(source_files(config) - set(seen)):
        book.orphans.append(read(file))
    return book, problems
