// Live parts of a page (the staff console, the public board): data-live="URL" answers
// {"html": ...} or {"parts": {key: html}} (each part replaces the element with
// data-part="key" in the region), polled every data-live-every ms (default 2000) and
// replaced only when its words changed; forms get a fresh request key as they appear.
(function () {
  "use strict";
  // A fresh idempotency key per form as it appears: a double click sends one request.
  function freshKeys(root) {
    (root || document).querySelectorAll("input[data-fresh-key]").forEach(function (input) {
      if (!input.value) {
        input.value = (window.crypto && crypto.randomUUID) ? crypto.randomUUID()
          : String(Date.now()) + Math.random().toString(16).slice(2);
      }
    });
  }

  // Live regions: data-live="URL" answers {"html": ...} or {"parts": {key: html}} (each part
  // replaces the element with data-part="key" inside the region). Polled every
  // data-live-every ms (default 2000), replaced only when the words changed.
  function live(region) {
    var url = region.dataset.live, every = Number(region.dataset.liveEvery || 2000);
    var last = {};
    var touched = 0;
    region.addEventListener("pointerdown", function () { touched = Date.now(); }, true);
    region.addEventListener("input", function () { touched = Date.now(); }, true);
    function words(text) { return text.replace(/\s+/g, " ").trim(); }
    function sameWords(el, html) {
      var tpl = document.createElement("template");
      tpl.innerHTML = html;
      return words(tpl.content.textContent) === words(el.textContent);
    }
    function swap(el, html, key) {
      if (last[key] === html) return;
      // the page as served: its words are the part's unless something changed since
      if (last[key] === undefined && sameWords(el, html)) { last[key] = html; return; }
      // never under a finger: what is being clicked or typed stays until the next poll
      if (Date.now() - touched < 2500) return;
      var focused = document.activeElement && el.contains(document.activeElement);
      if (focused && document.activeElement.tagName !== "BUTTON") return;  // keep what is typed
      last[key] = html;
      el.innerHTML = html;
      freshKeys(el);
      el.dispatchEvent(new CustomEvent("live:updated", {bubbles: true}));
    }
    function apply(data) {
      if (typeof data.html === "string") swap(region, data.html, "");
      if (data.parts) {
        Object.keys(data.parts).forEach(function (key) {
          var el = region.querySelector('[data-part="' + CSS.escape(key) + '"]');
          if (el) swap(el, data.parts[key], key);
        });
      }
      region.classList.remove("stale");
    }
    function poll() {
      fetch(url, {headers: {"Accept": "application/json"}, credentials: "same-origin"})
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (data) { if (data) apply(data); else region.classList.add("stale"); })
        .catch(function () { region.classList.add("stale"); })
        .then(function () { setTimeout(poll, every); });
    }
    setTimeout(poll, Math.min(every, 1000));
  }

  // A modal question (the console's confirmations, a member's number at the tablet): one
  // <dialog class="confirm-dialog"> per key and page, made from ``html`` the first time;
  // ``words`` sets the text of its parts by selector; ``closed(dialog)`` runs as it
  // closes (its returnValue says which button, "" for Escape). Buttons of type="button"
  // close it with their value; a <form method="dialog"> inside closes it by itself.
  var dialogs = {};
  function ask(key, html, words, closed) {
    var dialog = dialogs[key];
    if (!dialog) {
      dialog = dialogs[key] = document.createElement("dialog");
      dialog.className = "confirm-dialog";
      dialog.innerHTML = html;
      document.body.appendChild(dialog);
      dialog.addEventListener("click", function (e) {
        if (e.target.tagName === "BUTTON" && e.target.type === "button") dialog.close(e.target.value);
      });
    }
    Object.keys(words).forEach(function (sel) { dialog.querySelector(sel).textContent = words[sel]; });
    dialog.returnValue = "";
    dialog.onclose = function () { closed(dialog); };
    dialog.showModal();
    return dialog;
  }

  window.jantakuLive = {fresh: freshKeys, ask: ask};
  document.addEventListener("DOMContentLoaded", function () {
    freshKeys(document);
    document.querySelectorAll("[data-live]").forEach(live);
  });
})();
