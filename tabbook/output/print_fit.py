"""The print layout fitted to the page by Chromium, just before it prints the PDF.

Scripts run in the laid-out document: code blocks and outputs set smaller to fit the
page's width, down to a floor; past it, a table goes to a landscape page and anything
else wraps; tables set smaller without cutting their words; inline code (and wrapped
code) never broken at its hyphens.
"""
from __future__ import annotations

MARGINS = {"top": "18mm", "bottom": "20mm", "left": "20mm", "right": "20mm"}
"""As print.css's @page, whose margin boxes hold the page numbers and running heads."""
TEXT_WIDTH_PX = round((210 - 20 - 20) / 25.4 * 96)
"""The width of A4's text in CSS pixels: the window's width while a block is measured."""
LANDSCAPE_MARGINS = "18mm 12mm 20mm"
"""The margins of a landscape page (a block too wide for the portrait page): narrower at
the sides, so that a profiler's table of 180 characters fits at the smallest size."""
LANDSCAPE_TEXT_WIDTH_PX = round((297 - 12 - 12) / 25.4 * 96)
SHORT_BLOCK = 15
"""A code block or output of at most this many lines is kept on one page."""
SMALLEST_CODE_PT = 7.0
"""A block's lines (and a table's words) are set down to this size to fit the page's
width, against 10.5 pt for the text; wider, they wrap, or go to a landscape page."""
WIDE_LINES = 3
"""A block with at least this many lines too wide for the page at the smallest size (a
table, a listing) is printed on a landscape page; one with fewer wraps where it is."""
# Run in the page before it is printed: each <pre> whose longest line is wider than the
# page is set smaller to fit it, down to a floor. Past the floor, a block with several
# such lines (its columns would be garbled by wrapping) is moved to a landscape page of
# its chapter (`-wide`, pdf.page_rules) and fitted to that width; otherwise, or wider still,
# it wraps at the edge. Short blocks are kept on one page. A table whose words do not fit
# the page is set smaller too: its words are never cut (Chromium has no French
# hyphenation patterns offline on Linux, so `hyphens: auto` may do nothing).
FIT_BLOCKS = """([shortest, smallest, wideLines, landscapeExtra]) => {
  const floor = smallest * 96 / 72;
  for (const pre of document.querySelectorAll('pre')) {
    const lines = pre.textContent.replace(/\\n$/, '').split('\\n');
    if (lines.length <= shortest) pre.classList.add('short');
    const style = getComputedStyle(pre);
    const padding = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
    let room = pre.clientWidth - padding;
    const needed = pre.scrollWidth - padding;
    if (needed <= room + 0.5) continue;
    const size = parseFloat(style.fontSize);
    // Monospaced: a line's width is in proportion to its characters.
    const longest = Math.max(...lines.map(line => line.length));
    const fitting = longest * room / (needed * floor / size);
    if (size * room / needed * 0.99 < floor
        && lines.filter(line => line.length > fitting).length >= wideLines) {
      const page = pre.closest('main > section')?.style.page;
      pre.style.page = page ? page + '-wide' : 'wide';
      room += landscapeExtra;
    }
    const fitted = size * room / needed * 0.99;
    pre.style.fontSize = Math.max(Math.min(fitted, size), floor) + 'px';
    for (const code of pre.querySelectorAll('code')) code.style.fontSize = 'inherit';
    if (fitted < floor) pre.classList.add('wraps');
  }
  for (const table of document.querySelectorAll('table')) {
    for (let pass = 0; pass < 3; pass++) {   // cells' padding scales with the font
      const room = table.parentElement.clientWidth, needed = table.offsetWidth;
      if (needed <= room + 0.5) break;
      const size = parseFloat(getComputedStyle(table).fontSize) * room / needed * 0.98;
      table.style.fontSize = Math.max(size, floor) + 'px';
      if (size < floor) { table.classList.add('wraps'); break; }
    }
  }
  return true;
}"""
# Run in the page before it is printed, after FIT_BLOCKS: Chromium breaks a line after
# any hyphen, which cuts inline code (`nvidia-|smi`, `--query-|gpu`) and the commands of
# a block that wraps. Each word of them that holds a hyphen is kept whole (nowrap
# pieces), with a break allowed only after its `/` and `.` (<wbr>, which adds nothing
# to the text copied from the PDF).
KEEP_HYPHENS = r"""() => {
  for (const element of document.querySelectorAll(':not(pre) > code, pre.wraps')) {
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    const texts = [];
    while (walker.nextNode()) texts.push(walker.currentNode);
    for (const text of texts) {
      if (!text.data.includes('-')) continue;
      const pieces = document.createDocumentFragment();
      for (const word of text.data.split(/(\s+)/)) {
        if (!/\S-|-\S/.test(word)) { pieces.append(word); continue; }
        word.split(/(?<=[\/.])/).forEach((piece, index) => {
          if (index) pieces.append(document.createElement('wbr'));
          const whole = document.createElement('span');
          whole.className = 'nobreak';
          whole.textContent = piece;
          pieces.append(whole);
        });
      }
      text.replaceWith(pieces);
    }
  }
  return true;
}"""
LANDSCAPE = f"size: A4 landscape; margin: {LANDSCAPE_MARGINS};"
"""The @page rule of a block too wide for a portrait page (FIT_BLOCKS), a page named
after its chapter's page with ``-wide`` (``wide`` outside any chapter)."""


def fit_to_page(page) -> None:
    """Fit the document open in Playwright's `page` (laid out at the text's width) to
    the page, before it is printed."""
    page.evaluate(FIT_BLOCKS, [SHORT_BLOCK, SMALLEST_CODE_PT, WIDE_LINES,
                               LANDSCAPE_TEXT_WIDTH_PX - TEXT_WIDTH_PX])
    page.evaluate(KEEP_HYPHENS)
