"""Unit tests of output/mathml.py: LaTeX to MathML fitted to the page (display style,
limits below and above large operators, the French decimal comma)."""
from __future__ import annotations

from types import SimpleNamespace

from markdown_it.token import Token

from tabbook.core.language import ENGLISH_LANGUAGE, language_of
from tabbook.output.mathml import math_html, math_rule

FRENCH, _ = language_of("fr")
MATH = '<math xmlns="http://www.w3.org/1998/Math/MathML" display="{}">{}</math>'
SUM = "<mo>&#x02211;</mo><mrow><mi>i</mi><mo>&#x0003D;</mo><mn>1</mn></mrow><mi>n</mi>"
PAREN = '<mo stretchy="true" fence="true" form="{}">&#x000{}</mo>'


def test_inline_math():
    assert math_html("x^2", False) == MATH.format(
        "inline", "<mrow><msup><mi>x</mi><mn>2</mn></msup></mrow>")
    assert math_html(r"\frac{a}{b}", False) == MATH.format(
        "inline", "<mrow><mfrac><mrow><mi>a</mi></mrow><mrow><mi>b</mi></mrow></mfrac></mrow>")


def test_display_math_is_in_display_style_with_limits_below_and_above():
    assert math_html(r"\sum_{i=1}^n x_i", True) == MATH.format(
        'block" displaystyle="true',
        f"<mrow><munderover>{SUM}</munderover><msub><mi>x</mi><mi>i</mi></msub></mrow>")
    assert math_html(r"\max_x f", True) == MATH.format(
        'block" displaystyle="true', "<mrow><munder><mo>max</mo><mi>x</mi></munder><mi>f</mi></mrow>")


def test_scripts_of_a_sum_inside_delimiters_become_its_limits():
    # latex2mathml writes <msubsup> there; the scripts nested inside stay scripts.
    assert math_html(r"\left[\sum_{i=1}^n x_i\right]", True) == MATH.format(
        'block" displaystyle="true',
        '<mrow><mrow><mo stretchy="true" fence="true" form="prefix">[</mo>'
        f"<munderover>{SUM}</munderover><msub><mi>x</mi><mi>i</mi></msub>"
        '<mo stretchy="true" fence="true" form="postfix">]</mo></mrow></mrow>')
    assert math_html(r"\left(\sum_{x_i} y\right)", True) == MATH.format(
        'block" displaystyle="true',
        f'<mrow><mrow>{PAREN.format("prefix", "28;")}<munder><mo>&#x02211;</mo><mrow><msub>'
        f'<mi>x</mi><mi>i</mi></msub></mrow></munder><mi>y</mi>{PAREN.format("postfix", "29;")}'
        "</mrow></mrow>")


def test_a_comma_between_digits_is_a_decimal_separator_in_french_only():
    french = math_html("0,001 + 2{,}5", False, FRENCH)
    assert "<mn>0,001</mn>" in french and "<mn>2,5</mn>" in french
    assert "&#x0002C;" not in french
    english = math_html("0,001", False, ENGLISH_LANGUAGE)
    assert english == MATH.format("inline", "<mrow><mn>0</mn><mo>&#x0002C;</mo><mn>001</mn></mrow>")
    # A comma between other things stays a comma.
    assert "<mo>&#x0002C;</mo>" in math_html("x, 1", False, FRENCH)


def test_math_that_cannot_be_converted_is_shown_as_written():
    assert math_html(r"\frac{<a>}{", False) == r'<code class="math-error">\frac{&lt;a&gt;}{</code>'


def test_render_rules_wrap_each_kind_of_math_in_the_pages_language():
    env = {"ctx": SimpleNamespace(language=FRENCH)}
    token = Token("math_inline", "", 0, content=" 1,5 ")
    assert math_rule("math_inline")(None, [token], 0, None, env) == (
        '<span class="math inline">'
        + MATH.format("inline", "<mrow><mn>1,5</mn></mrow>") + "</span>")
    block = math_rule("math_block")(None, [Token("math_block", "", 0, content="x")], 0, None, env)
    assert block.startswith('<div class="math block">\n<math ') and block.endswith(
        "</math>\n</div>\n")
    assert 'displaystyle="true"' in block


def test_a_word_in_math_is_one_identifier_or_one_text_not_one_per_letter():
    """Screen readers spell out « a r r o n d i » when each letter is its own <mi>."""
    mathml = math_html(r"\mathrm{arrondi}(x) + W_\mathrm{out} + \text{appels, si } n", False)
    assert "<mi>arrondi</mi>" in mathml and "<mi>out</mi>" in mathml
    assert "<mtext>appels,&#x000A0;si&#x000A0;</mtext>" in mathml
    assert 'mathvariant="normal">a<' not in mathml and "<mi>x</mi>" in mathml
    assert "<mo>softmax</mo>" in math_html(r"\operatorname{softmax}(z)", False)
    # A subscript inside \mathrm stays a subscript: only a run of letters is a word.
    assert "<msub><mi mathvariant=\"normal\">x</mi><mn>1</mn></msub>" in \
        math_html(r"\mathrm{x_1}", False)
