"""Unit tests of source/sections.py: one .md file's text read into its `Section` (cells,
tabs, declaration, labels, references), each problem at its line."""
from __future__ import annotations

from pathlib import Path

from tabbook.core.model import ALL_TABS, CellKind, Image, Label, Reference, Section
from tabbook.source.sections import SectionParser

from conftest import md

TABS = ("pytorch", "mxnet", "tensorflow")


def read(text: str) -> tuple[Section, list[str]]:
    section = Section(Path("chap/sec.md"), "chapters/chap/sec.md")
    parser = SectionParser(section, TABS)
    parser.run(text)
    return section, [str(problem) for problem in parser.problems]


def cells(section: Section) -> list[tuple]:
    return [(c.kind, c.line, c.tabs, c.tab_line, c.source) for c in section.cells]


def test_a_section_with_its_declaration_cells_labels_and_references():
    section, problems = read(md(
        "# Titre :label:`sec_t`",
        "Voir :numref:`fig_x` et :cite:`a, b`.",
        "![Une figure](img/x.png)\n:label:`fig_x`",
        """
        ```{.python .input}
        %load_ext d2lbook.tab
        tab.interact_select(['pytorch', 'mxnet'])
        #required_libs("pkg==1.0")
        #gpus(2)
        ```""",
        "```{.python .input}\n%%tab pytorch\nx = 1\n```",
        ":begin_tab:`mxnet`\nTexte MXNet.\n:end_tab:",
        "```bash\nls\n```"))
    assert problems == []
    assert (section.title, section.tabs, section.declared_tabs) == (
        "Titre", ("pytorch", "mxnet"), ("pytorch", "mxnet"))
    assert (section.required_libs, section.gpus, section.declaration_line) == (("pkg==1.0",), 2, 8)
    assert section.labels == [Label("sec_t", "section", 1, "Titre", "label", 1),
                              Label("fig_x", "figure", 6, "Une figure", "label", 5)]
    assert section.references == [Reference("numref", "fig_x", 3)]
    assert section.citations == [Reference("cite", "a", 3), Reference("cite", "b", 3)]
    assert section.images == [Image("img/x.png", "Une figure", 5)]
    assert [c[:4] for c in cells(section)] == [
        (CellKind.PROSE, 1, (ALL_TABS,), None), (CellKind.CODE, 17, ("pytorch",), 16),
        (CellKind.PROSE, 21, ("mxnet",), 20), (CellKind.DISPLAY, 25, (ALL_TABS,), None)]
    assert section.cells[1].source == "x = 1"   # the tab mark is not code
    assert section.cells[3].fence == "bash"


def test_tab_marks_anywhere_in_a_cell():
    section, problems = read(md(
        "# T",
        "```{.python .input}\ny = 2\n%%tab mxnet\n```",
        "```{.python .input}\n%%tab pytorch\nx\n#@tab mxnet\n```",
        "```{.python .input}\n#@tab pytorch\nif 1:\n    #@tab pytorch\n    x\n```"))
    assert problems == [
        "chapters/chap/sec.md:5: warning: %%tab is not on the first line of the cell (it "
        "applies to the whole cell) — move it to the cell's first line",
        # d2lbook takes the older #@tab first: the %%tab line names other tabs.
        "chapters/chap/sec.md:9: warning: a tab mark inside the cell (%%tab pytorch) names "
        "other tabs than the cell's (mxnet, from line 11: d2lbook takes a cell's first #@tab "
        "line, else its first %%tab line); it is removed from the code — split the cell "
        "there, each part with its own %%tab line",
        "chapters/chap/sec.md:11: warning: #@tab is not on the first line of the cell (it "
        "applies to the whole cell) — move it to the cell's first line",
        "chapters/chap/sec.md:17: warning: a tab mark inside the cell (#@tab pytorch) is "
        "removed from the code, as d2lbook removes it — remove the line: line 15 gives the "
        "cell's tabs"]
    assert [c[1:] for c in cells(section)[1:]] == [
        (4, ("mxnet",), 5, "y = 2\n%%tab mxnet"),
        (9, ("mxnet",), 11, "%%tab pytorch\nx\n#@tab mxnet"),
        (16, ("pytorch",), 15, "if 1:\n    #@tab pytorch\n    x")]
    # Without a declaration, the tabs the cells name, in the book's order.
    assert section.tabs == ("pytorch", "mxnet")


