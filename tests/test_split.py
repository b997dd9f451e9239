"""The split stage: per-framework notebooks, and tab.selected resolved on the syntax tree."""
from __future__ import annotations

import ast
import re

import nbformat
import pytest

from conftest import DECLARE, REPO, SEED, md, shared_path
from tabbook.core.config import load_config
from tabbook.core.frameworks import framework
from tabbook.source.parse import parse_book, parse_section
from tabbook.source.pycode import analyse
from tabbook.core.layout import Layout
from tabbook.notebooks.split import code_cells, split_section, write_notebooks

TABS = ("pytorch", "mxnet", "tensorflow")


def section_from(tmp_path, text: str, name: str = "sec.md"):
    chapters = tmp_path / "chapters"
    chapters.mkdir(exist_ok=True)
    (chapters / name).write_text(text, encoding="utf-8")
    section, problems = parse_section(chapters / name, chapters, tmp_path, TABS)
    assert problems == []
    return section


def code(notebook) -> list[str]:
    return [c.source for c in notebook.cells if c.cell_type == "code"]


def resolve(source: str, tab: str) -> str:
    return analyse(source).resolve(tab).text


# -- tab.selected -----------------------------------------------------------

CHAIN = '''\
def f(x):
    if tab.selected('pytorch'):
        y = x + 1

        return y
    elif tab.selected('mxnet', 'tensorflow'):
        return x - 1
    else:
        return x
'''


def test_if_elif_chain_keeps_the_branch_of_each_tab_dedented_with_blank_lines():
    assert resolve(CHAIN, "pytorch") == "def f(x):\n    y = x + 1\n\n    return y\n"
    assert resolve(CHAIN, "mxnet") == "def f(x):\n    return x - 1\n"
    assert resolve(CHAIN, "tensorflow") == "def f(x):\n    return x - 1\n"
    assert resolve(CHAIN, "jax") == "def f(x):\n    return x\n"


def test_not_and_list_arguments():
    source = "if not tab.selected(['mxnet']):\n    a = 1\nelse:\n    a = 2\n"
    assert resolve(source, "pytorch") == "a = 1\n"
    assert resolve(source, "mxnet") == "a = 2\n"


def test_boolean_combinations_of_tab_tests():
    source = ("if tab.selected('pytorch') or tab.selected('mxnet') and not "
              "tab.selected('mxnet'):\n    a = 1\n")
    assert resolve(source, "pytorch") == "a = 1\n"
    assert resolve(source, "mxnet") == ""


def test_nested_blocks_and_nested_tab_tests():
    source = '''\
class A:
    def m(self):
        for i in range(3):
            if tab.selected('pytorch', 'mxnet'):
                if tab.selected('pytorch'):
                    print('torch', i)
                else:
                    print('mx', i)
            print(i)
'''
    assert resolve(source, "pytorch") == (
        "class A:\n    def m(self):\n        for i in range(3):\n"
        "            print('torch', i)\n            print(i)\n")
    assert resolve(source, "mxnet").count("print('mx', i)") == 1
    assert resolve(source, "tensorflow") == (
        "class A:\n    def m(self):\n        for i in range(3):\n            print(i)\n")


def test_ordinary_conditions_around_tab_tests_are_kept():
    source = '''\
if x > 0:
    a = 1
elif tab.selected('pytorch'):
    a = 2
else:
    a = 3
'''
    assert resolve(source, "pytorch") == "if x > 0:\n    a = 1\nelse:\n    a = 2\n"
    assert resolve(source, "mxnet") == "if x > 0:\n    a = 1\nelse:\n    a = 3\n"
    source = "if tab.selected('mxnet'):\n    a = 1\nelif x:\n    a = 2\n"
    assert resolve(source, "pytorch") == "if x:\n    a = 2\n"


def test_decorated_definitions_in_branches_and_comments_survive():
    source = '''\
if tab.selected('pytorch'):
    # the PyTorch version
    @decorator
    def f():  #@save
        return 1
else:
    def f():
        return 2
'''
    assert resolve(source, "pytorch") == (
        "# the PyTorch version\n@decorator\ndef f():  #@save\n    return 1\n")
    assert resolve(source, "mxnet") == "def f():\n    return 2\n"


def test_magics_are_kept_and_do_not_stop_the_resolution():
    source = "!nvidia-smi\nif tab.selected('mxnet'):\n    %time f()\n"
    assert resolve(source, "mxnet") == "!nvidia-smi\n%time f()\n"
    assert resolve(source, "pytorch") == "!nvidia-smi\n"


