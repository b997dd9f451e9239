"""Unit tests of source/magics.py: where IPython finds a cell magic, and the magics it
does not know, each with its fix."""
from __future__ import annotations

from tabbook.source.magics import CellMagic, cell_magic, loads_extension, unknown_magics


def test_the_cell_magic_is_on_the_first_line_that_is_not_blank():
    assert cell_magic(["", "  %%bash -e", "ls"]) == CellMagic(1, "bash", "%%bash -e")
    # A tab mark counts as blank: the split removes it.
    assert cell_magic(["%%tab pytorch", "%%time", "x = 1"]) == CellMagic(1, "time", "%%time")
    assert cell_magic(["#@tab mxnet", "", "%%capture out"]) == CellMagic(2, "capture",
                                                                        "%%capture out")
    assert cell_magic(["%%"]) == CellMagic(0, "", "%%")
    # Anywhere else, %% is not a cell magic (IPython reads it as code).
    assert cell_magic(["x = 1", "%%bash"]) is None
    assert cell_magic(["", "   "]) is None


def test_a_known_cell_magic_after_a_blank_first_line_is_no_issue():
    assert unknown_magics("\n%%bash\nls -l\n%notamagic") == []


def test_a_misspelt_tab_mark_is_corrected_into_the_tab_mark():
    [issue] = unknown_magics("%%tabs mxnet\nx = 1")
    assert issue.index == 0
    assert issue.message == ("unknown cell magic %%tabs in '%%tabs mxnet' (the kernel stops "
                             "the cell: 'Cell magic not found')")
    assert issue.fix == "to mark the cell's tab, write %%tab mxnet"
    [issue] = unknown_magics("%%tab pytorch\n%%Tabs\nx")
    assert (issue.index, issue.fix) == (1, "to mark the cell's tab, write %%tab <tab>")


def test_an_unknown_cell_magic_gets_the_closest_known_one():
    [issue] = unknown_magics("\n%%bsh\nls")
    assert (issue.index, issue.fix) == (1, "did you mean %%bash?")


def test_unknown_line_magics_each_at_their_line():
    source = "x = 1\n%matplotlb inline\ny = x % 2\nz = %pwd\nw = %zzzzqqq\n%timeit f()"
    issues = unknown_magics(source)
    assert [(i.index, i.fix) for i in issues] == [
        (1, "did you mean %matplotlib?"),
        (4, "use one of IPython's magics (%lsmagic lists them), or remove the % line")]
    assert issues[0].message == ("unknown line magic %matplotlb (the kernel stops the cell: "
                                 "'Line magic function not found')")


def test_loading_an_extension_other_than_d2lbooks_tabs():
    assert loads_extension(["x = 1", "y = 2\n  %load_ext autoreload"])
    assert not loads_extension(["%load_ext d2lbook.tab", "tab.interact_select(['mxnet'])"])
    assert not loads_extension([])
