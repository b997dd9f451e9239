"""The reader's language: every fixed word that readers see, in each supported language.

The site's interface, the references' text, the provenance sentence, the PDF's
title page and the launch notebooks' first cells all take their words from
`CATALOGUES`, through the book's `Language` (``[project] lang``). A catalogue
string is plain text with ``{named}`` values; the output that shows it applies
its own escaping and, for French, its typography (``output/typography.py``).

d2lbook's default language is English, and so is this build's: a book without
``lang`` (or with an empty one) reads in English, and so does a book in a
language that has no catalogue here (with a warning).
"""
from __future__ import annotations

import datetime
import re
from collections.abc import Sequence
from dataclasses import dataclass

DEFAULT = "en"
"""The catalogue of a book that names no language, or one this build lacks (d2lbook's)."""

FRENCH = {
    # -- the site's interface
    "skip": "Aller au contenu",
    "contents": "Sommaire",
    "contents_label": "Sommaire du livre",
    "search_label": "Rechercher dans le livre",
    "search_placeholder": "Rechercher…",
    "framework": "Bibliothèque",
    "theme": "Thème : {theme}",
    "theme_change": "Thème : {theme} (changer)",
    "theme_auto": "automatique",
    "theme_light": "clair",
    "theme_dark": "sombre",
    "download_pdf": "Télécharger le PDF ({framework})",
    "missing_pdf": "Le PDF ({framework}) n'a pas été imprimé ; pour le produire :",
    "release": "{title}, version {release}.",
    "open_colab": "Ouvrir dans Colab",
    "open_kaggle": "Ouvrir dans Kaggle",
    "download_notebook": "Télécharger le carnet {framework} (.ipynb)",
    "launch_elsewhere": "Le carnet {framework} ne tourne ni sur Colab ni sur Kaggle, dont le "
    "Python est trop récent : lancez-le avec Python {python} au plus, dans l'environnement du "
    "livre (voir le {readme}) ou dans un conteneur.",
    "readme": "README du dépôt", "chapter_sections": "Sections de ce chapitre",
    "tab_absent": "Pas de version {framework} de ce passage.",
    "outline": "Sur cette page",
    "pager": "Pages voisines",
    "previous": "Précédent",
    "next": "Suivant",
    "missing_tab": "Cette section n'existe pas en {missing} ; elle est montrée en {shown}.",
    "no_code": "Cette page ne contient pas de code exécuté.",
    "not_executed": "Le code de cette page n'a pas été exécuté pour construire le livre.",
    "header_links": "Liens",
    "search": "Recherche",
    "search_server": "La recherche a besoin d'un serveur web : lancez {command} dans {folder}, "
                     "puis ouvrez {url}.",
    "search_offline": "La recherche fonctionne sans réseau : l'index est dans le site.",
    "search_found": "{count} page(s) pour « {query} »",
    "copy": "Copier",
    "copy_label": "Copier le code",
    "copied": "Copié",
    "heading_link": "Lien vers cette partie",
    "figure": "Figure {number}",
    "table": "Tableau {number}",
    "output_figure": "Figure produite par le code",
    "missing_value": "[valeur non calculée : {expression}]",
    # -- references (:numref:) and citations
    "ref_chapter": "chapitre {number}",
    "ref_section": "section {number}",
    "ref_figure": "figure {number}",
    "ref_table": "tableau {number}",
    "ref_equation": "équation {number}",
    "and": "et",
    "et_al": "et al.",
    "no_date": "s. d.",
    "citations": " ; ",
    # -- where the outputs come from
    "ran": "Code {framework} exécuté le {moment} {devices} — {framework} {version}, "
           "Python {python}, {seconds} s pour {cells}.",
    "cells_one": "{n} cellule",
    "cells_many": "{n} cellules",
    "on_cpu": "sur le processeur (aucun GPU)",
    "on_devices": "sur {devices}",
    "device": "{name} ({memory} Gio, pilote {driver}, CUDA {cuda})",
    "frozen_used": "Ces sorties sont figées dans le dépôt du livre ({path}) : elles ne sont "
                   "recalculées que si le code change.",
    "frozen_stale": "Le résultat figé de ce code, obtenu le {moment} {devices}, est périmé : le "
                    "code, la bibliothèque d2l ou la version majeure de {framework} ont changé "
                    "depuis. Les sorties affichées viennent donc de cette construction.",
    # -- the PDF's title page
    "edition": "Édition {framework}",
    "version": "Version {release}, {date}",
    "contents_title": "Table des matières",
    # -- the launch notebooks' first cells
    "launch_title": "**{title}** — section « {section} », version **{framework}** "
                    "(livre {release}).",
    "launch_library": "le paquet `d2l` du livre (version {release})",
    "launch_setup_one": "Exécutez d'abord la cellule d'installation ci-dessous : elle installe "
                        "{listed}, s'il manque. Sur Kaggle, l'installation demande d'activer "
                        "*Settings › Internet* (compte vérifié par téléphone).",
    "launch_setup_many": "Exécutez d'abord la cellule d'installation ci-dessous : elle installe "
                         "{listed}, s'ils manquent. Sur Kaggle, l'installation demande "
                         "d'activer *Settings › Internet* (compte vérifié par téléphone).",
    "gpus_one": "d'un GPU", "gpus_many": "de {n} GPU",
    "launch_cpu_only": "Cette section tire parti {gpus}, mais {framework} n'a pas de version "
                       "GPU installable sur Colab ni sur Kaggle (le projet est arrêté depuis "
                       "2023 et ses paquets CUDA s'arrêtent à CUDA 11) : ici, tout tourne sur le "
                       "processeur, ce que le code détecte et affiche.",
    "launch_gpu": "Cette section tire parti {gpus}. Sur Colab : *Exécution › Modifier le type "
                  "d'exécution › GPU*. Sur Kaggle : *Settings › Accelerator › GPU*. Sans GPU, le "
                  "code tourne quand même, sur le processeur, et le dit.",
    "launch_no_gpu": "Cette section n'a pas besoin de GPU.",
    "launch_outputs": "Les sorties déjà affichées sont celles du livre : {provenance} Les vôtres "
                      "les remplaceront.",
    "launch_restart": "Redémarrez la session (Colab : Exécution › Redémarrer la session), puis "
                      "reprenez à la cellule suivante :",
    "launch_changed": "a changé de version.",
    "launch_python": "{framework} demande Python {python} au plus, et cette session a un Python "
    "plus récent : lancez ce carnet dans l'environnement du livre (README du dépôt) ou dans un "
    "conteneur Python {python}.",
}