# -- d2lbook's line-by-line reading of the branches ---------------------------------

# A class of a d2lbook book: the TensorFlow line belongs to __init__ for d2lbook, which
# drops the `if` line and dedents what follows by one level; Python nests it in the class.
MISLEADING = """\
class Module:
    if tab.selected('mxnet', 'tensorflow'):
        def __init__(self):
            self.board = []
        if tab.selected('tensorflow'):
            self.training = None
    if tab.selected('pytorch'):
        def __init__(self):
            self.board = []

    def describe(self):
        return 'module'
"""


def test_a_misleadingly_indented_branch_is_read_as_d2lbook_reads_it():
    # d2lbook's code, to the blank line that it drops with the PyTorch branch before it.
    resolved = analyse(MISLEADING).resolve("tensorflow")
    assert resolved.text == (
        "class Module:\n    def __init__(self):\n        self.board = []\n"
        "        self.training = None\n    def describe(self):\n        return 'module'\n")
    namespace: dict = {}
    exec(resolved.text, namespace)     # Python's nesting would fail here: no self in a class
    assert namespace["Module"]().training is None
    note = resolved.note
    assert note.index == 4     # the nested header, the branch d2lbook reads the line in
    assert note.located(20) == (
        "the indentation of this branch is misleading: d2lbook reads tab.selected branches "
        "line by line (it drops the if line and dedents the lines below it by one level) and "
        "puts line 25 in the block of line 22 (def __init__(self):), where Python's nesting "
        "puts it in the block of line 20 (class Module:); this build does as d2lbook")
    # The other tabs read the same either way: no warning.
    for tab in ("mxnet", "pytorch"):
        resolved = analyse(MISLEADING).resolve(tab)
        assert resolved.note is None
        assert "self.training" not in resolved.text and "self.board = []" in resolved.text


def test_where_both_readings_agree_nothing_changes_and_nothing_is_said():
    """The usual branches, `else` and `not` included: d2lbook's reading gives the same code
    (blank lines aside), so the code is Python's, without a warning."""
    sources = [CHAIN, MISLEADING.replace("        if tab.selected('tensorflow'):\n"
                                         "            self.training = None\n", ""),
               "if not tab.selected(['mxnet']):\n    a = 1\nelse:\n    a = 2\n\nb = 3\n",
               "def f(x):\n    if x:\n        return 1\n    elif tab.selected('mxnet'):\n"
               "        return 2\n    else:\n        return 3\n"]
    for source in sources:
        for tab in TABS:
            assert analyse(source).resolve(tab).note is None, (source, tab)
    assert resolve(sources[2], "mxnet") == "a = 2\n\nb = 3\n"
    assert resolve(sources[2], "pytorch") == "a = 1\n\nb = 3\n"


def test_the_last_tab_header_decides_alone_as_in_d2lbook():
    """A PyTorch branch nested in an MXNet one: Python never runs it, d2lbook keeps it for
    PyTorch (the last header read is the PyTorch one), dedented by one level."""
    source = ("class Layer:\n    if tab.selected('mxnet'):\n        def forward(self, x):\n"
              "            return x\n        if tab.selected('pytorch'):\n"
              "            def extra_repr(self):\n                return 'layer'\n")
    resolved = analyse(source).resolve("pytorch")
    assert resolved.text == ("class Layer:\n        def extra_repr(self):\n"
                             "            return 'layer'\n")
    assert resolved.note.located(1).endswith(
        "and keeps line 6, which Python's nesting drops; this build does as d2lbook")
    assert resolve(source, "mxnet") == "class Layer:\n    def forward(self, x):\n        return x\n"


def test_a_d2lbook_reading_that_does_not_compile_gives_way_to_python():
    """Tab branches nested as Python nests them: d2lbook's one-level dedent would leave the
    line after the inner branch over-indented (it could not build this cell)."""
    source = ("def f(x):\n    if tab.selected('pytorch', 'mxnet'):\n        y = 1\n"
              "        if tab.selected('pytorch'):\n            y = 2\n        x += y\n"
              "    return x\n")
    resolved = analyse(source).resolve("pytorch")
    assert resolved.text == "def f(x):\n    y = 1\n    y = 2\n    x += y\n    return x\n"
    assert resolved.note.index == 3
    assert resolved.note.located(1).endswith(
        "indents line 5 by 8 spaces, where Python's nesting indents it by 4; its code does "
        "not compile, so this build follows Python's nesting")


