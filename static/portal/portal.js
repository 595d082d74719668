/* PaperTrail portal: TeX in titles and abstracts rendered by KaTeX (trust off:
   no \href, \url or \includegraphics links or HTML), re-run on htmx swaps; GET
   filter forms leave empty fields out of the URL. No inline script anywhere. */
(function () {
  "use strict";

  var KATEX_OPTIONS = {
    delimiters: [
      { left: "$$", right: "$$", display: true },
      { left: "\\[", right: "\\]", display: true },
      { left: "\\(", right: "\\)", display: false },
      { left: "$", right: "$", display: false }
    ],
    trust: false,
    strict: "ignore",
    throwOnError: false,
    maxExpand: 200,
    maxSize: 20
  };

  function renderTex(root) {
    if (typeof window.renderMathInElement !== "function") {
      return;
    }
    var nodes = root.querySelectorAll ? root.querySelectorAll(".tex") : [];
    for (var i = 0; i < nodes.length; i += 1) {
      window.renderMathInElement(nodes[i], KATEX_OPTIONS);
    }
    document.documentElement.setAttribute("data-tex", "rendered");
  }

  // On a phone the library's filters fold, so that the first screen shows papers
  // (open without JavaScript, and when a filter is in use).
  function foldOnNarrowScreens() {
    if (!window.matchMedia || !window.matchMedia("(max-width: 699px)").matches) {
      return;
    }
    var folds = document.querySelectorAll("details[data-fold-narrow]:not([data-filtered])");
    for (var i = 0; i < folds.length; i += 1) {
      folds[i].open = false;
    }
  }

  document.addEventListener("DOMContentLoaded", function () {
    foldOnNarrowScreens();
    renderTex(document);
  });
  document.addEventListener("htmx:afterSwap", function (event) {
    renderTex(event.target);
  });

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.matches || !form.matches("form[data-compact-query]")) {
      return;
    }
    var fields = form.querySelectorAll("input[name], select[name]");
    for (var i = 0; i < fields.length; i += 1) {
      if (!fields[i].value) {
        fields[i].disabled = true;
      }
    }
  });
  window.addEventListener("pageshow", function () {
    var fields = document.querySelectorAll("form[data-compact-query] [disabled]");
    for (var i = 0; i < fields.length; i += 1) {
      fields[i].disabled = false;
    }
  });
})();
