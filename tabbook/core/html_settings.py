"""d2lbook's settings that change what readers of the site see, read once from the
checked config.ini: ``[html] header_links``, ``favicon``, ``html_logo``,
``include_css`` (the keys of [html], declared here as `HtmlOptions`) and ``[build]
resources``.

Paths are read as d2lbook reads them: the favicon and the logo relative to the
book's folder (where config.ini is), the style sheets and the resources relative
to the sources' folder (``[build] source_dir``), as space-separated glob patterns
where a folder stands for every file under it. A favicon, logo or style sheet
that is not there is an error at its line (d2lbook stops on the first two); a
resource that matches no file is a warning (d2lbook copies nothing for it).
"""
from __future__ import annotations

import glob
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from .config_options import CONFIG_FILE, Settings, option, section
from .model import Problem


@section("html", any_key=True)
@dataclass(frozen=True)
class HtmlOptions:
    """The keys of d2lbook's [html] read here; its other keys (include_js…) are accepted
    and ignored."""
    header_links: str = option("")
    favicon: str = option("")
    """Relative to the book's folder, as the logo."""
    html_logo: str = option("")
    include_css: tuple[str, ...] = option(())
    """Relative to the sources' folder, as d2lbook reads them."""


@dataclass(frozen=True)
class HeaderLink:
    """One link of the site's header (d2lbook's ``name, URL, icon`` triple)."""
    name: str
    url: str
    icon: str
    """d2lbook's Font Awesome classes (``fab fa-github``): kept, not shown (the site
    loads no icon font, nothing from outside)."""


@dataclass(frozen=True)
class HtmlSettings:
    header_links: tuple[HeaderLink, ...] = ()
    favicon: Path | None = None
    logo: Path | None = None
    style_sheets: tuple[Path, ...] = ()
    """The book's own CSS files, in order: the site's style sheet ends with them."""
    resources: dict[str, Path] = field(default_factory=dict)
    """Site path (POSIX, relative to the site's root) -> file copied there."""
    warnings: tuple[Problem, ...] = ()
    """What d2lbook tolerates in these settings, at its line of config.ini."""

    @property
    def files(self) -> list[Path]:
        """Every file of the book that the site copies or reads for these settings."""
        return [*filter(None, (self.favicon, self.logo)), *self.style_sheets,
                *self.resources.values()]

    @staticmethod
    def static_name(path: Path) -> str:
        """Where the site serves the favicon or the logo: ``_static/<its name>``, as
        d2lbook puts them."""
        return f"_static/{path.name}"


def matching_files(folder: Path, pattern: str) -> list[Path]:
    """d2lbook's ``find_files``: the files `pattern` (relative to `folder`) matches, a
    folder standing for every file under it; sorted."""
    path = os.path.join(folder, pattern)
    if os.path.isdir(path):
        path = os.path.join(path, "**")
    return sorted(Path(p) for p in glob.glob(path, recursive=True) if os.path.isfile(p))


def header_links(settings: Settings, text: str) -> tuple[HeaderLink, ...]:
    """``name, URL, icon`` triples, one per line (d2lbook 1.0) or all on a line (older
    d2lbook); items are separated by commas, a trailing comma is allowed."""
    items = [item.strip() for item in re.split(r"[,\n]", text) if item.strip()]
    line = settings.line("html", "header_links")
    if len(items) % 3:
        settings.problem(line, f"[html] header_links has {len(items)} items, not a multiple "
                         "of 3 — write each link as name, URL, icon (e.g. GitHub, "
                         "https://github.com/owner/repo, fab fa-github)")
        return ()
    links = tuple(HeaderLink(*items[i:i + 3]) for i in range(0, len(items), 3))
    for link in links:
        if re.search(r"\s", link.url):
            settings.problem(line, f"[html] header_links: {link.url!r} (the URL of "
                             f"{link.name!r}) is not a URL — write each link as name, URL, "
                             "icon")
            return ()
    return links


def _book_file(settings: Settings, root: Path, key: str, written: str) -> Path | None:
    if not written:
        return None
    if not (root / written).is_file():
        settings.problem(settings.line("html", key), f"[html] {key} = {written!r}: no such "
                         f"file — give a path relative to the book's folder (where "
                         f"{CONFIG_FILE} is)")
        return None
    return root / written


def _style_sheets(settings: Settings, patterns: tuple[str, ...],
                  source_root: Path) -> tuple[Path, ...]:
    sheets = []
    for pattern in patterns:
        found = matching_files(source_root, pattern)
        if not found:
            settings.problem(settings.line("html", "include_css"), f"[html] include_css: "
                             f"{pattern!r} matches no file — give CSS files relative to the "
                             "sources' folder ([build] source_dir)")
        sheets += found
    return tuple(dict.fromkeys(sheets))


def _resources(settings: Settings, patterns: tuple[str, ...],
               source_root: Path) -> tuple[dict[str, Path], list[Problem]]:
    files: dict[str, Path] = {}
    warnings = []
    line = settings.line("build", "resources")
    for pattern in patterns:
        found = {os.path.relpath(path, source_root): path
                 for path in matching_files(source_root, pattern)}
        if not found or any(name.startswith(os.pardir + os.sep) for name in found):
            what = "matches no file" if not found else "names files outside the sources' folder"
            warnings.append(Problem(CONFIG_FILE, line, f"[build] resources: {pattern!r} {what}",
                                    "the site gets no copy of it; fix or remove the entry",
                                    warning=True))
            continue
        for name, path in found.items():
            files.setdefault(Path(name).as_posix(), path)
    return files, warnings


def html_settings(settings: Settings, resource_patterns: tuple[str, ...], root: Path,
                  source_root: Path) -> HtmlSettings:
    """[html] read from `settings`, and the files of [build] resources;
    their errors are reported to `settings`."""
    options = settings.read(HtmlOptions)
    resources, warnings = _resources(settings, resource_patterns, source_root)
    return HtmlSettings(
        header_links=header_links(settings, options.header_links),
        favicon=_book_file(settings, root, "favicon", options.favicon),
        logo=_book_file(settings, root, "html_logo", options.html_logo),
        style_sheets=_style_sheets(settings, options.include_css, source_root),
        resources=resources, warnings=tuple(warnings))
