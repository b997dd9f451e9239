"""The check stage: a catalogue of malformed sources, each reported at its exact place."""
from __future__ import annotations

import pytest

from conftest import CONFIG, DECLARE, md, problems_of, write_book
from tabbook.core.config import load_config
from tabbook.notebooks.split import split_section
from tabbook.source.parse import parse_book

S = "chapters/chap/sec.md"

# (name, files relative to chapters/, expected problems). Each source is a
# d2lbook section with one mistake; the section is chap/sec.md unless named.
CATALOGUE = [
    ("unclosed begin_tab",
     {"chap/sec.md": md("# Titre", ":begin_tab:`pytorch`", "Texte.")},
     [f"{S}:3: warning: :begin_tab: is never closed (it runs to the end of the file) — add "
      ":end_tab: after the tab's prose"]),
    ("stray end_tab",
     {"chap/sec.md": md("# Titre", "Texte.", ":end_tab:")},
     [f"{S}:5: warning: :end_tab: without a matching :begin_tab: (ignored) — remove it or "
      "add :begin_tab:`<tab>` before the block"]),
    ("nested begin_tab",
     {"chap/sec.md": md(DECLARE, "# Titre", ":begin_tab:`pytorch`\nA", ":begin_tab:`mxnet`\nB",
                        ":end_tab:")},
     [f"{S}:8: warning: :begin_tab: is not closed before the next :begin_tab: at line 11 "
      "(closed there) — add :end_tab: before line 11"]),
    ("unknown tab in %%tab",
     {"chap/sec.md": md(DECLARE, "# Titre", "```{.python .input}\n%%tab jax\nx = 1\n```")},
     [f"{S}:9: unknown tab 'jax' in %%tab — use one of: all, pytorch, mxnet, tensorflow"]),
    ("unknown tab in begin_tab",
     {"chap/sec.md": md(DECLARE, "# Titre", ":begin_tab:`pytroch`\nTexte.\n:end_tab:")},
     [f"{S}:8: unknown tab 'pytroch' in :begin_tab: — use one of: all, pytorch, mxnet, "
      "tensorflow"]),
    ("%%tab on line 2",
     {"chap/sec.md": md(DECLARE, "# Titre", "```{.python .input}\nx = 1\n%%tab mxnet\n```")},
     [f"{S}:10: warning: %%tab is not on the first line of the cell (it applies to the whole "
      "cell) — move it to the cell's first line"]),
    ("section tab not in the book",
     {"chap/sec.md": md("```{.python .input}\n%load_ext d2lbook.tab\n"
                        "tab.interact_select(['pytorch', 'jax'])\n```", "# Titre")},
     [f"{S}:1: the section declares tab 'jax', which is not one of the book's tabs "
      "(pytorch, mxnet, tensorflow) — remove it or add it to [build] tabs in config.ini"]),
    ("tab not declared by the section",
     {"chap/sec.md": md("```{.python .input}\n%load_ext d2lbook.tab\n"
                        "tab.interact_select(['pytorch'])\n```", "# Titre",
                        "```{.python .input}\n%%tab mxnet\nx = 1\n```")},
     [f"{S}:9: warning: %%tab mxnet gives the section a notebook for mxnet, though its "
      "tab.interact_select list (pytorch) leaves it out: as d2lbook does, the notebook is "
      "made, and its #@save code goes into the mxnet library — add 'mxnet' to the section's "
      "tab.interact_select([...]), or change the cell's tabs"]),
    ("prose of a tab the section leaves out",
     {"chap/sec.md": md("```{.python .input}\n%load_ext d2lbook.tab\n"
                        "tab.interact_select(['pytorch'])\n```", "# Titre",
                        ":begin_tab:`pytorch, tensorflow`\nTexte.\n:end_tab:")},
     [f"{S}:8: warning: :begin_tab: pytorch, tensorflow gives the section a notebook for "
      "tensorflow, though its tab.interact_select list (pytorch) leaves it out: as d2lbook "
      "does, the notebook is made, and its #@save code goes into the tensorflow library — add "
      "'tensorflow' to the section's tab.interact_select([...]), or change the cell's tabs"]),
    ("a tab mark inside a cell (d2lbook's older dialect)",
     {"chap/sec.md": md(DECLARE, "# Titre", "```{.python .input}\n%%tab pytorch, mxnet\n"
                        "x = 1\n\n#@tab pytorch, mxnet\ndef f():\n    return x\n```")},
     [f"{S}:12: warning: a tab mark inside the cell (#@tab pytorch, mxnet) is removed from the "
      "code, as d2lbook removes it — remove the line: line 9 gives the cell's tabs"]),
    ("a tab mark inside a cell names other tabs",
     {"chap/sec.md": md(DECLARE, "# Titre", "```{.python .input}\n%%tab pytorch\nx = 1\n"
                        "#@tab mxnet\ny = 2\n```")},
     [f"{S}:9: warning: a tab mark inside the cell (%%tab pytorch) names other tabs than the "
      "cell's (mxnet, from line 11: d2lbook takes a cell's first #@tab line, else its first "
      "%%tab line); it is removed from the code — split the cell there, each part with its "
      "own %%tab line",
      f"{S}:11: warning: #@tab is not on the first line of the cell (it applies to the whole "
      "cell) — move it to the cell's first line"]),
    ("a nested tab.selected branch indented as d2lbook reads it",
     {"chap/sec.md": md(DECLARE, "# Titre", """
        ```{.python .input}
        %%tab all
        class Block:
            if tab.selected('mxnet', 'tensorflow'):
                def __init__(self):
                    self.ready = True
                if tab.selected('tensorflow'):
                    self.training = None
            if tab.selected('pytorch'):
                def __init__(self):
                    self.ready = True
        ```""")},
     [f"{S}:14: [tensorflow] warning: the indentation of this branch is misleading: d2lbook "
      "reads tab.selected branches line by line (it drops the if line and dedents the lines "
      "below it by one level) and puts line 15 in the block of line 12 (def __init__(self):), "
      "where Python's nesting puts it in the block of line 10 (class Block:); this build does "
      "as d2lbook — don't nest tab.selected branches: give each set of tabs a branch of its "
      "own, with all its code at the indentation it is meant to have"]),
    ("tab.selected in an expression",
     {"chap/sec.md": md(DECLARE, "# Titre",
                        "```{.python .input}\n%%tab all\nx = 1 if tab.selected('mxnet') else 2\n```")},
     [f"{S}:10: tab.selected is used outside an if/elif condition — write `if tab.selected"
      "(...):` with the code of each framework in its branch"]),
    ("tab.selected in a lambda",
     {"chap/sec.md": md(DECLARE, "# Titre",
                        "```{.python .input}\n%%tab all\nf = lambda: tab.selected('mxnet')\n```")},
     [f"{S}:10: tab.selected is used outside an if/elif condition — write `if tab.selected"
      "(...):` with the code of each framework in its branch"]),
    ("tab.selected with an unknown tab",
     {"chap/sec.md": md(DECLARE, "# Titre",
                        "```{.python .input}\n%%tab all\nif tab.selected('jax'):\n    x = 1\n```")},
     [f"{S}:10: unknown tab 'jax' in tab.selected — use one of: pytorch, mxnet, tensorflow"]),
    ("#@save inside a function body",
     {"chap/sec.md": md("# Titre", "```{.python .input}\ndef f():\n    x = 1  #@save\n"
                                   "    return x\n```")},
     [f"{S}:5: [pytorch] #@save saves code that does not compile on its own (unexpected "
      "indent) — put #@save on a top-level line: the end of a def/class line, or alone above "
      "the code"]),
    ("#@save with nothing after it",
     {"chap/sec.md": md("# Titre", "```{.python .input}\nx = 1\n#@save\n```")},
     [f"{S}:5: [pytorch] #@save saves nothing: no code follows it — put #@save at the end of "
      "a def/class line, or alone on the line above the code to save"]),
    ("an import cell cut by a blank line",
     {"chap/sec.md": md("# Titre", "```{.python .input}\n#@save\nimport math\n\nx = 1\n```")},
     [f"{S}:7: [pytorch] warning: this code is not saved: the #@save on the cell's first line "
      "saves the imports up to the first blank line only (d2lbook's rule) — remove the blank "
      "line, or mark this code with its own #@save"]),
    ("add_to_class on a class never saved",
     {"chap/sec.md": md("# Titre", "```{.python .input}\n@d2l.add_to_class(d2l.Trainer)  #@save\n"
                                   "def fit(self):\n    pass\n```")},
     [f"{S}:4: [pytorch] add_to_class(Trainer): class 'Trainer' is not saved earlier in "
      "book order — save `class Trainer` with #@save in an earlier section or cell"]),
    ("add_to_class before the class is saved",
     {"chap/sec.md": md("# Titre",
                        "```{.python .input}\n@d2l.add_to_class(d2l.A)  #@save\ndef f(self):\n"
                        "    pass\n```",
                        "```{.python .input}\nclass A:  #@save\n    pass\n```")},
     [f"{S}:4: [pytorch] add_to_class(A): class 'A' is not saved earlier in book order — "
      "save `class A` with #@save in an earlier section or cell"]),
    ("duplicate label",
     {"chap/sec.md": md("# Titre\n:label:`sec_a`", "## Partie\n:label:`sec_a`")},
     [f"{S}:5: warning: label 'sec_a' is already defined at {S}:2 (references go there) — "
      "give this label another name"]),
    ("numref to nowhere",
     {"chap/sec.md": md("# Titre", "Voir :numref:`sec_nowhere`.")},
     [f"{S}:3: warning: :numref: refers to unknown label 'sec_nowhere' (shown as text) — fix "
      "the name or add the :label: it refers to"]),
    ("eqref to nowhere",
     {"chap/sec.md": md("# Titre", "Voir :eqref:`eq_none`.")},
     [f"{S}:3: warning: :eqref: refers to unknown label 'eq_none' (shown as text) — fix the "
      "name or add the :label: it refers to"]),
    ("missing image",
     {"chap/sec.md": md("# Titre", "![Un schéma](../../img/absent.svg)\n:label:`fig_absent`")},
     [f"{S}:3: image not found: ../../img/absent.svg — fix the path (relative to this .md "
      "file) or add the file"]),
    ("TOC entry to a missing file",
     {"chap/index.md": md("# Chapitre", "```toc\nsec\nabsent\n```")},
     ["chapters/chap/index.md:5: warning: TOC entry 'absent' has no file absent.md (left "
      "out) — fix the entry or create the file"]),
    ("section outside the TOC",
     {"chap/other.md": md("# Autre")},
     ["chapters/chap/other.md:1: warning: this section is in no TOC: it is in no page, "
      "numbering or library — add 'other' to the toc block of chapters/chap/index.md, or list "
      "the file in [build] exclusions"]),
    ("syntax error only in the MXNet branch",
     {"chap/sec.md": md(DECLARE, "# Titre",
                        "```{.python .input}\n%%tab all\ndef f():\n    if tab.selected('mxnet'):\n"
                        "        return npx.cpu(\n    if tab.selected('pytorch'):\n"
                        "        return 1\n    return 2\n```")},
     [f"{S}:12: [mxnet] does not compile: '(' was never closed — fix the code"]),
    ("syntax error for every tab",
     {"chap/sec.md": md(DECLARE, "# Titre", "```{.python .input}\n%%tab all\nx = = 1\n```")},
     [f"{S}:10: [pytorch, mxnet, tensorflow] does not compile: invalid syntax — fix the code"]),
    ("non-UTF-8 file",
     {"chap/sec.md": "# Titre\n\nCaf\xe9 noir.\n".encode("latin-1")},
     [f"{S}:3: not valid UTF-8 (byte 0xe9) — save the file as UTF-8"]),
    ("tab characters in indentation",
     {"chap/sec.md": md("# Titre", "```{.python .input}\ndef f():\n\treturn 1\n```")},
     [f"{S}:5: tab character in the indentation of code — indent with spaces (4 per level)"]),
    ("empty section",
     {"chap/sec.md": "\n\n"},
     [f"{S}:1: warning: empty section — write its content or remove it and its TOC entry"]),
    ("section without a title",
     {"chap/sec.md": md("Du texte sans titre.")},
     [f"{S}:1: warning: the section has no '# Title' heading (its file name stands in) — "
      "start it with '# Title'"]),
    ("unclosed code fence",
     {"chap/sec.md": md("# Titre", "```{.python .input}\nx = 1")},
     [f"{S}:3: code fence ``` is never closed — add a line ``` after the code"]),
    ("tab declaration after code",
     {"chap/sec.md": md("# Titre", "```{.python .input}\nx = 1\n```", DECLARE)},
     [f"{S}:7: the tab declaration is not the section's first code cell — move %load_ext "
      "d2lbook.tab / tab.interact_select(...) to the first code cell, once"]),
    ("code cell inside a prose tab block",
     {"chap/sec.md": md(DECLARE, "# Titre", ":begin_tab:`mxnet`\nTexte.",
                        "```{.python .input}\nx = 1\n```", ":end_tab:")},
     [f"{S}:11: code cell inside the :begin_tab: block opened at line 8 — close the block "
      "with :end_tab: before the cell and mark the cell with %%tab instead"]),
    ("untagged cell outside the section's tabs",
     {"chap/sec.md": md("```{.python .input}\n%load_ext d2lbook.tab\n"
                        "tab.interact_select(['mxnet'])\n```", "# Titre",
                        "```{.python .input}\nx = 1\n```")},
     [f"{S}:9: warning: an untagged code cell (of the default tab, pytorch) gives the section "
      "a notebook for pytorch, though its tab.interact_select list (mxnet) leaves it out: as "
      "d2lbook does, the notebook is made, and its #@save code goes into the pytorch library "
      "— add 'pytorch' to the section's tab.interact_select([...]), or change the cell's tabs"]),
    ("%%tab without a name",
     {"chap/sec.md": md(DECLARE, "# Titre", "```{.python .input}\n%%tab\nx = 1\n```")},
     [f"{S}:9: %%tab names no tab — write e.g. %%tab pytorch"]),
    ("TOC entry listed twice",
     {"chap/index.md": md("# Chapitre", "```toc\nsec\nsec\n```")},
     ["chapters/chap/index.md:5: warning: TOC entry 'sec' is listed twice (the first is kept) "
      "— keep a single entry"]),
    ("code in the declaration cell",
     {"chap/sec.md": md("```{.python .input}\n%load_ext d2lbook.tab\n"
                        "tab.interact_select(['pytorch'])\nimport torch\n```", "# Titre")},
     [f"{S}:4: code in the tab declaration cell is never run — move it to a cell of its own"]),
    ("unclosed bibliography entry",
     {"chap/sec.md": md("# Titre", "Voir :cite:`A.2020`.", ":bibliography:`refs.bib`"),
      "chap/refs.bib": "@book{A.2020,\n  title = {A},\n  year = {2020}\n\n"
                       "@book{B.2021,\n  title = {B}\n}\n"},
     ["chapters/chap/refs.bib:5: warning: syntax error in the entry 'A.2020' (line 1): '}' "
      "expected — check the entry's key, its braces and quotes, and the comma between two "
      "fields"]),
    ("bibliography entry without a key, and a key used twice",
     {"chap/sec.md": md("# Titre", "Voir :cite:`A.2020`.", ":bibliography:`refs.bib`"),
      "chap/refs.bib": "@book{A.2020, title = {A}}\n@book{title = {B}}\n"
                       "@book{A.2020, title = {C}, year = 2020, year = 2021}\n"},
     ["chapters/chap/refs.bib:2: warning: syntax error in the entry 'title': '}' expected — "
      "check the entry's key, its braces and quotes, and the comma between two fields",
      "chapters/chap/refs.bib:3: warning: the key 'A.2020' is that of an earlier entry too; "
      "the first is kept — give one of them another key"]),
    ("bibliography macro never defined, a field given twice",
     {"chap/sec.md": md("# Titre", "Voir :cite:`A.2020`.", ":bibliography:`refs.bib`"),
      "chap/refs.bib": "@book{A.2020,\n  title = {A},\n  year = 2020, year = 2021,\n"
                       "  publisher = mit}\n"},
     ["chapters/chap/refs.bib:1: warning: the entry 'A.2020' has two year fields; the first is "
      "kept — remove one of them",
      "chapters/chap/refs.bib:4: warning: undefined string in the entry 'A.2020' (line 1): mit "
      "— define it with @string{name = {…}} before the entry, or write the value in braces"]),
    ("old Mac line endings",
     {"chap/sec.md": md("# Titre", "```{.python .input}\nx = 1\n```").replace("\n", "\r")
      .encode()},
     [f"{S}:1: warning: lines end with a lone CR (old Mac line endings); they are read as line "
      "breaks — convert the file's line endings to LF (\\n)"]),
    ("byte-order mark",
     {"chap/sec.md": ("\ufeff" + md("# Titre", "Texte.")).encode()},
     [f"{S}:1: warning: the file starts with a byte-order mark (U+FEFF) — save it as UTF-8 "
      "without BOM"]),
    ("%%tabs for %%tab",
     {"chap/sec.md": md(DECLARE, "# Titre", "```{.python .input}\n%%tabs mxnet\nx = 1\n```")},
     [f"{S}:9: unknown cell magic %%tabs in '%%tabs mxnet' (the kernel stops the cell: 'Cell "
      "magic not found') — to mark the cell's tab, write %%tab mxnet"]),
    ("unknown cell magic",
     {"chap/sec.md": md("# Titre", "```{.python .input}\n%%timme\nx = 1\n```")},
     [f"{S}:4: unknown cell magic %%timme in '%%timme' (the kernel stops the cell: 'Cell magic "
      "not found') — did you mean %%time?"]),
    ("unknown line magic",
     {"chap/sec.md": md("# Titre", "```{.python .input}\nx = 1\n%matplotib inline\n```")},
     [f"{S}:5: unknown line magic %matplotib (the kernel stops the cell: 'Line magic function "
      "not found') — did you mean %matplotlib?"]),
    ("code fence left open before the next cell",
     {"chap/sec.md": md("# Titre", "```{.python .input}\nx = 1",
                        "```{.python .input}\ny = 2\n```")},
     [f"{S}:3: code fence ``` is not closed before the next cell's fence at line 6 — add a "
      "line ``` at the end of the code"]),
    ("displayed block left open before a code cell",
     {"chap/sec.md": md("# Titre", "```bash\npip install d2l", "```{.python .input}\nx = 1\n```")},
     [f"{S}:3: warning: the ```bash block is not closed: it runs on to the fence at line 8 and "
      "swallows the code cell at line 6, shown as text, never run (as d2lbook reads it) — "
      "close it with a line ``` before line 6"]),
    ("displayed block left open before another",
     {"chap/sec.md": md("# Titre", "```bash\npip install d2l", "```python\nx = 1\n```")},
     [f"{S}:3: warning: the ```bash block is not closed: it runs on to the fence at line 8 and "
      "swallows the ```python block at line 6, shown as text (as d2lbook reads it) — close it "
      "with a line ``` before line 6"]),
    ("misspelt role",
     {"chap/sec.md": md("# Titre\n:label:`sec_cnn`", "Voir :numreff:`sec_cnn`.")},
     [f"{S}:4: warning: unknown role :numreff: in :numreff:`sec_cnn` (shown as written; "
      "d2lbook's Sphinx warns 'Unknown interpreted text role') — did you mean :numref:?"]),
    ("role of no known name",
     {"chap/sec.md": md("# Titre", "Du texte\net (:zzz:`a b`).")},
     [f"{S}:4: warning: unknown role :zzz: in :zzz:`a b` (shown as written; d2lbook's Sphinx "
      "warns 'Unknown interpreted text role') — use one of the roles :check:, :cite:, "
      ":eqlabel:, :eqref:, :eval:, :label:, :numref:, :ref:"]),
    ("Sphinx role",
     {"chap/sec.md": md("# Titre", "Soit :math:`x^2` ou :kbd:`Ctrl`.")},
     [f"{S}:3: warning: :kbd:`Ctrl`: Sphinx's role :kbd: is not rendered by this build (shown "
      "as written) — write it in Markdown",
      f"{S}:3: warning: :math:`x^2`: Sphinx's role :math: is not rendered by this build (shown "
      "as written) — write the math as $…$"]),
    ("attribute role inside a line",
     {"chap/sec.md": md("# Titre", "![Logo](data:image/png;base64,iVBORw0KGgo=) :width:`40px`")},
     [f"{S}:3: warning: :width:`40px` inside a line of text (shown as written): d2lbook reads "
      ":width: on a line of its own only — put it on a line of its own, under the block it "
      "belongs to"]),
    ("syntax error naming another line",
     {"chap/sec.md": md("# Titre", '```{.python .input}\nx = 1\ns = """texte\nsuite\nfin\n```')},
     [f"{S}:5: [pytorch] does not compile: unterminated triple-quoted string literal (detected "
      "at line 7) — fix the code"]),
    ("unknown math command",
     {"chap/sec.md": md("# Titre", "Soit la fonction\n$\\foobar(x)$ de $x$.")},
     [f"{S}:4: warning: math $\\foobar(x)$: unknown command \\foobar (shown as text) — fix the "
      "LaTeX (pages show math as MathML made by latex2mathml)"]),
    ("unclosed brace in math",
     {"chap/sec.md": md("# Titre", "Soit $\\frac{a}{b$.")},
     [f"{S}:3: warning: math $\\frac{{a}}{{b$: a '{{' is never closed — fix the LaTeX (pages "
      "show math as MathML made by latex2mathml)"]),
    ("unbalanced display math",
     {"chap/sec.md": md("# Titre", "$$\n\\sum_i x_i}\n$$\n:eqlabel:`eq_s`")},
     [f"{S}:3: warning: math $$\\sum_i x_i}}$$: a '}}' closes no '{{' — fix the LaTeX (pages "
      "show math as MathML made by latex2mathml)"]),
    ("math that latex2mathml cannot read",
     {"chap/sec.md": md("# Titre", "Soit $\\left( x$.")},
     [f"{S}:3: warning: math $\\left( x$: cannot be read (extra left or missing right) — fix "
      "the LaTeX (pages show math as MathML made by latex2mathml)"]),
    ("external image",
     {"chap/sec.md": md("# Titre", "![Un logo](https://example.org/logo.png)")},
     [f"{S}:3: warning: image loaded from outside the book: https://example.org/logo.png (a "
      "page loads nothing from outside) — download it into img/ and use the local file"]),
    ("external image in HTML",
     {"chap/sec.md": md("# Titre", "Du texte\net <img src='//example.org/a.png'> ici.",
                        '<div>\n<img\n  src="http://example.org/b.png">\n</div>')},
     [f"{S}:4: warning: HTML loads //example.org/a.png from outside the book (a page loads "
      "nothing from outside) — download it into img/ and use the local file",
      f"{S}:8: warning: HTML loads http://example.org/b.png from outside the book (a page loads "
      "nothing from outside) — download it into img/ and use the local file"]),
    ("bad #gpus",
     {"chap/sec.md": md("```{.python .input}\n%load_ext d2lbook.tab\n"
                        "tab.interact_select(['pytorch'])\n#gpus(two)\n```", "# Titre")},
     [f"{S}:4: #gpus needs a whole number, got 'two' — write #gpus(2)"]),
]