def test_tabs_without_declaration():
    assert read("# T\n\nTexte.\n")[0].tabs == TABS   # no code: every tab
    assert read("# T\n\n```{.python .input}\nx = 1\n```\n")[0].tabs == ("pytorch",)
    assert read(md("# T", ":begin_tab:`tensorflow`\nT\n:end_tab:",
                   "```{.python .input}\n%%tab mxnet\nx\n```"))[0].tabs == ("mxnet", "tensorflow")


def test_fences_and_tab_blocks_left_open():
    section, problems = read("```{.python .input}\nx = 1\n\n```{.python .input}\ny = 2\n```\n"
                             ":end_tab:\n:begin_tab:`pytorch`\na\n:begin_tab:`mxnet`\nb\n")
    assert problems == [
        "chapters/chap/sec.md:1: code fence ``` is not closed before the next cell's fence at "
        "line 4 — add a line ``` at the end of the code",
        "chapters/chap/sec.md:7: warning: :end_tab: without a matching :begin_tab: (ignored) — "
        "remove it or add :begin_tab:`<tab>` before the block",
        "chapters/chap/sec.md:8: warning: :begin_tab: is not closed before the next "
        ":begin_tab: at line 10 (closed there) — add :end_tab: before line 10",
        "chapters/chap/sec.md:10: warning: :begin_tab: is never closed (it runs to the end of "
        "the file) — add :end_tab: after the tab's prose",
        "chapters/chap/sec.md:1: warning: the section has no '# Title' heading (its file name "
        "stands in) — start it with '# Title'"]
    assert section.title == "sec"
    assert [c[:3] + c[4:] for c in cells(section)] == [
        (CellKind.CODE, 2, ("pytorch",), "x = 1\n"), (CellKind.CODE, 5, ("pytorch",), "y = 2"),
        (CellKind.PROSE, 9, ("pytorch",), "a"), (CellKind.PROSE, 11, ("mxnet",), "b")]


def test_a_displayed_block_left_open_swallows_the_next_cell():
    section, problems = read("# T\n\n```\nshown\n```{.python .input}\nx\n```\n")
    assert problems == [
        "chapters/chap/sec.md:3: warning: the ``` block is not closed: it runs on to the fence "
        "at line 7 and swallows the code cell at line 5, shown as text, never run (as d2lbook "
        "reads it) — close it with a line ``` before line 5"]
    assert [c.kind for c in section.cells] == [CellKind.PROSE, CellKind.DISPLAY]
    assert read("```{.python .input}\nx\n")[1][0] == (
        "chapters/chap/sec.md:1: code fence ``` is never closed — add a line ``` after the code")


def test_a_bad_declaration_cell_line_by_line():
    _, problems = read(md("# T", """
        ```{.python .input}
        %load_ext d2lbook.tab
        tab.interact_select(['pytorch', x])
        #gpus(deux)
        #required_libs(1)
        print(1)
        ```""", "```{.python .input}\n%load_ext d2lbook.tab\n```"))
    assert problems == [
        "chapters/chap/sec.md:5: cannot read the tab list in \"tab.interact_select(['pytorch', "
        "x])\" — write tab.interact_select(['mxnet', 'pytorch', 'tensorflow'])",
        "chapters/chap/sec.md:6: #gpus needs a whole number, got 'deux' — write #gpus(2)",
        "chapters/chap/sec.md:7: cannot read '#required_libs(1)' — write "
        "#required_libs(\"package==1.0\", ...)",
        "chapters/chap/sec.md:8: code in the tab declaration cell is never run — move it to a "
        "cell of its own",
        "chapters/chap/sec.md:11: the tab declaration is not the section's first code cell — "
        "move %load_ext d2lbook.tab / tab.interact_select(...) to the first code cell, once"]


def test_toc_eval_rst_and_an_empty_section():
    section, problems = read(md("# T", "```toc\n:numbered:\n:maxdepth: 2\n\nchap/a\nb.md\n```",
                                "```eval_rst\n.. note::\n```"))
    assert [(e.target, e.line, e.numbered) for e in section.toc] == [("chap/a", 7, True),
                                                                     ("b.md", 8, True)]
    assert problems == [
        "chapters/chap/sec.md:11: warning: an eval_rst block (reStructuredText for d2lbook's "
        "Sphinx) is kept in the notebooks but not shown in the HTML — write it in Markdown"]
    assert read("\n")[1] == ["chapters/chap/sec.md:1: warning: empty section — write its "
                             "content or remove it and its TOC entry"]
