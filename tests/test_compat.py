"""Books made for d2lbook build here unchanged, with their own config.ini (`-C DIR`).

Three kinds of book: a small one written here in d2lbook's older dialect (built
end to end, PyTorch executed for real), a small one in its newer dialect with the
leniencies that books converted from the older one rely on, and the corpus, the
Chinese edition of Dive into Deep Learning exactly as its authors built it with d2lbook.
"""
from __future__ import annotations

import html
import re
import shutil

import nbformat
import pytest

from conftest import CORPUS, REPO, build, library_definitions, md, shared_path, write_executed
from tabbook.core.config import load_config
from tabbook.notebooks.library import custom_header
from tabbook.notebooks.split import split_section
from tabbook.output.render import render_site
from tabbook.source.numbering import number_book
from tabbook.source.parse import parse_book

CONFIG = """\
[project]
name = mini
title = Mini livre
author = Quelqu'un
copyright = 2026
release = 0.2.0
lang = fr

[build]
notebooks = *.md */*.md
exclusions = README.md */*_origin.md
resources = img/
eval_notebook = True
tabs = mxnet, pytorch
sphinx_configs = numfig_format = {'figure': 'Figure %%s'}
    latex_elements = {
    'pointsize': '10pt',
    }

[html]
header_links = GitHub, https://github.com/x/y, fab fa-github

[library]
version_file = d2l/__init__.py

[library-mxnet]
lib_file = d2l/mxnet.py
lib_name = np

[library-pytorch]
lib_file = d2l/torch.py
lib_name = torch
simple_alias = ones, tensor -> as_tensor
fluent_alias = numpy -> detach().numpy,
alias =
       nn_Module = nn.Module
reverse_alias = d2l.nn_Module -> nn.Module

[colab]
github_repo = mxnet, owner/mini-colab
              pytorch, owner/mini-pytorch-colab
"""

INDEX = md("""
    Mini livre
    ==========

    ```toc
    :maxdepth: 1

    chapter_front/index
    ```

    ```toc
    :maxdepth: 2
    :numbered:

    chapter_basics/index
    ```

    ```toc
    :maxdepth: 1

    chapter_appendix/d2l
    chapter_references/zreferences
    ```
""")

SECTION = md("""
    # Les bases
    :label:`sec_bases`

    Un texte qui cite :cite:`Knuth.1984` et renvoie à :numref:`sec_bases`.

    ```{.python .input  n=1}
    #@save
    from mxnet import np
    ```

    ```{.python .input  n=2}
    #@tab pytorch
    #@save
    import torch
    from torch import nn
    from d2l import torch as d2l
    ```

    ```{.python .input}
    #@tab all
    #@save
    DATA_HUB = dict()

    def double(x):  #@save
        \"\"\"Le double.\"\"\"
        return 2 * x
    ```

    ```{.python .input}
    #@tab pytorch
    print("pytorch", double(21), d2l.double(4))
    ```

    :begin_tab:`pytorch`
    Seulement pour PyTorch.
    :end_tab:

    ```eval_rst
    .. note:: Sphinx seulement.
    ```
""")

# d2l-en's chapter_appendix-tools-for-deep-learning/d2l.md: one automodule per tab block.
D2L_REFERENCE = md("# L'API de `d2l`\n:label:`sec_d2l`", "Les membres du paquet `d2l`.", *(f"""
    :begin_tab:`{tab}`

    ```eval_rst

    .. automodule:: d2l.{module}
       :members:
       :imported-members:

    ```

    :end_tab:
""" for tab, module in (("mxnet", "mxnet"), ("pytorch", "torch"))))

# d2l-en's chapter_references/zreferences.md: its title is in an `only:: html` block.
ZREFERENCES = "```eval_rst\n.. only:: html\n\n   References\n   ==========\n```\n\n" \
              ":bibliography:`../refs.bib`\n"

BIB = """\
@Book{Knuth.1984,
  author = {Knuth, Donald E.},
  title = {The {\\TeX}book},
  publisher = {Addison-Wesley},
  year = {1984}
}
"""