@pytest.mark.parametrize("files, expected", [c[1:] for c in CATALOGUE],
                         ids=[c[0] for c in CATALOGUE])
def test_malformed_source_is_reported_at_its_place(tmp_path, files, expected):
    write_book(tmp_path, {"chap/sec.md": md("# Titre"), **files})
    assert problems_of(tmp_path) == expected


def test_an_image_outside_the_book_s_folder_is_an_error(tmp_path):
    """The site copies images from the book's folder only: one outside it, though it exists,
    would be a broken image on the page. One outside the sources but in the book's folder
    (img/ beside chapters/) is the book's own."""
    (tmp_path / "outside.png").write_bytes(b"\x89PNG")
    (tmp_path / "book").mkdir()
    root = write_book(tmp_path / "book", {
        "chap/sec.md": md("# Titre", "![Dehors](../../../outside.png)",
                          "![Dedans](../../img/inside.png)"),
        "../img/inside.png": "\x89PNG"})
    assert problems_of(root) == [
        f"{S}:3: image outside the book's folder: ../../../outside.png (images must live inside "
        "the book's folder, where config.ini is: the site copies nothing from elsewhere) — move "
        "the image into the book's folder (e.g. img/) and write its path relative to this .md "
        "file"]


def test_a_file_s_own_fault_comes_before_its_consequences(tmp_path):
    # Its labels are still read from a file that is not UTF-8: references to them resolve.
    write_book(tmp_path, {
        "chap/index.md": md("# Chapitre", "Voir :numref:`sec_x` et :numref:`sec_y`.",
                            "```toc\nsec\nother\n```"),
        "chap/sec.md": "# Titre\n:label:`sec_x`\n\nCaf\xe9 noir.\n".encode("latin-1"),
        "chap/other.md": "",
    })
    assert problems_of(tmp_path) == [
        "chapters/chap/other.md:1: warning: empty section — write its content or remove it and "
        "its TOC entry",
        f"{S}:4: not valid UTF-8 (byte 0xe9) — save the file as UTF-8",
        "chapters/chap/index.md:3: warning: :numref: refers to unknown label 'sec_y' (shown as "
        "text) — fix the name or add the :label: it refers to",
    ]


