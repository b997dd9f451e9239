"""Choosing another framework keeps the reader's place: panels of other heights above the
tab group clicked (or the text read, when the header's menu is used) do not move it."""
from __future__ import annotations

import pytest

from conftest import DECLARE, write_book
from test_html import DESKTOP, PHONE, render_unexecuted

GROUPS = 8
LONG = "\n".join(f"x{line} = torch.zeros({line})" for line in range(40))

UNEVEN = DECLARE + "\n# Des panneaux inégaux\n" + "".join(f"""
Le passage {group}, avant son code.

```{{.python .input}}
%%tab pytorch
{LONG}
```

```{{.python .input}}
%%tab mxnet
y = np.zeros({group})
```

```{{.python .input}}
%%tab tensorflow
y = tf.zeros({group})
```
""" for group in range(GROUPS)) + "".join(f"\nLa suite, paragraphe {n}.\n" for n in range(40))
"""Long PyTorch panels, short others, and text after them: the page stays long enough to
keep any place on the screen."""

# The top of `element` on the screen, and the bottom of the header where it covers the page.
PLACE = """element => [element.getBoundingClientRect().top,
  getComputedStyle(document.querySelector('header.top')).position === 'sticky'
  ? document.querySelector('header.top').getBoundingClientRect().bottom : 0]"""


@pytest.fixture(scope="module")
def uneven_page(tmp_path_factory):
    site = render_unexecuted(write_book(tmp_path_factory.mktemp("tabs"), {"chap/sec.md": UNEVEN}))
    return (site / "chap" / "sec.html").as_uri()


@pytest.mark.browser
@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_clicked_tab_group_stays_where_it_was(uneven_page, visitor, viewport):
    browse = visitor(viewport=viewport, is_mobile=viewport is PHONE, has_touch=viewport is PHONE)
    page = browse.page
    page.goto(uneven_page + "?tab=pytorch")
    for group, tab in ((GROUPS - 2, "tensorflow"), (GROUPS - 1, "mxnet"), (3, "pytorch")):
        button = page.locator(".tab-group").nth(group).locator(f"[data-tab-button={tab}]")
        button.evaluate("b => window.scrollTo(0, window.scrollY + b.getBoundingClientRect().top"
                        " - innerHeight / 2)")
        before, _ = button.evaluate(PLACE)
        if viewport is PHONE:
            button.tap()
        else:
            button.click()
        after, header = button.evaluate(PLACE)
        assert set(browse.visible_panels()) == {tab}
        assert abs(after - before) <= 4 and after > header, (group, tab, before, after)
    assert not browse.errors


@pytest.mark.browser
def test_the_header_menu_keeps_the_text_being_read_in_place(uneven_page, visitor):
    browse = visitor(viewport=DESKTOP)
    page = browse.page
    page.goto(uneven_page + "?tab=pytorch")
    read = page.locator("article > p").nth(GROUPS - 2)
    read.evaluate("p => window.scrollTo(0, window.scrollY + p.getBoundingClientRect().top - 200)")
    before, _ = read.evaluate(PLACE)
    page.select_option("#framework-select", "tensorflow")
    after, header = read.evaluate(PLACE)
    assert set(browse.visible_panels()) == {"tensorflow"}
    assert abs(after - before) <= 4 and after > header, (before, after)