ENGLISH = {
    "skip": "Skip to content",
    "contents": "Contents",
    "contents_label": "Contents of the book",
    "search_label": "Search the book",
    "search_placeholder": "Search…",
    "framework": "Framework",
    "theme": "Theme: {theme}",
    "theme_change": "Theme: {theme} (change)",
    "theme_auto": "automatic",
    "theme_light": "light",
    "theme_dark": "dark",
    "download_pdf": "Download the PDF ({framework})",
    "missing_pdf": "The PDF ({framework}) was not printed; to make it:",
    "release": "{title}, version {release}.",
    "open_colab": "Open in Colab",
    "open_kaggle": "Open in Kaggle",
    "download_notebook": "Download the {framework} notebook (.ipynb)",
    "launch_elsewhere": "The {framework} notebook runs neither on Colab nor on Kaggle, whose "
    "Python is too recent: run it with Python {python} or older, in the book's environment (see "
    "the {readme}) or in a container.",
    "readme": "repository's README", "chapter_sections": "Sections of this chapter",
    "tab_absent": "No {framework} version of this passage.",
    "outline": "On this page",
    "pager": "Previous and next pages",
    "previous": "Previous",
    "next": "Next",
    "missing_tab": "This section does not exist in {missing}; it is shown in {shown}.",
    "no_code": "This page has no executed code.",
    "not_executed": "The code of this page was not executed to build the book.",
    "header_links": "Links",
    "search": "Search",
    "search_server": "Search needs a web server: run {command} in {folder}, then open {url}.",
    "search_offline": "Search works offline: the index is part of the site.",
    "search_found": "{count} page(s) for “{query}”",
    "copy": "Copy",
    "copy_label": "Copy the code",
    "copied": "Copied",
    "heading_link": "Link to this part",
    "figure": "Fig. {number}",
    "table": "Table {number}",
    "output_figure": "Figure produced by the code",
    "missing_value": "[value not computed: {expression}]",
    "ref_chapter": "Chapter {number}",
    "ref_section": "Section {number}",
    "ref_figure": "Fig. {number}",
    "ref_table": "Table {number}",
    "ref_equation": "Equation {number}",
    "and": "and",
    "et_al": "et al.",
    "no_date": "n.d.",
    "citations": "; ",
    "ran": "{framework} code executed on {moment} {devices} — {framework} {version}, "
           "Python {python}, {seconds} s for {cells}.",
    "cells_one": "{n} cell",
    "cells_many": "{n} cells",
    "on_cpu": "on the CPU (no GPU)",
    "on_devices": "on {devices}",
    "device": "{name} ({memory} GiB, driver {driver}, CUDA {cuda})",
    "frozen_used": "These outputs are frozen in the book's repository ({path}): they are "
                   "computed again only when the code changes.",
    "frozen_stale": "The frozen result of this code, obtained on {moment} {devices}, is out of "
                    "date: the code, the d2l library or the major version of {framework} "
                    "changed since. The outputs shown therefore come from this build.",
    "edition": "{framework} edition",
    "version": "Version {release}, {date}",
    "contents_title": "Contents",
    "launch_title": "**{title}** — section “{section}”, **{framework}** version "
                    "(book {release}).",
    "launch_library": "the book's `d2l` package (version {release})",
    "launch_setup_one": "First run the setup cell below: it installs {listed} if it is "
                        "missing. On Kaggle, installing needs *Settings › Internet* turned on "
                        "(a phone-verified account).",
    "launch_setup_many": "First run the setup cell below: it installs {listed} if they are "
                         "missing. On Kaggle, installing needs *Settings › Internet* turned on "
                         "(a phone-verified account).",
    "gpus_one": "a GPU", "gpus_many": "{n} GPUs",
    "launch_cpu_only": "This section benefits from {gpus}, but {framework} has no GPU build "
                       "that installs on Colab or Kaggle (the project was retired in 2023 and "
                       "its CUDA packages stop at CUDA 11): here everything runs on the CPU, "
                       "which the code detects and prints.",
    "launch_gpu": "This section benefits from {gpus}. On Colab: *Runtime › Change runtime type "
                  "› GPU*. On Kaggle: *Settings › Accelerator › GPU*. Without a GPU the code "
                  "still runs, on the CPU, and says so.",
    "launch_no_gpu": "This section needs no GPU.",
    "launch_outputs": "The outputs already shown are the book's: {provenance} Yours will "
                      "replace them.",
    "launch_restart": "Restart the session (Colab: Runtime › Restart session), then go on from "
                      "the next cell:",
    "launch_changed": "changed version.",
    "launch_python": "{framework} needs Python {python} or older, and this session has a newer "
    "Python: run this notebook in the book's environment (the repository's README) or in a "
    "Python {python} container.",
}