def test_all_problems_are_reported_in_one_run(tmp_path):
    write_book(tmp_path, {
        "chap/sec.md": md("# Titre", ":begin_tab:`jax`\nTexte.", "Voir :numref:`nowhere`."),
        "chap/other.md": md("# Autre"),
    })
    problems = problems_of(tmp_path)
    assert len(problems) == 4
    assert [p.split(":")[1] for p in problems] == ["1", "3", "3", "6"]


def test_what_only_looks_like_a_role_is_no_problem(tmp_path):
    """A role starts a word, as in reStructuredText, and code is code: times, URLs, code
    spans and displayed code with colons are text."""
    write_book(tmp_path, {"chap/sec.md": md("# Titre", """
        À 10:30:`x` ou 1:2, voir https://example.org/a:b:`c`, le code `` :numreff:`x` ``
        et py:func:`f`.

        ```bash
        echo :numreff:`x`
        ```
    """)})
    assert problems_of(tmp_path) == []


def test_the_same_inline_value_twice_is_no_duplicate_label(tmp_path):
    # An :eval: role holds an expression, not a label: the same one may come back.
    write_book(tmp_path, {"chap/sec.md": md(DECLARE, "# Titre\n:label:`x`",
                                            "Soit :eval:`x` s.", "Encore :eval:`x` s.")})
    assert problems_of(tmp_path) == []