def write_d2lbook_book(root):
    files = {
        "config.ini": CONFIG,
        "index.md": INDEX,
        "README.md": "Not part of the book.\n",
        "chapter_front/index.md": md("# Préface", "Du texte."),
        "chapter_basics/index.md": md("# Bases", "```toc\n:maxdepth: 2\n\nbasics\n```"),
        "chapter_basics/basics.md": SECTION,
        "chapter_basics/basics_origin.md": "# Excluded\n",
        "chapter_appendix/d2l.md": D2L_REFERENCE,
        "chapter_references/zreferences.md": ZREFERENCES,
        "refs.bib": BIB,
        "img/mark.svg": '<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"/>\n',
        "d2l/__init__.py": '"""The mini book\'s d2l."""\n__version__ = "0.0.1"\n',
        "d2l/torch.py": "CUSTOM = 1\n\n#################   WARNING   ################\nold\n",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_a_d2lbook_book_checks_with_located_warnings(tmp_path):
    book = write_d2lbook_book(tmp_path / "mini")
    result = build(REPO, "-C", str(book), "check")
    assert result.returncode == 0, result.stderr
    assert "check: 6 sections, no problem stops the build" in result.stdout
    # automodule blocks and the references' `only:: html` title are understood; the other
    # eval_rst block is not.
    warnings = result.stderr.strip().split("\n")
    assert warnings == [
        "chapter_basics/basics.md:38: warning: an eval_rst block (reStructuredText for "
        "d2lbook's Sphinx) is kept in the notebooks but not shown in the HTML — write it in "
        "Markdown",
        "check: 1 warning (what d2lbook tolerates; --strict makes them errors)"]
    strict = build(REPO, "-C", str(book), "check", "--strict")
    assert strict.returncode == 1
    assert strict.stderr.strip().endswith(
        "check: 1 problem found (strict: warnings are errors); nothing was built")
    # warning_is_error in config.ini is the same as --strict (our own book sets it).
    (book / "config.ini").write_text(CONFIG.replace("eval_notebook = True",
                                                    "warning_is_error = True"))
    assert build(REPO, "-C", str(book), "check").returncode == 1


def test_the_build_s_outputs_and_hidden_folders_are_no_sources(tmp_path):
    """With d2lbook's default ``notebooks = **/*.md``, what the build writes (the execution
    report, frozen notebooks) and hidden folders (.git, .envs) are never sections, as
    d2lbook's glob never reads them; a file of the book outside every TOC still is one."""
    book = write_d2lbook_book(tmp_path / "mini")
    (book / "config.ini").write_text(CONFIG.replace("notebooks = *.md */*.md\n", ""))
    for name in ("_build/eval/report.md", "frozen/pytorch/notes.md", ".git/info/x.md",
                 ".envs/tools/lib/README.md", "chapter_basics/draft.md"):
        (book / name).parent.mkdir(parents=True, exist_ok=True)
        (book / name).write_text("# Pas une section\n", encoding="utf-8")
    parsed, _ = parse_book(load_config(book))
    assert [orphan.display_path for orphan in parsed.orphans] == ["chapter_basics/draft.md"]


def test_a_d2lbook_book_splits_with_inferred_tabs(tmp_path):
    book = write_d2lbook_book(tmp_path / "mini")
    result = build(REPO, "-C", str(book), "notebooks")
    assert result.returncode == 0, result.stderr
    built = book / "_build" / "notebooks"
    assert sorted(p.relative_to(built).as_posix() for p in built.rglob("*.ipynb")) == [
        f"{tab}/{page}.ipynb" for tab in ("mxnet", "pytorch") for page in (
            "chapter_appendix/d2l", "chapter_basics/basics", "chapter_basics/index",
            "chapter_front/index", "chapter_references/zreferences", "index")]
    pytorch = nbformat.read(built / "pytorch/chapter_basics/basics.ipynb", as_version=4)
    code = [c.source for c in pytorch.cells if c.cell_type == "code"]
    assert code[0].startswith("#@save\nimport torch")     # the #@tab line is gone
    assert 'print("pytorch", double(21), d2l.double(4))' in code
    assert not any("from mxnet" in c for c in code)
    prose = "\n".join(c.source for c in pytorch.cells if c.cell_type == "markdown")
    assert "Seulement pour PyTorch." in prose and "```eval_rst" in prose
    mxnet = nbformat.read(built / "mxnet/chapter_basics/basics.ipynb", as_version=4)
    assert "Seulement pour PyTorch." not in str(mxnet.cells)


def test_a_d2lbook_book_library_is_what_d2lbook_saves(tmp_path):
    book = write_d2lbook_book(tmp_path / "mini")
    result = build(REPO, "-C", str(book), "lib")
    assert result.returncode == 0, result.stderr
    torch_lib = (book / "d2l" / "torch.py").read_text()
    # What stands above d2lbook's WARNING line stays; the aliases close the file.
    assert torch_lib.startswith("CUSTOM = 1\n\n#################   WARNING   ################\n")
    assert "old" not in torch_lib
    assert torch_lib.rstrip().endswith(
        "# Alias defined in config.ini\nnn_Module = nn.Module\n\nones = torch.ones\n"
        "tensor = torch.as_tensor\n"
        "numpy = lambda x, *args, **kwargs: x.detach().numpy(*args, **kwargs)")
    definitions = library_definitions(torch_lib)
    assert {"DATA_HUB", "double", "nn_Module", "ones", "tensor", "numpy"} <= set(definitions)
    assert "import torch\nfrom torch import nn" in torch_lib
    assert "from d2l import" not in torch_lib   # the library does not import itself
    mxnet_lib = (book / "d2l" / "mxnet.py").read_text()
    assert "from mxnet import np" in mxnet_lib and "import torch" not in mxnet_lib
    assert 'def double(x):' in mxnet_lib
    assert '__version__ = "0.2.0+d2l.' in (book / "d2l" / "__init__.py").read_text()
    # A second run changes nothing: the custom header is found again.
    again = build(REPO, "-C", str(book), "lib", "--recheck")
    assert "lib: 0 files changed" in again.stdout


@pytest.mark.kernels
def test_a_d2lbook_book_executes_and_renders(tmp_path):
    """PyTorch for real: the notebook imports the book's own d2l, the page shows the
    setext title, the citation and the bibliography, and leaves eval_rst out."""
    book = write_d2lbook_book(tmp_path / "mini")
    assert build(REPO, "-C", str(book), "lib").returncode == 0
    result = build(REPO, "-C", str(book), "html", "--tab", "pytorch")
    assert result.returncode == 0, result.stdout + result.stderr
    executed = nbformat.read(book / "_build/eval/pytorch/chapter_basics/basics.ipynb",
                             as_version=4)
    outputs = "".join(o.get("text", "") for c in executed.cells if c.cell_type == "code"
                      for o in c.outputs)
    assert "pytorch 42 8" in outputs
    site = book / "_build" / "html-pytorch"
    page = (site / "chapter_basics" / "basics.html").read_text()
    assert "pytorch 42 8" in page and "Sphinx seulement" not in page
    assert '<a class="citation" href="../chapter_references/zreferences.html#bib-knuth-1984">' \
           'Knuth, 1984</a>' in page
    references = (site / "chapter_references" / "zreferences.html").read_text()
    assert 'id="bib-knuth-1984"' in references and "Donald E. Knuth (1984). The TeXbook" \
        in references
    index = (site / "index.html").read_text()
    assert "Mini livre" in index
    # Front and back matter are unnumbered; the :numbered: toc's chapter is 1.
    assert '<span class="number">1</span> Bases' in (site / "chapter_basics/index.html") \
        .read_text()


# -- d2lbook's newer dialect, and what converted books rely on --------------------------

RECENT_CONFIG = """\
[project]
name = recent
title = Un livre récent
author = Quelqu'un
release = 1.0.0
lang = fr

[build]
notebooks = *.md */*.md
tabs = pytorch, mxnet, tensorflow, jax

[library]
version_file = d2l/__init__.py

[library-pytorch]
lib_file = d2l/torch.py

[library-mxnet]
lib_file = d2l/mxnet.py

[library-tensorflow]
lib_file = d2l/tensorflow.py

[library-jax]
lib_file = d2l/jax.py

[colab]
github_repo = pytorch, owner/recent-pytorch-colab
"""

THREE_TABS = """\
```{.python .input}
%load_ext d2lbook.tab
tab.interact_select(['mxnet', 'pytorch', 'tensorflow'])
```
"""

# A base class whose TensorFlow line is indented for d2lbook's reading (one level of dedent
# under the last tab header), not Python's; and a JAX cell the declaration leaves out.
MODELS = md(THREE_TABS, """
    # Les modèles
    :label:`sec_models`

    Chaque modèle hérite d'une classe de base.

    ```{.python .input}
    %%tab all
    class Model:  #@save
        \"\"\"La base des modèles.\"\"\"
        if tab.selected('mxnet', 'tensorflow'):
            def __init__(self):
                self.history = []
            if tab.selected('tensorflow'):
                self.training = None
        if tab.selected('pytorch'):
            def __init__(self):
                self.history = []

        def name(self):
            return type(self).__name__
    ```

    ```{.python .input}
    %%tab jax
    uses_jax = True  #@save
    ```
""")

# A cell converted from the older dialect: a #@tab line above each definition.
TOOLS = md(THREE_TABS, """
    # Outils

    ```{.python .input}
    %%tab pytorch, mxnet, tensorflow
    def square_area(side):  #@save
        \"\"\"L'aire d'un carré.\"\"\"
        return side * side

    #@tab pytorch, mxnet, tensorflow
    class Tally:  #@save
        \"\"\"Compte ce qu'on lui donne.\"\"\"
        def __init__(self):
            self.count = 0

    #@tab pytorch, mxnet, tensorflow
    def third(x):  #@save
        return x / 3
    ```

    ```{.python .input}
    %%tab jax
    def square_area(side):  #@save
        return side ** 2
    ```

    ```{.python .input}
    %%tab all
    def triple(x):  #@save
        return 3 * x
    ```
""")


def write_recent_book(root):
    files = {
        "config.ini": RECENT_CONFIG,
        "index.md": md("Un livre récent\n===============",
                       "```toc\n:maxdepth: 2\n:numbered:\n\nchapter_base/index\n```"),
        "chapter_base/index.md": md("# Base", "```toc\n:maxdepth: 2\n\nmodels\ntools\n```"),
        "chapter_base/models.md": MODELS,
        "chapter_base/tools.md": TOOLS,
        "d2l/__init__.py": '__version__ = "0.0.1"\n',
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_a_recent_d2lbook_book_checks_with_located_warnings(tmp_path):
    book = write_recent_book(tmp_path / "recent")
    result = build(REPO, "-C", str(book), "check")
    assert result.returncode == 0, result.stderr
    jax_notebook = ("gives the section a notebook for jax, though its tab.interact_select list "
                    "(mxnet, pytorch, tensorflow) leaves it out: as d2lbook does, the notebook "
                    "is made, and its #@save code goes into the jax library — add 'jax' to the "
                    "section's tab.interact_select([...]), or change the cell's tabs")
    tab_mark = ("warning: a tab mark inside the cell (#@tab pytorch, mxnet, tensorflow) is "
                "removed from the code, as d2lbook removes it — remove the line: line 9 gives "
                "the cell's tabs")
    assert result.stderr.strip().split("\n") == [
        f"chapter_base/models.md:18: [tensorflow] warning: the indentation of this branch is "
        "misleading: d2lbook reads tab.selected branches line by line (it drops the if line and "
        "dedents the lines below it by one level) and puts line 19 in the block of line 16 "
        "(def __init__(self):), where Python's nesting puts it in the block of line 13 (class "
        "Model:  #@save); this build does as d2lbook — don't nest tab.selected branches: give "
        "each set of tabs a branch of its own, with all its code at the indentation it is "
        "meant to have",
        f"chapter_base/models.md:29: warning: %%tab jax {jax_notebook}",
        f"chapter_base/tools.md:14: {tab_mark}",
        f"chapter_base/tools.md:20: {tab_mark}",
        f"chapter_base/tools.md:26: warning: %%tab jax {jax_notebook}",
        "check: 5 warnings (what d2lbook tolerates; --strict makes them errors)"]


def recent_code(book, tab: str, name: str) -> list[str]:
    path = book / "_build" / "notebooks" / tab / "chapter_base" / f"{name}.ipynb"
    return [c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]


def test_a_recent_d2lbook_book_splits_as_d2lbook_does(tmp_path):
    book = write_recent_book(tmp_path / "recent")
    result = build(REPO, "-C", str(book), "notebooks")
    assert result.returncode == 0, result.stderr
    # Every tab of config.ini has its notebooks, jax included (its cells make them).
    assert "16 in _build/notebooks" in result.stdout
    assert "0 section/tab pairs without a notebook" in result.stdout
    # TensorFlow's __init__ holds the line that d2lbook's reading puts there, and runs.
    (model,) = recent_code(book, "tensorflow", "models")
    namespace: dict = {}
    exec(model, namespace)
    assert namespace["Model"]().training is None
    (model,) = recent_code(book, "pytorch", "models")
    exec(model, namespace)
    assert not hasattr(namespace["Model"](), "training")
    # JAX: the %%tab all cells and its own, none of the other tabs'.
    assert [c.split("\n")[0] for c in recent_code(book, "jax", "models")] == [
        "class Model:  #@save", "uses_jax = True  #@save"]
    assert recent_code(book, "jax", "tools") == [
        "def square_area(side):  #@save\n    return side ** 2",
        "def triple(x):  #@save\n    return 3 * x"]
    # The #@tab lines inside the cell are gone, the definitions stay.
    for tab in ("pytorch", "mxnet", "tensorflow"):
        tools = recent_code(book, tab, "tools")
        assert [line for line in tools[0].split("\n") if line and not line[0].isspace()] == [
            "def square_area(side):  #@save", "class Tally:  #@save", "def third(x):  #@save"]
        assert "@tab" not in "".join(tools)


def test_a_recent_d2lbook_book_library_has_what_d2lbook_saves(tmp_path):
    book = write_recent_book(tmp_path / "recent")
    result = build(REPO, "-C", str(book), "lib")
    assert result.returncode == 0, result.stderr
    libraries = {name: (book / "d2l" / f"{name}.py").read_text()
                 for name in ("torch", "mxnet", "tensorflow", "jax")}
    for text in libraries.values():
        assert "@tab" not in text
    # JAX's library: its own code and the %%tab all code of sections that leave it out.
    assert set(library_definitions(libraries["jax"])) == {
        "Model", "uses_jax", "square_area", "triple", "d2l"}
    assert "return side ** 2" in libraries["jax"]
    for name in ("torch", "mxnet", "tensorflow"):
        assert set(library_definitions(libraries[name])) == {
            "Model", "square_area", "Tally", "third", "triple", "d2l"}
    namespace: dict = {}
    exec(libraries["tensorflow"], namespace)
    assert namespace["Model"]().training is None
    exec(libraries["mxnet"], namespace)
    assert namespace["Model"]().history == [] and not hasattr(namespace["Model"](), "training")


def test_a_recent_d2lbook_book_page_shows_each_tab_s_code(tmp_path):
    book = write_recent_book(tmp_path / "recent")
    shutil.copy(REPO / "pyproject.toml", book / "pyproject.toml")
    config, model, layout = write_executed(book, split_section, warnings=True)
    site = render_site(model, config, number_book(model), config.build.tabs, layout).folder
    page = (site / "chapter_base" / "models.html").read_text()
    panels = dict(re.findall(r'<div class="tab-panel" role="tabpanel" data-tab="(\w+)"[^>]*>'
                             r'(.*?)</div></div>', page, re.S))
    code = {tab: html.unescape(re.sub(r"<[^>]+>", "", panel)) for tab, panel in panels.items()}
    assert set(code) == {"pytorch", "mxnet", "tensorflow", "jax"}
    assert "        self.history = []\n        self.training = None\n    def name(self):" \
        in code["tensorflow"]
    assert "training" not in code["mxnet"] + code["pytorch"] + code["jax"]
    assert "uses_jax = True" in code["jax"]
    tools = (site / "chapter_base" / "tools.html").read_text()
    assert "@tab" not in tools and 'data-tab="jax"' in tools


@pytest.fixture
def corpus(tmp_path):
    """A copy of the corpus, with the favicon and logo its config.ini names: the corpus
    was published without d2l-zh's static/ folder, and without them d2lbook stops too.
    One of its own images stands in for both."""
    root = shutil.copytree(shared_path(CORPUS), tmp_path / "d2l-zh")
    (root / "static").mkdir()
    for name in ("favicon.png", "logo-with-text.png"):
        shutil.copyfile(root / "img" / "colab.png", root / "static" / name)
    return root


def test_the_corpus_checks_splits_and_saves_its_library(corpus):
    result = build(REPO, "-C", str(corpus), "check")
    assert result.returncode == 0, result.stderr
    assert "check: 141 sections, no problem stops the build" in result.stdout
    *problems, summary = result.stderr.strip().split("\n")
    assert problems and all(": warning: " in line for line in problems)
    assert summary == f"check: {len(problems)} warnings (what d2lbook tolerates; --strict " \
                      "makes them errors)"
    result = build(REPO, "-C", str(corpus), "notebooks")
    assert result.returncode == 0, result.stderr
    built = corpus / "_build" / "notebooks"
    # Sections without a tab declaration get the tabs their cells name (get_tab_notebook).
    assert {tab: len(list((built / tab).rglob("*.ipynb")))
            for tab in ("mxnet", "pytorch", "tensorflow", "paddle")} == \
        {"mxnet": 141, "pytorch": 141, "tensorflow": 109, "paddle": 141}
    result = build(REPO, "-C", str(corpus), "lib")
    assert result.returncode == 0, result.stderr
    total = identical = 0
    for name in ("mxnet", "torch", "tensorflow", "paddle"):
        reference = library_definitions((CORPUS / "d2l" / f"{name}.py").read_text())
        ours = library_definitions((corpus / "d2l" / f"{name}.py").read_text())
        assert set(reference) <= set(ours), f"{name}: missing {set(reference) - set(ours)}"
        total += len(reference)
        identical += sum(ours[key] == value for key, value in reference.items())
    assert identical / total >= 0.98, (identical, total)
    # Each regenerated library is valid Python, with d2lbook's custom header kept.
    for name in ("mxnet", "torch", "tensorflow", "paddle"):
        text = (corpus / "d2l" / f"{name}.py").read_text()
        compile(text, name, "exec")
        assert custom_header(text) == custom_header((CORPUS / "d2l" / f"{name}.py").read_text())
    assert custom_header((corpus / "d2l" / "torch.py").read_text()).startswith("DATA_HUB")


def test_the_corpus_renders_its_whole_site_without_executing(corpus):
    """With eval_notebook = False (the corpus has True; this copy is edited), `html` makes
    a page of every section, with the book's logo, favicon, header links, copyright and
    resources, and starts no kernel: the time is measured by benchmarks/d2lbook_site.py."""
    config = corpus / "config.ini"
    text = config.read_text(encoding="utf-8")
    assert text.count("eval_notebook = True") == 1
    config.chmod(0o644)
    config.write_text(text.replace("eval_notebook = True", "eval_notebook = False"),
                      encoding="utf-8")
    result = build(REPO, "-C", str(corpus), "html")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "eval: eval_notebook = False in config.ini: notebooks are not executed\n" in \
        result.stdout
    # No kernel, no environment (the paddle tab has none here), no executed notebook.
    built = corpus / "_build"
    assert not (built / "eval").exists() and not (built / "kernels").exists()
    assert not list((built / "cache").glob("runtime-*.json"))
    # d2lzh/ and setup.py are resources absent from the corpus: located warnings.
    assert "config.ini:28: warning: [build] resources: 'd2lzh/' matches no file" in \
        result.stderr
    site = built / "html"
    config = load_config(corpus)
    book, _ = parse_book(config)
    assert len(book.pages()) == 141
    # config.ini's header_links, one "name, URL, icon" per line (Font Awesome icons: not
    # loaded, the site loads nothing from outside; the names show).
    links = [("MXNet", "https://zh-v2.d2l.ai/d2l-zh.pdf"),
             ("PyTorch", "https://zh-v2.d2l.ai/d2l-zh-pytorch.pdf"),
             ("Jupyter 记事本", "https://zh-v2.d2l.ai/d2l-zh.zip"),
             ("课程", "https://courses.d2l.ai/zh-v2/"),
             ("GitHub", "https://github.com/d2l-ai/d2l-zh"), ("English", "https://d2l.ai")]
    assert all(f"{name}, {url}, " in text for name, url in links)
    header = "".join(f'<a href="{url}">{name}</a>' for name, url in links)
    for section in book.pages():
        page = (site / section.path.with_suffix(".html")).read_text(encoding="utf-8")
        up = "../" * (len(section.path.parts) - 1)
        assert f'<img class="logo" src="{up}_static/logo-with-text.png" alt="">' in page
        assert f'<link rel="icon" href="{up}_static/favicon.png">' in page
        assert f'<nav class="header-links" aria-label="链接">{header}</nav>' in page   # zh
        assert "© 2022, All authors. Licensed under CC-BY-SA-4.0 and MIT-0." in page
        assert "exécuté le" not in page
        # Slide marks: bold ones show their text, the others nothing (code shows `f(**a)`).
        prose = re.sub(r"<pre\b.*?</pre>|<code\b.*?</code>", "", page, flags=re.S)
        assert not re.search(r"\[\*\*|\(\*\*|\*\*\]|\*\*\)|~~", prose), section.name
    assert (site / "_static" / "logo-with-text.png").read_bytes() == \
        (corpus / "static" / "logo-with-text.png").read_bytes()
    # resources = img/ d2lzh/ d2l.bib setup.py: what exists is in the site.
    assert sorted(p.name for p in (site / "img").rglob("*") if p.is_file()) == \
        sorted(p.name for p in (corpus / "img").rglob("*") if p.is_file())
    assert (site / "d2l.bib").read_bytes() == (corpus / "d2l.bib").read_bytes()
    # Its slides, from its marks: for a book that is not executed, from the split notebooks.
    result = build(REPO, "-C", str(corpus), "slides", "--tab", "mxnet", "--only",
                   "chapter_linear-networks/*")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "slides: 6 slide notebooks for mxnet in _build/slides (6 written)" in result.stdout
    slides = nbformat.read(built / "slides" / "mxnet" / "chapter_linear-networks" /
                           "softmax-regression-concise.ipynb", 4)
    assert slides.metadata["rise"]["overlay"].startswith(
        "<div class='my-top-right'><img height=80px src='http://d2l.ai/_static/")
    assert [(c.cell_type, c.source.split("\n")[0], c.metadata.get("slideshow"))
            for c in slides.cells[:3]] == [
        ("markdown", "# softmax回归的简洁实现", {"slide_type": "-"}),
        ("code", "from d2l import mxnet as d2l", None),
        ("markdown", "Softmax回归的输出层是一个全连接层", {"slide_type": "slide"})]
    # (~~softmax~~): on the slide, not in the book.
    assert slides.cells[0].source.endswith("能够使实现\nsoftmax\n回归变得更加容易")
    # Its decks: beside the notebooks, and in the site, linked from the page.
    name = "chapter_linear-networks/softmax-regression-concise.html"
    deck = (built / "slides" / "html" / "mxnet" / name).read_text(encoding="utf-8")
    assert "Softmax回归的输出层是一个全连接层" in deck and "~~" not in deck
    assert (site / "slides" / "mxnet" / name).is_file()
    assert f'href="../slides/mxnet/{name}"' in (site / name).read_text(encoding="utf-8")
