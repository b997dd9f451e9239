"""The words readers see, per language: one catalogue per supported language, with the
same keys (a test checks it). `language.py` reads them; `{named}` values are filled in there.
"""
from __future__ import annotations

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
    "package_title": "Le paquet d2l",
    "package_intro": "Les fonctions et les classes que les sections du livre enregistrent dans "
                     "le paquet d2l (marque #@save), dans l'ordre du livre ; les méthodes "
                     "qu'une section ajoute à une classe (@d2l.add_to_class) sont listées sous "
                     "elle.",
    "defined_in": "Définie dans la section {section} ({file}, ligne {line}).",
    "added_in": "Ajoutée dans la section {section} ({file}, ligne {line}).",
    "readme": "README du dépôt", "chapter_sections": "Sections de ce chapitre",
    "tab_absent": "Pas de version {framework} de ce passage.",
    "tab_elsewhere": "Ce passage concerne {frameworks}.",
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
    "search_found_first": "Les {count} premières pages pour « {query} », et d'autres",
    "search_more": "Plus de résultats",
    "copy": "Copier",
    "copy_label": "Copier le code",
    "copied": "Copié",
    "heading_link": "Lien vers cette partie",
    "figure": "Figure {number}",
    "table": "Tableau {number}",
    "output_figure": "Figure produite par le code",
    "figure_plot": "Graphique : {content}",
    "figure_versus": "{y} en fonction de {x}",
    "figure_axis_x": "{x} en abscisse",
    "missing_value": "[valeur non calculée : {expression}]",
    "output_cut": "[… sortie tronquée : {size} Mo en tout ; seuls son début et sa fin sont "
                  "montrés (au plus {kept} caractères chacun) …]",
    # -- the live preview's page for a file not (yet) built
    "page_missing": "Page introuvable",
    "page_missing_text": "Cette page n'existe pas (encore) dans le livre construit. Elle se "
    "rechargera d'elle-même dès qu'une construction la produira.",
    "preview_problems": "Erreurs de construction",
    "preview_failed": "La construction a échoué : cette page montre la dernière version "
    "construite. Corrigez la source, la page se rechargera d'elle-même.",
    # -- references (:numref:) and citations
    "ref_chapter": "chapitre {number}",
    "ref_section": "section {number}",
    "ref_figure": "figure {number}",
    "ref_table": "tableau {number}",
    "ref_equation": "équation {number}",
    "and": "et",
    "et_al": "et al.",
    "no_date": "s. d.",
    "citations": "\u202f; ",   # the narrow no-break space French puts before « ; »
    # -- where the outputs come from
    "ran": "Code {framework} exécuté le {moment} {devices} — {framework} {version}, "
           "Python {python}, {seconds} s pour {cells}.",
    "cells_one": "{n} cellule",
    "cells_many": "{n} cellules",
    "on_cpu": "sur le processeur (aucun GPU)",
    "gpu_elsewhere": "Les sorties {tabs} de cette section viennent, elles, d'un GPU : "
                     "comparez les durées en connaissance de cause.",
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
    "launch_library": "le paquet `d2l` du livre dans la version avec laquelle ce carnet a été "
                      "exécuté ({version})",
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
    # -- the slide decks
    "slides": "Diapositives",
    "slides_index": "Diapositives du livre",
    "slides_section": "Lire la section dans le livre",
    "slides_book": "Retour au livre",
    "slides_print": "version à imprimer",
    "slides_none": "Aucune section n'a de diapositives.",
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
    "package_title": "The d2l package",
    "package_intro": "The functions and classes the book's sections save in the d2l package "
                     "(#@save mark), in book order; the methods a section adds to a class "
                     "(@d2l.add_to_class) are listed under it.",
    "defined_in": "Defined in Section {section} ({file}, line {line}).",
    "added_in": "Added in Section {section} ({file}, line {line}).",
    "readme": "repository's README", "chapter_sections": "Sections of this chapter",
    "tab_absent": "No {framework} version of this passage.",
    "tab_elsewhere": "This passage is about {frameworks}.",
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
    "search_found_first": "The first {count} pages for “{query}”, and more",
    "search_more": "More results",
    "copy": "Copy",
    "copy_label": "Copy the code",
    "copied": "Copied",
    "heading_link": "Link to this part",
    "figure": "Fig. {number}",
    "table": "Table {number}",
    "output_figure": "Figure produced by the code",
    "figure_plot": "Plot: {content}",
    "figure_versus": "{y} against {x}",
    "figure_axis_x": "{x} on the horizontal axis",
    "missing_value": "[value not computed: {expression}]",
    "output_cut": "[… output cut: {size} MB in all; only its beginning and end are shown "
                  "(at most {kept} characters each) …]",
    "page_missing": "Page not found",
    "page_missing_text": "This page does not exist (yet) in the built book. It will reload "
    "by itself as soon as a build makes it.",
    "preview_problems": "Build errors",
    "preview_failed": "The build failed: this page shows the last version built. Fix the "
    "source, and the page will reload by itself.",
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
    "gpu_elsewhere": "The {tabs} outputs of this section come from a GPU: keep that in "
                     "mind when comparing durations.",
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
    "launch_library": "the book's `d2l` package in the version this notebook was executed "
                      "with ({version})",
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
    # -- the slide decks
    "slides": "Slides",
    "slides_index": "The book's slides",
    "slides_section": "Read the section in the book",
    "slides_book": "Back to the book",
    "slides_print": "printable version",
    "slides_none": "No section has slides.",
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
    "readme": "仓库的 README", "tab_absent": "这段内容没有 {framework} 版本。",
    "package_title": "d2l 包",
    "package_intro": "本书各节用 #@save 标记保存到 d2l 包中的函数和类，按本书顺序排列；某节用 "
                     "@d2l.add_to_class 添加到类的方法列在该类之下。",
    "defined_in": "定义于 {section} 节（{file}，第 {line} 行）。",
    "added_in": "添加于 {section} 节（{file}，第 {line} 行）。",
    "tab_elsewhere": "这段内容只涉及 {frameworks}。", "chapter_sections": "本章各节",
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
    "search_found_first": "“{query}”：前 {count} 个页面，还有更多",
    "search_more": "更多结果",
    "copy": "复制",
    "copy_label": "复制代码",
    "copied": "已复制",
    "heading_link": "此标题的链接",
    "figure": "图{number}",
    "table": "表{number}",
    "output_figure": "代码生成的图",
    "figure_plot": "图表：{content}",
    "figure_versus": "{y}随{x}的变化",
    "figure_axis_x": "横轴为{x}",
    "missing_value": "[未计算的值：{expression}]",
    "output_cut": "[… 输出已截断：共 {size} MB；只显示开头和结尾（各不超过 {kept} 个字符）…]",
    "page_missing": "找不到页面",
    "page_missing_text": "构建好的书中（还）没有这个页面。一旦构建生成了它，页面会自动重新加载。",
    "preview_problems": "构建错误",
    "preview_failed": "构建失败：此页面显示的是最后一次构建好的版本。修正源文件后，页面会自动重新加载。",
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
    "gpu_elsewhere": "本节的 {tabs} 输出来自 GPU，比较耗时时请注意这一点。",
    "on_devices": "在 {devices} 上",
    "device": "{name}（{memory} GiB，驱动 {driver}，CUDA {cuda}）",
    "frozen_used": "这些输出固定保存在本书的仓库中（{path}）：只有代码改变时才会重新计算。",
    "frozen_stale": "这段代码的固定结果（于 {moment} {devices}得到）已过期：此后代码、d2l 库或 "
                    "{framework} 的主版本发生了变化。因此这里显示的输出来自本次构建。",
    "edition": "{framework} 版",
    "version": "版本 {release}，{date}",
    "contents_title": "目录",
    "launch_title": "**{title}** — “{section}”一节，**{framework}** 版本（本书 {release}）。",
    "launch_library": "执行本笔记本时所用版本的本书 `d2l` 包（{version}）",
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
    # -- the slide decks
    "slides": "幻灯片",
    "slides_index": "本书的幻灯片",
    "slides_section": "在书中阅读本节",
    "slides_book": "返回本书",
    "slides_print": "打印版",
    "slides_none": "没有小节包含幻灯片。",
}

CATALOGUES = {"fr": FRENCH, "en": ENGLISH, "zh": CHINESE}
"""Language code -> its catalogue; every catalogue has the same keys (a test checks it)."""