def test_a_correct_book_has_no_problem(tmp_path):
    write_book(tmp_path, {"chap/sec.md": md(DECLARE, "# Titre\n:label:`sec_t`", """
        Voir :numref:`sec_t`.

        ```{.python .input}
        %%tab all
        class Trainer:  #@save
            if tab.selected('pytorch'):
                device = 'cuda'
            else:
                device = 'gpu'

        @d2l.add_to_class(Trainer)  #@save
        def fit(self):
            pass
        ```

        IPython's own magics are not typos:

        ```{.python .input}
        %%tab pytorch
        %matplotlib inline
        x = 10 %3
        ```

        ```{.python .input}
        %%time
        y = 2
        ```

        ```{.python .input}
        %%writefile data.txt
        anything
        ```

        ```{.python .input}
        %%bash
        echo $HOME
        ```

        Math in every form: $\\mathbf{x} \\in \\mathbb{R}^{d}$, $\\{a, b\\}$, an inline image
        ![logo](data:image/png;base64,iVBORw0KGgo=) and

        $$\\hat{y} = \\operatorname{softmax}(\\mathbf{W}\\mathbf{x} + b)$$
    """)})
    assert problems_of(tmp_path) == []


def test_a_cell_magic_after_leading_blank_lines_is_the_cell_s_magic(tmp_path):
    """IPython drops a cell's leading blank lines, and the split its tab mark: the first
    line left decides whether the cell is a %%bash cell (not Python) or Python."""
    write_book(tmp_path, {"chap/sec.md": md(DECLARE, "# Titre", """
        ```{.python .input}

        %%bash
        echo "$HOME" | wc -c
        ```

        ```{.python .input}


        %%tab pytorch
        x = 1
        ```

        ```{.python .input}
        %%tab mxnet

        %%bash
        echo "mxnet"
        ```
    """)})
    assert problems_of(tmp_path) == []
    book, _ = parse_book(load_config(tmp_path))
    (section,) = [s for s in book.pages() if s.display_path == S]
    cells = {tab: [c.source for c in split_section(section, tab).cells if c.cell_type == "code"]
             for tab in ("pytorch", "mxnet")}
    assert cells == {"pytorch": ['%%bash\necho "$HOME" | wc -c', "x = 1"],
                     "mxnet": ['%%bash\necho "mxnet"']}