def test_tab_marks_inside_a_cell_are_removed_and_lines_still_point_at_the_md(tmp_path):
    text = md(DECLARE, """
        # Titre

        ```{.python .input}
        %%tab pytorch, mxnet
        def area(r):  #@save
            return 3 * r * r

        #@tab pytorch, mxnet
        def half(x):  #@save
            return x / 2
        ```

        ```{.python .input}
        x = 1
        %%tab mxnet
        y = 2
        ```
    """)
    (tmp_path / "sec.md").write_text(text, encoding="utf-8")
    section, problems = parse_section(tmp_path / "sec.md", tmp_path, tmp_path, TABS)
    assert [(p.line, p.warning) for p in problems] == [(13, True), (20, True)]
    lines = text.split("\n")
    for tab in ("pytorch", "mxnet"):
        (first, *rest) = [c for c in split_section(section, tab).cells if c.cell_type == "code"]
        assert first.source == ("def area(r):  #@save\n    return 3 * r * r\n\n"
                                "def half(x):  #@save\n    return x / 2")
        assert [lines[n - 1] for n in first.metadata["tabbook"]["lines"]] == \
            first.source.split("\n")
    # A %%tab further down gives the whole cell its tab; its line goes, with no blank left.
    (late,) = [c for c in split_section(section, "mxnet").cells if c.cell_type == "code"][1:]
    assert late.source == "x = 1\ny = 2" and late.metadata["tabbook"]["lines"] == [19, 21]


def test_a_tab_the_declaration_leaves_out_still_gets_its_notebook(tmp_path):
    """d2lbook makes a tab's notebook from the cells, whatever tab.interact_select says."""
    text = md(DECLARE, """
        # Titre

        ```{.python .input}
        %%tab all
        def double(x):  #@save
            return 2 * x
        ```

        ```{.python .input}
        %%tab jax
        import jax
        ```
    """)
    (tmp_path / "sec.md").write_text(text, encoding="utf-8")
    book_tabs = TABS + ("jax",)
    section, _ = parse_section(tmp_path / "sec.md", tmp_path, tmp_path, book_tabs)
    assert section.declared_tabs == TABS and section.tabs == book_tabs
    result = write_notebooks([section], book_tabs, Layout(tmp_path))
    assert result.missing_tabs == [] and len(result.written) == 4
    assert code(split_section(section, "jax")) == ["def double(x):  #@save\n    return 2 * x",
                                                   "import jax"]
    assert code(split_section(section, "pytorch")) == ["def double(x):  #@save\n    return 2 * x"]


# -- notebooks ----------------------------------------------------------------

def test_untagged_code_goes_to_the_default_tab_and_all_to_every_tab(tmp_path):
    section = section_from(tmp_path, md(DECLARE, """
        # Titre

        ```{.python .input}
        x = 'default'
        ```

        ```{.python .input}
        %%tab all
        y = 'all'
        ```

        ```{.python .input}
        %%tab mxnet, tensorflow
        z = 'two'
        ```
    """))
    assert code(split_section(section, "pytorch")) == ["x = 'default'", "y = 'all'"]
    assert code(split_section(section, "mxnet")) == ["y = 'all'", "z = 'two'"]
    assert code(split_section(section, "tensorflow")) == ["y = 'all'", "z = 'two'"]


def test_prose_tabs_slide_marks_and_displayed_code(tmp_path):
    section = section_from(tmp_path, md(DECLARE, """
        # Titre [**marqué**]

        Commun (**à tous**).

        :begin_tab:`pytorch`
        Pour PyTorch.

        ```bash
        pip install torch
        ```
        :end_tab:

        :begin_tab:`mxnet, tensorflow`
        Pour [**les deux**]
        autres.
        :end_tab:
    """))
    torch_md = "\n\n".join(c.source for c in split_section(section, "pytorch").cells)
    mx_md = "\n\n".join(c.source for c in split_section(section, "mxnet").cells)
    assert "# Titre marqué" in torch_md and "Commun à tous." in torch_md
    assert "Pour PyTorch." in torch_md and "```bash\npip install torch\n```" in torch_md
    assert "Pour les deux\nautres." in mx_md and "PyTorch" not in mx_md
    for text in (torch_md, mx_md):
        assert ":begin_tab:" not in text and ":end_tab:" not in text and "**" not in text


