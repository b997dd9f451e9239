"""d2lbook's settings that change what readers of the site see, read once from the
checked config.ini: ``[html] header_links``, ``favicon``, ``html_logo``,
``include_css`` (the keys of [html], declared here as `HtmlOptions`) and ``[build]
resources``.

Paths are read as d2lbook reads them: the favicon and the logo relative to the
book's folder (where config.ini is), the style sheets and the resources relative
to the sources' folder (``[build] source_dir``), as space-separated glob patterns
where a folder stands for every file under it. The files are looked for only by
the stage that uses them (`HtmlSettings.missing_files`, the site's requirements): a
favicon, logo or style sheet that is not there is an error at its line for the
site (d2lbook stops on the first two), never for `check`, `lib` or `notebooks`,
which d2lbook runs without them. A resource that matches no file is a warning
(d2lbook copies nothing for it).
"""
from __future__ import annotations

import glob
import os
import re
from dataclasses import dataclass, field
from functools import cached_property
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
    written: HtmlOptions = HtmlOptions()
    """[html] as written (its files are looked for by `missing_files`)."""
    lines: dict[str, int] = field(default_factory=dict)
    """[html] key -> its line in config.ini, for the errors of its files."""
    root: Path = Path(".")
    """The book's folder: the favicon and the logo are relative to it."""
    source_root: Path = Path(".")
    """The sources' folder: the style sheets are relative to it."""
    resources: dict[str, Path] = field(default_factory=dict)
    """Site path (POSIX, relative to the site's root) -> file copied there."""
    warnings: tuple[Problem, ...] = ()
    """What d2lbook tolerates in these settings, at its line of config.ini."""

    @property
    def favicon(self) -> Path | None:
        return self.root / self.written.favicon if self.written.favicon else None

    @property
    def logo(self) -> Path | None:
        return self.root / self.written.html_logo if self.written.html_logo else None

    @cached_property
    def style_sheets(self) -> tuple[Path, ...]:
        """The book's own CSS files, in order: the site's style sheet ends with them."""
        return tuple(dict.fromkeys(path for pattern in self.written.include_css
                                   for path in matching_files(self.source_root, pattern)))

    @property
    def files(self) -> list[Path]:
        """Every file of the book that the site copies or reads for these settings."""
        return [*filter(None, (self.favicon, self.logo)), *self.style_sheets,
                *self.resources.values()]

    def missing_files(self) -> list[str]:
        """The favicon, logo and style sheets that are not there, each at its line of
        config.ini: what the site needs of these settings."""
        missing = [f"{CONFIG_FILE}:{self.lines[key]}: [html] {key} = {written!r}: no such "
                   f"file — give a path relative to the book's folder (where {CONFIG_FILE} "
                   "is)" for key, written, path in (
                       ("favicon", self.written.favicon, self.favicon),
                       ("html_logo", self.written.html_logo, self.logo))
                   if path is not None and not path.is_file()]
        return missing + [f"{CONFIG_FILE}:{self.lines['include_css']}: [html] include_css: "
                          f"{pattern!r} matches no file — give CSS files relative to the "
                          "sources' folder ([build] source_dir)"
                          for pattern in self.written.include_css
                          if not matching_files(self.source_root, pattern)]

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
    their errors are reported to `settings` (the files of [html] are looked for later)."""
    options = settings.read(HtmlOptions)
    resources, warnings = _resources(settings, resource_patterns, source_root)
    return HtmlSettings(
        header_links=header_links(settings, options.header_links), written=options,
        lines={key: settings.line("html", key) for key in ("favicon", "html_logo",
                                                           "include_css")},
        root=root, source_root=source_root, resources=resources, warnings=tuple(warnings))