def test_book_tabs_come_from_config(tmp_path):
    config = CONFIG.replace("tabs = pytorch, mxnet, tensorflow", "tabs = mxnet, pytorch")
    config = config.replace("[library-tensorflow]\nlib_file = d2l/tensorflow.py\n", "")
    write_book(tmp_path, {"chap/sec.md": md("# Titre", "```{.python .input}\nx = 1\n```",
                                            "```{.python .input}\n%%tab tensorflow\ny = 1\n```")},
               config)
    assert problems_of(tmp_path) == [
        f"{S}:8: unknown tab 'tensorflow' in %%tab — use one of: all, mxnet, pytorch",
    ]


def test_a_tab_without_library_that_cells_bring_is_said_without_library(tmp_path):
    """A book tab with no [library-<tab>] still gets the notebook its cells give it."""
    config = CONFIG.replace("tabs = pytorch, mxnet, tensorflow",
                            "tabs = pytorch, mxnet, tensorflow, jax")
    write_book(tmp_path, {"chap/sec.md": md(DECLARE, "# Titre",
                                            "```{.python .input}\n%%tab jax\nx = 1\n```")},
               config)
    assert problems_of(tmp_path) == [
        f"{S}:9: warning: %%tab jax gives the section a notebook for jax, though its "
        "tab.interact_select list (pytorch, mxnet, tensorflow) leaves it out: as d2lbook does, "
        "the notebook is made — add 'jax' to the section's tab.interact_select([...]), or "
        "change the cell's tabs"]