def test_notebook_metadata_lines_and_validity(tmp_path):
    text = md("""
        ```{.python .input}
        %load_ext d2lbook.tab
        tab.interact_select(['pytorch', 'mxnet'])
        #required_libs("syne-tune==0.13", "einops")
        #gpus(2)
        ```

        # Titre

        ```{.python .input}
        %%tab all
        if tab.selected('mxnet'):
            a = 1
        else:
            a = 2
        print(a)
        ```
    """)
    section = section_from(tmp_path, text)
    notebook = split_section(section, "pytorch")
    nbformat.validate(notebook)
    meta = notebook.metadata["tabbook"]
    assert meta == {"tab": "pytorch", "source": "chapters/sec.md", "title": "Titre",
                    "required_libs": ["syne-tune==0.13", "einops"], "gpus": 2}
    (cell,) = [c for c in notebook.cells if c.cell_type == "code"]
    assert cell.source == "a = 2\nprint(a)"
    lines = text.split("\n")
    assert [lines[n - 1].strip() for n in cell.metadata["tabbook"]["lines"]] == ["a = 2", "print(a)"]
    assert "%load_ext" not in nbformat.writes(notebook)


def test_cell_ids_follow_the_code_not_its_place(tmp_path):
    cell = "```{{.python .input}}\n%%tab all\n{}\n```"
    text = md(DECLARE, "# Titre", "Du texte.", cell.format("x = 1"), "Encore du texte.",
              cell.format("x = 1"), cell.format("print(x)"))
    notebook = split_section(section_from(tmp_path, text), "pytorch")
    nbformat.validate(notebook)
    codes = [c for c in notebook.cells if c.cell_type == "code"]
    ids = [c.id for c in codes]
    # Identical code: one hash, told apart by the occurrence number.
    assert len(set(ids)) == 3 and ids[0].rsplit("-", 1)[0] == ids[1].rsplit("-", 1)[0]
    assert len({c.id for c in notebook.cells}) == len(notebook.cells)

    inserted = text.replace("Du texte.", "Du texte.\n\nUn paragraphe de plus.\n\nEt un autre.")
    section = section_from(tmp_path, inserted)
    edited = split_section(section, "pytorch")
    assert [c.id for c in edited.cells if c.cell_type == "code"] == ids
    assert [c.metadata["tabbook"]["id"] for c in edited.cells if c.cell_type == "code"] == ids
    assert [c.metadata["tabbook"]["lines"][0] for c in edited.cells if c.cell_type == "code"] \
        == [c.metadata["tabbook"]["lines"][0] + 4 for c in codes]
    # The ids a later stage computes for the model's cells are the notebook's.
    assert [c.id for c in code_cells(section, "pytorch").values()] == ids
    # Markdown cells too: the same sources give the same bytes.
    assert nbformat.writes(split_section(section, "pytorch")) == nbformat.writes(edited)
    # Editing a cell changes its id only.
    changed = split_section(section_from(tmp_path, inserted.replace("print(x)", "print(-x)")),
                            "pytorch")
    changed_ids = [c.id for c in changed.cells if c.cell_type == "code"]
    assert changed_ids[:2] == ids[:2] and changed_ids[2] != ids[2]


def test_a_section_lacking_a_tab_gets_no_notebook_for_it(tmp_path):
    section = section_from(tmp_path, md("""
        ```{.python .input}
        %load_ext d2lbook.tab
        tab.interact_select(['pytorch', 'mxnet'])
        ```

        # Titre

        ```{.python .input}
        %%tab all
        a = 1
        ```
    """))
    result = write_notebooks([section], ("pytorch", "mxnet", "tensorflow"), Layout(tmp_path))
    names = sorted(p.relative_to(tmp_path).as_posix() for p in result.written)
    assert names == ["_build/notebooks/mxnet/sec.ipynb", "_build/notebooks/pytorch/sec.ipynb"]
    assert [(s.name, tab) for s, tab in result.missing_tabs] == [("sec", "tensorflow")]
    assert not (tmp_path / "_build/notebooks/tensorflow").exists()
    again = write_notebooks([section], ("pytorch", "mxnet"), Layout(tmp_path))
    assert again.written == [] and len(again.unchanged) == 2


# -- the d2lbook original of the GPU section ------------------------------------

@pytest.fixture
def seed_notebooks(tmp_path):
    section = section_from(tmp_path, shared_path(SEED).read_text(encoding="utf-8"), "use-gpu.md")
    assert section.declared_tabs == ("mxnet", "pytorch", "tensorflow")
    return {tab: split_section(section, tab) for tab in TABS}


