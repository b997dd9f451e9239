"""Books made for d2lbook build here unchanged, with their own config.ini (`-C DIR`).

Two kinds of book: a small one written here in d2lbook's older dialect (built
end to end, PyTorch executed for real), and the corpus, the Chinese edition of
Dive into Deep Learning exactly as its authors built it with d2lbook.
"""
from __future__ import annotations

import shutil

import nbformat
import pytest

from conftest import CORPUS, REPO, build, library_definitions, md, shared_path
from tabbook.core.config import load_config
from tabbook.notebooks.library import custom_header
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
        "chapter_references/zreferences.md": md("```eval_rst", ".. only:: html", "```",
                                                ":bibliography:`../refs.bib`"),
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
    assert "check: 5 sections, no problem stops the build" in result.stdout
    warnings = result.stderr.strip().split("\n")
    assert warnings == [
        "chapter_basics/basics.md:38: warning: an eval_rst block (reStructuredText for "
        "d2lbook's Sphinx) is kept in the notebooks but not shown in the HTML — write it in "
        "Markdown",
        "chapter_references/zreferences.md:1: warning: an eval_rst block (reStructuredText for "
        "d2lbook's Sphinx) is kept in the notebooks but not shown in the HTML — write it in "
        "Markdown",
        "chapter_references/zreferences.md:1: warning: the section has no '# Title' heading "
        "(its file name stands in) — start it with '# Title'",
        "check: 3 warnings (what d2lbook tolerates; --strict makes them errors)"]
    strict = build(REPO, "-C", str(book), "check", "--strict")
    assert strict.returncode == 1
    assert strict.stderr.strip().endswith(
        "check: 3 problems found (strict: warnings are errors); nothing was built")
    # warning_is_error in config.ini is the same as --strict (our own book sets it).
    (book / "config.ini").write_text(CONFIG.replace("eval_notebook = True",
                                                    "warning_is_error = True"))
    assert build(REPO, "-C", str(book), "check").returncode == 1


def test_a_d2lbook_book_splits_with_inferred_tabs(tmp_path):
    book = write_d2lbook_book(tmp_path / "mini")
    result = build(REPO, "-C", str(book), "notebooks")
    assert result.returncode == 0, result.stderr
    built = book / "_build" / "notebooks"
    assert sorted(p.relative_to(built).as_posix() for p in built.rglob("*.ipynb")) == [
        f"{tab}/{page}.ipynb" for tab in ("mxnet", "pytorch") for page in (
            "chapter_basics/basics", "chapter_basics/index", "chapter_front/index",
            "chapter_references/zreferences", "index")]
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
    assert '__version__ = "0.2.0"' in (book / "d2l" / "__init__.py").read_text()
    # A second run changes nothing: the custom header is found again.
    again = build(REPO, "-C", str(book), "lib")
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
    assert (site / "_static" / "logo-with-text.png").read_bytes() == \
        (corpus / "static" / "logo-with-text.png").read_bytes()
    # resources = img/ d2lzh/ d2l.bib setup.py: what exists is in the site.
    assert sorted(p.name for p in (site / "img").rglob("*") if p.is_file()) == \
        sorted(p.name for p in (corpus / "img").rglob("*") if p.is_file())
    assert (site / "d2l.bib").read_bytes() == (corpus / "d2l.bib").read_bytes()
