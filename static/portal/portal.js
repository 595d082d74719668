/* PaperTrail portal: TeX in titles and abstracts rendered by KaTeX (trust off:
   no \href, \url or \includegraphics links or HTML), re-run on htmx swaps; the
   trail's swaps keep the reader's place; GET
   filter forms leave empty fields out of the URL; the picks page counts the
   papers chosen and stops at its maximum; copy buttons copy. No inline script anywhere. */
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

  // A swap of the trail's cards (a mark, a dismissal, its undo, the order's
  // update) keeps the reader's place: the card they acted on, else the first one
  // on screen, stays where it was in the window; a dismissed card's undo banner
  // takes its place, and an undone card comes back where the banner was. htmx inserts the new cards before removing the old, and
  // the browser's scroll anchoring would follow the old ones down the page.
  var kept = null;
  document.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail.target;
    if (!target || !target.hasAttribute || !target.hasAttribute("data-keep-place")) {
      return;
    }
    var source = event.detail.requestConfig && event.detail.requestConfig.elt;
    var card = source && source.closest ? source.closest("[data-item]") : null;
    var banner = source && source.closest ? source.closest("#undo") : null;
    for (var after = banner && banner.nextElementSibling; after && !card; after = after.nextElementSibling) {
      card = after.hasAttribute("data-item") ? after : null;
    }
    if (!card) {
      var cards = target.querySelectorAll("[data-item]");
      for (var i = 0; i < cards.length && !card; i += 1) {
        card = cards[i].getBoundingClientRect().bottom > 0 ? cards[i] : null;
      }
    }
    kept = card ? { id: card.id, top: card.getBoundingClientRect().top, acted: card.contains(source) } : null;
    document.documentElement.style.overflowAnchor = "none";
  });
  document.addEventListener("htmx:afterSwap", function () {
    if (kept) {
      var card = document.getElementById(kept.id) || (kept.acted ? document.getElementById("undo") : null);
      if (card) {
        window.scrollBy(0, card.getBoundingClientRect().top - kept.top);
        // The pressed button is gone with the old card: the keyboard carries on from the new one.
        var next = kept.acted ? card.querySelector("[data-action], [data-open]") : null;
        if (next) {
          next.focus({ preventScroll: true });
        }
      }
      kept = null;
    }
    document.documentElement.style.overflowAnchor = "";
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

  // The picks page: "n of 10 chosen" as boxes are ticked, the other boxes
  // off once the maximum is reached (the server refuses more all the same).
  function countPicks(form) {
    var boxes = form.querySelectorAll("input[type=checkbox][name=papers]");
    var max = parseInt(form.getAttribute("data-max"), 10);
    var chosen = 0;
    for (var i = 0; i < boxes.length; i += 1) {
      chosen += boxes[i].checked ? 1 : 0;
    }
    for (var j = 0; j < boxes.length; j += 1) {
      boxes[j].disabled = !boxes[j].checked && chosen >= max;
    }
    var line = form.querySelector("[data-picks-count]");
    if (line) {
      line.textContent = line.getAttribute("data-template").replace("{n}", String(chosen));
      line.setAttribute("data-chosen", String(chosen));
    }
    var submit = form.querySelector("[data-picks-submit]");
    if (submit) {
      submit.disabled = chosen === 0;
    }
  }
  document.addEventListener("change", function (event) {
    var form = event.target.form;
    if (form && form.matches("form[data-picks]")) {
      countPicks(form);
    }
  });
  document.addEventListener("DOMContentLoaded", function () {
    var forms = document.querySelectorAll("form[data-picks]");
    for (var i = 0; i < forms.length; i += 1) {
      countPicks(forms[i]);
    }
  });
  // A private feed's address: a button copies it, and says so in its own words.
  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("button[data-copy]") : null;
    if (!button || !navigator.clipboard) {
      return;
    }
    navigator.clipboard.writeText(button.getAttribute("data-copy")).then(function () {
      button.textContent = button.getAttribute("data-copied");
      button.setAttribute("data-done", "");
    });
  });
  window.addEventListener("pageshow", function () {
    var fields = document.querySelectorAll("form[data-compact-query] [disabled]");
    for (var i = 0; i < fields.length; i += 1) {
      fields[i].disabled = false;
    }
  });
})();