# Modelled on d2l-zh (its numfig_format: 图1.2, 表1.2, 1.2节).
CHINESE = {
    "skip": "跳到正文",
    "contents": "目录",
    "contents_label": "本书目录",
    "search_label": "在书中搜索",
    "search_placeholder": "搜索…",
    "framework": "框架",
    "theme": "主题：{theme}",
    "theme_change": "主题：{theme}（切换）",
    "theme_auto": "自动",
    "theme_light": "浅色",
    "theme_dark": "深色",
    "download_pdf": "下载 PDF（{framework}）",
    "missing_pdf": "PDF（{framework}）尚未生成；生成方法：",
    "release": "{title}，版本 {release}。",
    "open_colab": "在 Colab 中打开",
    "open_kaggle": "在 Kaggle 中打开",
    "download_notebook": "下载 {framework} 笔记本（.ipynb）",
    "launch_elsewhere": "{framework} 笔记本无法在 Colab 或 Kaggle 上运行（它们的 Python 太新）："
                        "请用 Python {python} 或更早的版本运行，可使用本书的环境（见{readme}）或容器。",
    "readme": "仓库的 README", "tab_absent": "这段内容没有 {framework} 版本。", "chapter_sections": "本章各节",
    "outline": "本页内容",
    "pager": "上一页和下一页",
    "previous": "上一页",
    "next": "下一页",
    "missing_tab": "本节没有 {missing} 版本，这里显示的是 {shown} 版本。",
    "no_code": "本页没有执行的代码。",
    "not_executed": "构建本书时未执行本页的代码。",
    "header_links": "链接",
    "search": "搜索",
    "search_server": "搜索需要网页服务器：在 {folder} 中运行 {command}，然后打开 {url}。",
    "search_offline": "搜索无需联网：索引就在网站中。",
    "search_found": "“{query}”：{count} 个页面",
    "copy": "复制",
    "copy_label": "复制代码",
    "copied": "已复制",
    "heading_link": "此标题的链接",
    "figure": "图{number}",
    "table": "表{number}",
    "output_figure": "代码生成的图",
    "missing_value": "[未计算的值：{expression}]",
    "ref_chapter": "第{number}章",
    "ref_section": "{number}节",
    "ref_figure": "图{number}",
    "ref_table": "表{number}",
    "ref_equation": "式({number})",
    "and": "and",
    "et_al": "et al.",
    "no_date": "n.d.",
    "citations": "; ",
    "ran": "{framework} 代码于 {moment} {devices}执行——{framework} {version}，"
           "Python {python}，{cells}共用时 {seconds} 秒。",
    "cells_one": "{n} 个单元格",
    "cells_many": "{n} 个单元格",
    "on_cpu": "在处理器上（无 GPU）",
    "on_devices": "在 {devices} 上",
    "device": "{name}（{memory} GiB，驱动 {driver}，CUDA {cuda}）",
    "frozen_used": "这些输出固定保存在本书的仓库中（{path}）：只有代码改变时才会重新计算。",
    "frozen_stale": "这段代码的固定结果（于 {moment} {devices}得到）已过期：此后代码、d2l 库或 "
                    "{framework} 的主版本发生了变化。因此这里显示的输出来自本次构建。",
    "edition": "{framework} 版",
    "version": "版本 {release}，{date}",
    "contents_title": "目录",
    "launch_title": "**{title}** — “{section}”一节，**{framework}** 版本（本书 {release}）。",
    "launch_library": "本书的 `d2l` 包（版本 {release}）",
    "launch_setup_one": "请先运行下面的安装单元格：如果缺少{listed}，它会安装。在 Kaggle 上安装需要"
                        "打开 *Settings › Internet*（账户需经手机验证）。",
    "launch_setup_many": "请先运行下面的安装单元格：如果缺少{listed}，它会安装。在 Kaggle 上安装需要"
                         "打开 *Settings › Internet*（账户需经手机验证）。",
    "gpus_one": "一个 GPU", "gpus_many": "{n} 个 GPU",
    "launch_cpu_only": "本节可以利用{gpus}，但 {framework} 没有能在 Colab 或 Kaggle 上安装的 GPU "
                       "版本（该项目已于 2023 年停止维护，其 CUDA 包只支持到 CUDA 11）：这里一切都在"
                       "处理器上运行，代码会检测并显示这一点。",
    "launch_gpu": "本节可以利用{gpus}。在 Colab 上：*代码执行程序 › 更改运行时类型 › GPU*。"
                  "在 Kaggle 上：*Settings › Accelerator › GPU*。没有 GPU 时，代码照样在处理器上"
                  "运行，并会说明这一点。",
    "launch_no_gpu": "本节不需要 GPU。",
    "launch_outputs": "已显示的输出来自本书：{provenance}你运行后的输出会替换它们。",
    "launch_restart": "请重启会话（Colab：代码执行程序 › 重启会话），然后从下一个单元格继续：",
    "launch_changed": "的版本已改变。",
    "launch_python": "{framework} 需要 Python {python} 或更早的版本，而本会话的 Python 更新：请在本书"
                     "的环境（见仓库的 README）或 Python {python} 容器中运行本笔记本。",
}

