/* Live preview (build.py serve): added to the pages the preview server sends, never
   to the built site. Reloads the page after each successful rebuild, at the same
   scroll position; shows the problems of a failed one. */
(function () {
  "use strict";
  var script = document.currentScript;
  var generation = Number(script.dataset.generation);
  var key = "tabbook-preview-scroll";

  try {
    var kept = JSON.parse(sessionStorage.getItem(key) || "null");
    sessionStorage.removeItem(key);
    if (kept && kept.path === location.pathname) {
      var restore = function () { window.scrollTo(kept.x, kept.y); };
      if (document.readyState === "complete") restore();
      else window.addEventListener("load", restore);
    }
  } catch (e) {}

  function reload() {
    try {
      sessionStorage.setItem(key, JSON.stringify(
        { path: location.pathname, x: window.scrollX, y: window.scrollY }));
    } catch (e) {}
    location.reload();
  }

  var panel = null;
  function show(errors) {
    if (!errors.length) {
      if (panel) panel.hidden = true;
      return;
    }
    if (!panel) {
      panel = document.createElement("section");
      panel.id = "preview-problems";
      panel.setAttribute("role", "alert");
      panel.setAttribute("aria-label", script.dataset.problems);
      panel.style.cssText = "position:fixed;left:0;right:0;bottom:0;z-index:2147483647;" +
        "max-height:50vh;overflow:auto;margin:0;padding:0.75rem 1rem;font:14px/1.4 " +
        "system-ui,sans-serif;background:#fff4f4;color:#5c0000;border-top:3px solid #b00020;" +
        "box-shadow:0 -2px 8px rgba(0,0,0,.25)";
      var title = document.createElement("h2");
      title.style.cssText = "margin:0 0 0.5rem;font-size:1rem;color:#5c0000";
      title.textContent = script.dataset.failed;   // in the book's language (serve.py)
      var text = document.createElement("pre");
      text.style.cssText = "margin:0;white-space:pre-wrap;font:13px/1.4 monospace;" +
        "color:#1a0000;background:none";
      panel.appendChild(title);
      panel.appendChild(text);
      document.body.appendChild(panel);
    }
    panel.lastChild.textContent = errors.join("\n");
    panel.hidden = false;
  }

  var source = new EventSource("/__reload");
  source.onopen = function () { document.documentElement.dataset.preview = "following"; };
  source.onmessage = function (event) {
    var state = JSON.parse(event.data);
    if (state.generation !== generation) reload();
    else show(state.errors);
  };
})();