def test_seed_splits_into_three_compiling_notebooks(seed_notebooks):
    for tab, notebook in seed_notebooks.items():
        nbformat.validate(notebook)
        sources = code(notebook)
        # 14 cells shared by all, plus Trainer's GPU support (mxnet, pytorch) and
        # MXNet's set_scratch_params_device.
        assert len(sources) == {"pytorch": 15, "mxnet": 16, "tensorflow": 14}[tab]
        for source in sources:
            assert "%%tab" not in source and "tab.selected" not in source, (tab, source)
            # Shell escapes are IPython, not Python: compile the rest.
            python = "\n".join("pass" if line.startswith("!") else line
                               for line in source.split("\n"))
            compile(python, f"{tab} cell", "exec")
        assert not any("interact_select" in s for s in sources)


def _function(sources: list[str], name: str) -> str:
    for source in sources:
        for node in ast.parse("\n".join(l for l in source.split("\n") if not l.startswith("!"))).body:
            if isinstance(node, ast.FunctionDef) and node.name == name:
                return ast.unparse(node)
    raise AssertionError(f"no function {name}")


def test_seed_keeps_the_right_branch_per_framework(seed_notebooks):
    torch_code = code(seed_notebooks["pytorch"])
    mx_code = code(seed_notebooks["mxnet"])
    tf_code = code(seed_notebooks["tensorflow"])
    assert _function(torch_code, "cpu") == "def cpu():\n    return torch.device('cpu')"
    assert _function(mx_code, "cpu") == "def cpu():\n    return npx.cpu()"
    assert _function(tf_code, "cpu") == "def cpu():\n    return tf.device('/CPU:0')"
    assert _function(torch_code, "num_gpus") == \
        "def num_gpus():\n    return torch.cuda.device_count()"
    prepare = _function(torch_code, "prepare_model")
    assert "model.to(self.gpus[0])" in prepare and "reset_ctx" not in prepare
    assert "reset_ctx" in _function(mx_code, "prepare_model")
    assert not any("prepare_model" in s for s in tf_code)
    assert any(s.startswith("from d2l import tensorflow as d2l") for s in tf_code)
    assert not any("torch" in s for s in mx_code)


def test_every_notebook_of_the_book_is_valid_nbformat():
    """The build writes notebooks without validating them (it costs most of a no-op
    build): what the split stage makes must always be valid."""
    book, problems = parse_book(load_config(REPO))
    assert not problems
    notebooks = [(section.name, tab, split_section(section, tab))
                 for section in book.pages() for tab in section.tabs]
    assert len(notebooks) >= 50
    for name, tab, notebook in notebooks:
        nbformat.validate(notebook)
        assert nbformat.writes(notebook) == nbformat.v4.writes_json(notebook), (name, tab)


def test_the_prose_of_each_tab_imports_d2l_from_its_own_module():
    """What a tab shows (its pages, notebooks and PDF edition) names its own module of
    the book's library: the MXNet edition never says `from d2l import torch as d2l`."""
    book, problems = parse_book(load_config(REPO))
    assert not problems
    named = {tab: set() for tab in TABS}
    for section in book.pages():
        for tab in section.tabs:
            prose = "\n".join(cell.source for cell in split_section(section, tab).cells
                              if cell.cell_type == "markdown")
            named[tab] |= set(re.findall(r"from d2l import (\w+) as d2l", prose))
    assert named == {tab: {framework(tab).module} for tab in TABS}


@pytest.mark.parametrize("encode", [
    lambda text: text.replace("\n", "\r").encode(),            # old Mac
    lambda text: text.replace("\n", "\r\n").encode(),          # Windows
    lambda text: ("\ufeff" + text).encode(),                   # a byte-order mark
], ids=["CR", "CRLF", "BOM"])
def test_line_endings_and_bom_split_as_the_same_text(tmp_path, encode):
    text = md(DECLARE, "# Titre", "Du texte.", "```{.python .input}\n%%tab all\nx = 1\n\nprint(x)\n```")
    expected = {tab: nbformat.writes(split_section(section_from(tmp_path, text), tab))
                for tab in TABS}
    (tmp_path / "chapters" / "sec.md").write_bytes(encode(text))
    chapters = tmp_path / "chapters"
    section, problems = parse_section(chapters / "sec.md", chapters, tmp_path, TABS)
    assert [c.kind.value for c in section.cells] == ["prose", "code"]
    assert {tab: nbformat.writes(split_section(section, tab)) for tab in TABS} == expected
    assert all(p.line == 1 and p.warning for p in problems)
