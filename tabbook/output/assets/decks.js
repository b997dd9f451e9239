/* A slide deck (output/decks.py): each slide taller than the slide's height shrinks to fit,
   on screen down to MIN_SCALE (then it scrolls), in reveal's print view (?print-pdf) as
   much as needed, so that each slide prints on one page; then reveal.js starts. Measured
   once the images (lazy on the site: loaded here at once) and the fonts are there. */
(function () {
  "use strict";
  var WIDTH = 1280, HEIGHT = 720, MARGIN = 40, MIN_SCALE = 0.6;
  var printing = /print-pdf/i.test(location.search);

  function fit(slide) {
    var body = slide.querySelector(".slide-body");
    if (!body) return;
    var before = slide.getAttribute("style");
    // Measured as reveal lays it out: full slide width, whatever the slide shown.
    slide.setAttribute("style", "display:block;position:absolute;visibility:hidden;" +
                       "width:" + WIDTH + "px;height:auto");
    var scale = (HEIGHT - MARGIN) / body.scrollHeight;
    if (before === null) slide.removeAttribute("style"); else slide.setAttribute("style", before);
    if (scale >= 1) return;
    var shown = printing ? scale : Math.max(scale, MIN_SCALE);
    body.style.zoom = String(shown);
    if (shown > scale) slide.classList.add("scrolls");
  }

  function loaded(image) {
    image.loading = "eager";
    return image.complete ? null : new Promise(function (done) {
      image.addEventListener("load", done);
      image.addEventListener("error", done);
    });
  }

  function start() {
    document.querySelectorAll(".reveal .slides > section").forEach(fit);
    Reveal.initialize({
      width: WIDTH, height: HEIGHT, margin: 0.04, center: false, hash: true,
      slideNumber: "c/t", transition: "none",
      pdfMaxPagesPerSlide: 1, pdfSeparateFragments: false
    });
    // What prints the deck waits for this class: the print view's pages are laid out.
    Reveal.on("pdf-ready", function () {
      document.documentElement.classList.add("deck-printable");
    });
  }

  var images = Array.prototype.map.call(document.querySelectorAll(".reveal img"), loaded);
  Promise.all(images).then(function () { return document.fonts.ready; }).then(start);
})();