CATALOGUES = {"fr": FRENCH, "en": ENGLISH, "zh": CHINESE}
"""Language code -> its catalogue; every catalogue has the same keys (a test checks it)."""

_MONTHS = {
    "fr": ("janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août",
           "septembre", "octobre", "novembre", "décembre"),
    "en": ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December"),
}


def _french_date(day: datetime.date) -> str:
    return f"{'1er' if day.day == 1 else day.day} {_MONTHS['fr'][day.month - 1]} {day.year}"


def _english_date(day: datetime.date) -> str:
    return f"{_MONTHS['en'][day.month - 1]} {day.day}, {day.year}"


def _chinese_date(day: datetime.date) -> str:
    return f"{day.year}年{day.month}月{day.day}日"


# A date and an hour (UTC): the provenance sentence's.
_DATES = {"fr": _french_date, "en": _english_date, "zh": _chinese_date}
_MOMENTS = {"fr": lambda when: when.strftime("%d/%m/%Y à %H:%M UTC"),
            "en": lambda when: f"{_english_date(when)} at {when:%H:%M} UTC",
            "zh": lambda when: f"{_chinese_date(when)} {when:%H:%M} UTC"}
_DECIMAL_COMMA = {"fr"}
_LIST_SEPARATOR = {"zh": "、"}
_AND = {"fr": " et ", "en": " and ", "zh": "和"}


