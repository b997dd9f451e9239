"""Unit tests of source/roles.py: d2lbook's roles read as markdown-it tokens, and where the
tokens are in the .md text."""
from __future__ import annotations

from tabbook.features.citations import citation_keys
from tabbook.source.roles import (attributes, child_lines, edited, enclosing_block,
                                  figure_image, has_scheme, heading_title, leading_image,
                                  located_tokens, plain_text, previous_block, prose_tokens,
                                  source_spans, split_reference, top_level_blocks)

PROSE = ("Voir :numref:`fig_x`, `` :ref:`no` `` et 10:30:`x` et :numreff:`y` ou :width:`3`.\n"
         "\n"
         "![Alt *x*](<img/a b.png>)\n"
         ":width:`400px`\n"
         ":label:`fig_a`\n"
         "\n"
         "$$x$$\n"
         ":eqlabel:`eq_x`\n"
         "\n"
         "- un :eval:`1+1`\n"
         "  ligne $y$ :cite:`k`\n"
         ":end_tab:\n")


def kinds(children) -> list[tuple]:
    return [(child.type, child.meta.get("role"), child.meta.get("content")) for child in children
            if child.type in ("role", "unknown_role")]


def test_inline_roles_known_and_unknown():
    tokens = prose_tokens(PROSE)
    first = tokens[1].children
    # A role in a code span stays code; 10:30:`x` is text and code, not a role.
    assert kinds(first) == [("role", "numref", "fig_x"), ("unknown_role", "numreff", "y"),
                            ("unknown_role", "width", "3")]
    assert [c.content for c in first if c.type == "code_inline"] == [":ref:`no`", "x"]
    role = first[1]
    assert role.meta["span"] == (5, 20) and role.markup == ":numref:`fig_x`"
    assert kinds(tokens[13].children) == [("role", "eval", "1+1"), ("role", "cite", "k")]


def test_attribute_lines_belong_to_the_block_above():
    tokens = prose_tokens(PROSE)
    blocks = [(t.type, t.meta) for t in tokens if t.type == "role_block"]
    assert blocks == [("role_block", {"role": "width", "content": "400px"}),
                      ("role_block", {"role": "label", "content": "fig_a"}),
                      ("role_block", {"role": "eqlabel", "content": "eq_x"}),
                      ("role_block", {"role": "end_tab", "content": ""})]
    assert list(top_level_blocks(tokens)) == [(0, 3), (3, 6), (6, 7), (7, 8), (8, 9), (9, 10),
                                              (10, 17), (17, 18)]
    # The label after the width line is the figure's too; the end_tab's block is the list.
    assert [previous_block(tokens, i) for i in (6, 7, 9, 17)] == [3, 3, 8, 10]
    assert previous_block(tokens, 0) is None
    assert list(attributes(tokens, 6)) == ["width", "label"] and attributes(tokens, 8) == {}
    assert enclosing_block(tokens, 13) == 10


def test_images_and_figures():
    tokens = prose_tokens(PROSE)
    image = tokens[4].children[0]
    # The path as written (not percent-encoded), and where it is written.
    assert image.meta == {"span": (0, 25), "path": "img/a b.png"}
    assert leading_image(tokens, 3) is image and figure_image(tokens, 3) is image
    assert leading_image(tokens, 12) is None and leading_image(tokens, 0) is None
    words_then_image = prose_tokens("![a](b.png) et du texte")
    assert leading_image(words_then_image, 0) is not None
    assert figure_image(words_then_image, 0) is None


def test_lines_of_children_and_tokens():
    tokens = prose_tokens(PROSE)
    lines = [(child.type, line) for child, line in child_lines(tokens[13])
             if child.type in ("role", "math_inline")]
    assert lines == [("role", 0), ("math_inline", 1), ("role", 1)]
    text = "Voir :numref:`a`\net :cite:`b`.\n\n> cité :ref:`c`\n:label:`d`\n"
    located = [(token.meta["role"], line) for token, line in located_tokens(prose_tokens(text), 10)
               if token.type in ("role", "role_block")]
    assert located == [("numref", 10), ("cite", 11), ("ref", 13), ("label", 14)]


def test_source_spans_find_roles_in_the_text_and_edited_replaces_them():
    text = "Voir :numref:`a`\net :cite:`b`.\n\n> cité :ref:`c`\n:label:`d`\n"
    spans = list(source_spans(prose_tokens(text), text))
    assert [(token.type, text[start:end]) for token, start, end in spans] == [
        ("role", ":numref:`a`"), ("role", ":cite:`b`"), ("role", ":ref:`c`"),
        ("role_block", ":label:`d`\n")]
    assert edited(text, [(start, end, "X") for _, start, end in spans]) == (
        "Voir X\net X.\n\n> cité X\nX")
    assert edited("abc", []) == "abc"


def test_text_helpers():
    assert heading_title(prose_tokens("# Titre :label:`s` fin")[1]) == "Titre  fin"
    assert plain_text(prose_tokens("*Un* `code` :numreff:`x` :ref:`y`\n$z$")[1].children) == (
        "Un code :numreff:`x`  z")
    assert split_reference("le texte <lab >") == ("le texte", "lab")
    assert split_reference(" lab ") == (None, "lab")
    assert citation_keys(" a, ,b ") == ["a", "b"]
    assert has_scheme("https://x") and has_scheme("mailto:x")
    assert not has_scheme("img/a.png") and not has_scheme("C:/x")
