// The book's only script: framework tabs, theme, copy buttons, menu, search page.
// No network: everything it needs is in the page.
(function () {
  "use strict";
  var root = document.documentElement;
  var bookTabs = JSON.parse(document.body.dataset.bookTabs || "[]");
  var pageTabs = (document.body.dataset.pageTabs || "").split(" ").filter(Boolean);
  // The book's words, in its language (render.py's script_strings): say("theme", {theme: x}).
  var strings = JSON.parse(document.body.dataset.ui || "{}");
  function say(key, values) {
    return (strings[key] || key).replace(/\{(\w+)\}/g, function (whole, name) {
      return values && name in values ? String(values[name]) : whole;
    });
  }
  var names = {};
  document.querySelectorAll("#framework-select option").forEach(function (o) {
    names[o.value] = o.textContent;
  });

  function store(key, value) {
    try { localStorage.setItem(key, value); } catch (e) { /* private mode: no memory */ }
  }
  function stored(key) {
    try { return localStorage.getItem(key); } catch (e) { return null; }
  }

  // -- framework ---------------------------------------------------------------
  function showTab(chosen) {
    var shown = chosen;
    var notice = document.getElementById("missing-tab");
    if (pageTabs.length && pageTabs.indexOf(chosen) < 0) {
      shown = pageTabs[0];   // this section lacks the reader's framework: say so
      if (notice) {
        notice.querySelector("[data-missing-name]").textContent = names[chosen] || chosen;
        notice.hidden = false;
      }
    } else if (notice) {
      notice.hidden = true;
    }
    root.dataset.tab = shown;
    document.querySelectorAll("[data-tab-button]").forEach(function (button) {
      button.setAttribute("aria-selected", String(button.dataset.tabButton === shown));
      button.tabIndex = button.dataset.tabButton === shown ? 0 : -1;
    });
    var select = document.getElementById("framework-select");
    if (select) select.value = chosen;
    focusWide();   // the panels just shown may hold wide blocks
    document.dispatchEvent(new Event("tabbook:tab"));
    if (typeof clearCopy === "function") clearCopy();
  }
  function choose(tab) {
    if (bookTabs.indexOf(tab) < 0) return;
    store("tabbook-tab", tab);
    showTab(tab);
  }
  var initial = new URLSearchParams(location.search).get("tab");
  if (bookTabs.indexOf(initial) < 0) initial = stored("tabbook-tab");
  if (bookTabs.indexOf(initial) < 0) initial = bookTabs[0];
  if (bookTabs.length) showTab(initial);

  // Panels of other heights above the reader's place would move the page under them: the
  // element the reader is at (the tab clicked, or the first block that begins below the
  // header) is put back where it was on the screen.
  function keepInPlace(anchor, change) {
    var before = anchor ? anchor.getBoundingClientRect().top : 0;
    change();
    if (anchor) window.scrollBy(0, anchor.getBoundingClientRect().top - before);
  }
  function readingPlace() {
    var header = document.querySelector("header.top");
    var line = getComputedStyle(header).position === "sticky" ? header.getBoundingClientRect().bottom : 0;
    var blocks = document.querySelectorAll("article > *");
    for (var i = 0; i < blocks.length; i++) {
      if (blocks[i].getBoundingClientRect().top >= line) return blocks[i];
    }
    return null;
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-tab-button]");
    if (button) keepInPlace(button, function () { choose(button.dataset.tabButton); });
  });
  document.addEventListener("keydown", function (event) {
    var button = event.target.closest && event.target.closest("[data-tab-button]");
    if (!button || (event.key !== "ArrowRight" && event.key !== "ArrowLeft")) return;
    var buttons = Array.prototype.slice.call(button.parentNode.children);
    var next = buttons[(buttons.indexOf(button) + (event.key === "ArrowRight" ? 1 : -1) +
                        buttons.length) % buttons.length];
    keepInPlace(next, function () { choose(next.dataset.tabButton); });
    next.focus({ preventScroll: true });
  });
  var select = document.getElementById("framework-select");
  if (select) select.addEventListener("change", function () {
    keepInPlace(readingPlace(), function () { choose(select.value); });
  });
  // Another page of the book, open in another tab, changed the framework.
  window.addEventListener("storage", function (event) {
    if (event.key === "tabbook-tab" && event.newValue) {
      keepInPlace(readingPlace(), function () { showTab(event.newValue); });
    }
  });

  // -- theme -------------------------------------------------------------------
  var themes = ["auto", "light", "dark"];
  var themeButton = document.querySelector("button.theme");
  var systemDark = window.matchMedia("(prefers-color-scheme: dark)");
  function showTheme(theme) {
    root.dataset.theme = theme;
    root.dataset.scheme = theme === "auto" ? (systemDark.matches ? "dark" : "light") : theme;
    var label = say("theme_" + theme);
    themeButton.setAttribute("aria-label", say("theme_change", { theme: label }));
    themeButton.title = say("theme", { theme: label });
    // What is in effect shows on the button: its icon and the theme's name.
    themeButton.dataset.themeShown = theme;
    themeButton.querySelector(".theme-icon").textContent = { auto: "◐", light: "☀", dark: "☾" }[theme];
    themeButton.querySelector(".theme-name").textContent = label;
  }
  showTheme(stored("tabbook-theme") || "auto");
  systemDark.addEventListener("change", function () { showTheme(root.dataset.theme); });
  themeButton.addEventListener("click", function () {
    var next = themes[(themes.indexOf(root.dataset.theme) + 1) % themes.length];
    store("tabbook-theme", next);
    showTheme(next);
  });

  // -- sidebar: the current page's entry in view ------------------------------------
  var sidebar = document.getElementById("sidebar");
  var current = sidebar && sidebar.querySelector("[aria-current=page]");
  if (current && sidebar.scrollHeight > sidebar.clientHeight) {
    var box = sidebar.getBoundingClientRect(), entry = current.getBoundingClientRect();
    if (entry.top < box.top || entry.bottom > box.bottom)
      sidebar.scrollTop += entry.top - box.top - (box.height - entry.height) / 2;
  }

  // -- outline: the heading being read is marked; folded on phones ----------------------
  var outline = document.querySelector(".outline");
  if (outline) {
    var phone = window.matchMedia("(max-width: 50rem)");
    var folds = outline.querySelector("details");
    if (folds && phone.matches) folds.open = false;
    var links = {};
    outline.querySelectorAll("a[href^='#']").forEach(function (a) {
      links[decodeURIComponent(a.getAttribute("href").slice(1))] = a;
    });
    var headings = Array.prototype.filter.call(
      document.querySelectorAll("article h2[id], article h3[id]"),
      function (h) { return h.id in links; });
    var mark = function () {
      // The last heading above the reading line (a third down the window).
      var line = window.innerHeight / 3, reading = null;
      headings.forEach(function (h) { if (h.getBoundingClientRect().top <= line) reading = h; });
      if (!reading && headings.length) reading = headings[0];
      Object.keys(links).forEach(function (id) {
        if (reading && id === reading.id) links[id].setAttribute("aria-current", "true");
        else links[id].removeAttribute("aria-current");
      });
    };
    if ("IntersectionObserver" in window && headings.length) {
      var observer = new IntersectionObserver(mark, { rootMargin: "0px 0px -66% 0px" });
      headings.forEach(function (h) { observer.observe(h); });
      window.addEventListener("scroll", function () {
        if (!mark.pending) { mark.pending = true; requestAnimationFrame(function () { mark.pending = false; mark(); }); }
      }, { passive: true });
    }
    mark();
  }

  // -- menu on small screens -----------------------------------------------------
  var menu = document.querySelector("button.menu");
  menu.addEventListener("click", function () {
    var open = document.body.classList.toggle("menu-open");
    menu.setAttribute("aria-expanded", String(open));
  });

  // -- copy buttons ----------------------------------------------------------------
  document.querySelectorAll("pre.code").forEach(function (pre) {
    var button = document.createElement("button");
    button.type = "button";
    button.className = "copy";
    button.textContent = say("copy");
    button.setAttribute("aria-label", say("copy_label"));
    button.addEventListener("click", function () {
      var text = pre.querySelector("code").innerText;
      var done = function () {
        button.textContent = say("copied");
        setTimeout(function () { button.textContent = say("copy"); }, 1500);
      };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).then(done, function () { fallback(text); done(); });
      } else {
        fallback(text);
        done();
      }
    });
    var block = document.createElement("div");
    block.className = "code-block";
    pre.parentNode.insertBefore(block, pre);
    block.appendChild(pre);
    block.appendChild(button);
  });
  // The width of the first line of each code block against the room the button leaves.
  var probe = document.createElement("span");
  function clearCopy() {
    document.querySelectorAll(".code-block").forEach(function (block) {
      var pre = block.querySelector("pre.code"), button = block.querySelector(".copy");
      if (!probe || !pre.offsetParent) return;   // a hidden panel: measured when shown
      var code = pre.querySelector("code");
      var first = code.textContent.split("\n")[0].replace(/\s+$/, "");
      probe.textContent = first;
      probe.style.cssText = "position:absolute;visibility:hidden;white-space:pre;font:inherit";
      code.appendChild(probe);
      var right = code.getBoundingClientRect().left + probe.getBoundingClientRect().width;
      code.removeChild(probe);
      pre.classList.toggle("copy-clear", right > button.getBoundingClientRect().left - 4);
    });
  }
  clearCopy();
  window.addEventListener("resize", clearCopy);
  function fallback(text) {
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    document.execCommand("copy");
    document.body.removeChild(area);
  }

  // -- wide blocks: a table, an output, a formula or a figure wider than the page scrolls sideways;
  // the keyboard reaches it (and scrolls it with the arrows) only if it can take focus.
  function focusWide() {
    document.querySelectorAll("article table, pre.output, pre.code, .equation, .figure-frame").forEach(function (block) {
      if (block.scrollWidth > block.clientWidth) block.tabIndex = 0;
      else block.removeAttribute("tabindex");
    });
  }
  focusWide();
  window.addEventListener("resize", focusWide);
  document.querySelectorAll(".figure-frame img").forEach(function (image) {
    image.addEventListener("load", focusWide);   // a lazy image has no width until it loads
  });

  // -- search page: Pagefind's index, our own small interface ----------------------
  // A page's parts under each heading (Pagefind's sub-results, from the headings' ids),
  // the best first: the one whose matches weigh most (a match in a heading weighs more).
  function score(part) {
    return (part.weighted_locations || []).reduce(function (sum, l) {
      return sum + l.balanced_score;
    }, 0);
  }
  function link(url, text) {
    var a = document.createElement("a");
    a.href = url;   // Pagefind adds the site's sub-folder from its own URL
    a.textContent = text;
    return a;
  }
  // The words that the index has in addition to the page's text (search_terms.py: each
  // begins with a word joiner), out of an excerpt.
  function withoutTerms(excerpt) {
    return excerpt.replace(/(<mark>)?\u2060[^\s<]*(<\/mark>)?\s*/g, "");
  }
  // One result: a link to the heading under which the words are found, the page it
  // belongs to when that heading is not the page's title, the excerpt, the other headings.
  function resultItem(page) {
    var parts = (page.sub_results || []).slice().sort(function (a, b) { return score(b) - score(a); });
    var best = parts[0] || { url: page.url, title: page.meta.title, excerpt: page.excerpt };
    var item = document.createElement("li");
    item.appendChild(link(best.url, best.title));
    if (best.title !== page.meta.title) {
      var where = document.createElement("span");
      where.className = "search-page";
      where.textContent = " — " + page.meta.title;
      item.appendChild(where);
    }
    var excerpt = document.createElement("p");
    excerpt.innerHTML = withoutTerms(best.excerpt);   // Pagefind escapes it, marks hits with <mark>
    item.appendChild(excerpt);
    var others = parts.slice(1, 4);
    if (others.length) {
      var list = document.createElement("ul");
      list.className = "search-parts";
      others.forEach(function (part) {
        var entry = document.createElement("li");
        entry.appendChild(link(part.url, part.title));
        list.appendChild(entry);
      });
      item.appendChild(list);
    }
    return item;
  }
  // Words compared without accents, case or ligatures: « cœur » is « coeur ».
  function fold(text) {
    return text.toLowerCase().replace(/œ/g, "oe").replace(/æ/g, "ae")
      .normalize("NFD").replace(/[\u0300-\u036f]/g, "");
  }
  // The query with its ligatures put back, written out, and as written (Pagefind's words
  // keep their œ): results of any of them. The order depends on the words only, so that
  // « coeurs » and « cœurs » give the same results.
  function variants(query) {
    var spelledOut = query.replace(/œ/gi, "oe").replace(/æ/gi, "ae");
    var found = [spelledOut.replace(/oe/g, "œ").replace(/ae/g, "æ"), spelledOut, query];
    return found.filter(function (q, i) { return found.indexOf(q) === i; });
  }
  // Whether every word of the query begins a word of the page (Pagefind also returns
  // pages for words it only comes near).
  // Words of letters, digits, "_" and inner dots (npx.set_np, load_parameters), a dotted
  // one also by its parts, as the index has them (search_terms.py): « GradientTape » is a
  // word of tf.GradientTape. Texts in other scripts than Latin are left to Pagefind.
  function words(text) {
    var found = fold(text).replace(/[^0-9a-z_.\u0370-\u1fff\u3040-\u9fff\uac00-\ud7af]+/g, " ")
      .split(" ").map(function (w) { return w.replace(/^\.+|\.+$/g, ""); }).filter(Boolean);
    var parts = [];
    found.forEach(function (w) {
      if (w.indexOf(".") > 0) parts.push.apply(parts, w.split(".").slice(1).filter(Boolean));
    });
    return found.concat(parts);
  }
  function holds(page, query) {
    var text = " " + words(page.content || "").join(" ");
    return words(query).every(function (word) {
      return /[^\x00-\x7f]/.test(word) || text.indexOf(" " + word) >= 0;
    });
  }
  // Pagefind's pages, the best first, are read (their fragment loaded) only as far as the
  // results shown need, one result ahead: « plus de résultats » shows the next ones, and
  // is offered only when there is one more.
  var BATCH = 10;
  function nextResults(listing) {
    if (listing.kept.length > BATCH || listing.next >= listing.candidates.length) {
      return Promise.resolve(listing.kept.splice(0, BATCH));
    }
    var chunk = listing.candidates.slice(listing.next, listing.next + BATCH + 1 - listing.kept.length);
    listing.next += chunk.length;
    return Promise.all(chunk.map(function (r) { return r.data(); })).then(function (pages) {
      listing.kept.push.apply(listing.kept, pages.filter(function (page) {
        return holds(page, listing.query);
      }));
      return nextResults(listing);
    });
  }
  var results = document.getElementById("search-results");
  if (results) {
    var input = document.getElementById("q");
    var status = document.getElementById("search-status");
    var moreButton = document.getElementById("search-more");
    if (location.protocol === "file:") {
      document.getElementById("search-file").hidden = false;
    } else {
      // One index per framework on a book with tabs: the reader's framework's.
      var engines = {};
      var engine = function () {
        var folder = bookTabs.length > 1 ? "pagefind/" + root.dataset.tab + "/" : "pagefind/";
        if (!engines[folder]) {
          engines[folder] = import(new URL(folder + "pagefind.js", document.baseURI).href)
            .then(function (pagefind) {
              return pagefind.options({ baseUrl: new URL(".", document.baseURI).pathname })
                .then(function () { return pagefind; });
            });
        }
        return engines[folder];
      };
      var latest = 0, listing = null;
      var run = function () {
        var query = input.value.trim(), ticket = ++latest;
        moreButton.hidden = true;
        if (!query) { results.innerHTML = ""; status.textContent = ""; return; }
        engine().then(function (pagefind) {
          return new Promise(function (done) { setTimeout(done, 200); }).then(function () {
            if (ticket !== latest) return null;
            return Promise.all(variants(query).map(function (q) { return pagefind.search(q); }));
          });
        }).then(function (searches) {
          if (!searches || ticket !== latest) return null;
          var seen = {}, found = [];
          searches.forEach(function (search) {
            (search ? search.results : []).forEach(function (r) {
              if (!seen[r.id]) { seen[r.id] = true; found.push(r); }
            });
          });
          found.sort(function (a, b) { return b.score - a.score; });
          listing = { query: query, candidates: found, next: 0, kept: [], shown: 0, ticket: ticket };
          return showMore(listing);
        });
      };
      // The next results of `current` below those shown; the first new one takes the focus
      // when the reader asked for them.
      var showMore = function (current, focus) {
        moreButton.disabled = true;   // one batch at a time
        return nextResults(current).then(function (pages) {
          if (current.ticket !== latest) return;
          if (!current.shown) results.innerHTML = "";
          pages.forEach(function (page, i) {
            var item = resultItem(page);
            results.appendChild(item);
            if (focus && i === 0) item.querySelector("a").focus();
          });
          current.shown += pages.length;
          var more = current.kept.length > 0;
          status.textContent = say(more ? "search_found_first" : "search_found",
                                   { count: current.shown, query: current.query });
          moreButton.hidden = !more;
          moreButton.disabled = false;
        });
      };
      moreButton.addEventListener("click", function () { showMore(listing, true); });
      input.value = new URLSearchParams(location.search).get("q") || "";
      input.addEventListener("input", run);
      input.form.addEventListener("submit", function (event) { event.preventDefault(); run(); });
      document.addEventListener("tabbook:tab", run);   // another framework: its index
      run();
    }
  }
})();