@dataclass(frozen=True)
class Language:
    """The book's language: the catalogue its readers' words come from, and its tag."""
    code: str
    """The catalogue: a key of `CATALOGUES`."""
    tag: str
    """What the HTML ``lang`` attribute says: the book's language as written (``zh-CN``),
    even when its catalogue is English."""

    def text(self, key: str, **values: object) -> str:
        """The catalogue's string `key`, with its ``{named}`` values filled in."""
        return self.template(key).format(**values)

    def template(self, key: str) -> str:
        """The catalogue's string `key` as written, ``{named}`` values unfilled."""
        return CATALOGUES[self.code][key]

    def plural(self, key: str, n: int) -> str:
        """``key_one`` or ``key_many`` for `n` things, e.g. « 1 cellule », « 3 cellules »."""
        return self.text(f"{key}_one" if n == 1 else f"{key}_many", n=n)

    def join(self, items: Sequence[str]) -> str:
        """« a, b et c », “a, b and c”, 「a、b和c」."""
        if len(items) < 2:
            return "".join(items)
        separator = _LIST_SEPARATOR.get(self.code, ", ")
        return separator.join(items[:-1]) + _AND[self.code] + items[-1]

    def sentences(self, *texts: str) -> str:
        """Sentences one after the other (a space between them, none in Chinese)."""
        return ("" if self.code == "zh" else " ").join(filter(None, texts))

    def date(self, day: datetime.date) -> str:
        """« 1er novembre 2026 », “November 1, 2026”, 「2026年11月1日」."""
        return _DATES[self.code](day)

    def moment(self, when: datetime.datetime) -> str:
        """A date and time in UTC: « 21/11/2026 à 10:00 UTC »."""
        return _MOMENTS[self.code](when)

    def decimal(self, value: float) -> str:
        """`value` with one decimal, as the language writes it: « 4,2 », “4.2”."""
        text = f"{value:.1f}"
        return text.replace(".", ",") if self.code in _DECIMAL_COMMA else text

    @property
    def french(self) -> bool:
        """Whether French typography applies (``output/typography.py``)."""
        return self.code == "fr"


ENGLISH_LANGUAGE = Language(DEFAULT, DEFAULT)
_TAG = re.compile(r"[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*")


def language_of(written: str) -> tuple[Language, str | None]:
    """The `Language` of ``[project] lang = written``, and what is wrong with it (None when
    nothing): an empty value is English (d2lbook's default); a language without a
    catalogue here reads in English too (Sphinx's fallback), which the caller warns about."""
    tag = written.strip().replace("_", "-")
    if not tag:
        return ENGLISH_LANGUAGE, None
    primary, _, rest = tag.partition("-")
    primary = primary.lower()
    if primary in CATALOGUES:
        return Language(primary, "-".join(filter(None, [primary, rest]))), None
    if not _TAG.fullmatch(tag):
        return ENGLISH_LANGUAGE, f"{written!r} is not a language code"
    return Language(DEFAULT, tag), f"{written!r} has no catalogue of interface strings here"
