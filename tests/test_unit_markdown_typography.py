"""Unit tests of output/markdown_typography.py: French spacing written back into a
notebook's Markdown, in its text only."""
from __future__ import annotations

from tabbook.core.language import ENGLISH_LANGUAGE, language_of
from tabbook.output.markdown_typography import typeset_markdown

FRENCH, _ = language_of("fr")
NNBSP = "\u202f"


def test_only_the_text_is_typeset_never_code_math_roles_or_urls():
    assert typeset_markdown("Bonjour : voici `a : b` et $x : y$ ; fin !", FRENCH) == (
        f"Bonjour{NNBSP}: voici `a : b` et $x : y${NNBSP}; fin{NNBSP}!")
    assert typeset_markdown("Un [lien : ici](http://x.org/a:b) et <http://y.org> ?", FRENCH) == (
        f"Un [lien{NNBSP}: ici](http://x.org/a:b) et <http://y.org>{NNBSP}?")
    assert typeset_markdown(":numref:`a:b` : suite ![a : b](img/c:d.png)", FRENCH) == (
        f":numref:`a:b`{NNBSP}: suite ![a{NNBSP}: b](img/c:d.png)")


def test_a_figures_caption_is_prose_its_path_title_and_code_are_not():
    assert typeset_markdown(
        'Voir ![coupé en deux : l\'entrée, « x » `a : b` [lien ?](http://a.b/c?d)]'
        '(img/e:f.png "titre : t") ; fin !', FRENCH) == (
        f'Voir ![coupé en deux{NNBSP}: l\'entrée, «{NNBSP}x{NNBSP}» `a : b` '
        f'[lien{NNBSP}?](http://a.b/c?d)](img/e:f.png "titre : t"){NNBSP}; fin{NNBSP}!')
    # A caption's roles and links are found where the caption (parsed apart) writes them.
    assert typeset_markdown("[![a : b :cite:`k:x` ; c](i.png) : d](u) !", FRENCH) == (
        f"[![a{NNBSP}: b :cite:`k:x`{NNBSP}; c](i.png){NNBSP}: d](u){NNBSP}!")


def test_lines_are_changed_where_they_are_written_after_their_block_prefix():
    assert typeset_markdown("> Citation : oui\n\n- liste : oui\n\n  suite : oui", FRENCH) == (
        f"> Citation{NNBSP}: oui\n\n- liste{NNBSP}: oui\n\n  suite{NNBSP}: oui")
    assert typeset_markdown("Texte.\n\n    code : indenté", FRENCH) == "Texte.\n\n    code : indenté"
    assert typeset_markdown("| a : b | c |\n|---|---|\n| d : e | f |", FRENCH) == (
        f"| a{NNBSP}: b | c |\n|---|---|\n| d{NNBSP}: e | f |")


def test_escapes_stay_as_written():
    assert typeset_markdown("Échappé \\: non ; \\*fin\\* !", FRENCH) == (
        f"Échappé{NNBSP}\\: non{NNBSP}; \\*fin\\*{NNBSP}!")


def test_a_book_in_another_language_is_left_as_it_is():
    assert typeset_markdown("a : b ; c !", ENGLISH_LANGUAGE) == "a : b ; c !"
