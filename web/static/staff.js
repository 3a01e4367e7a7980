// Staff console: confirmations of destructive actions, one submit per click (live.js
// keeps the live parts fresh and gives each form its request key).
// No inline scripts (the CSP forbids them): pages mark what they need with data-* attributes.
(function () {
  "use strict";

  // Destructive actions: form[data-confirm="question"] asks in a dialog first.
  function ask(question, okLabel, then) {
    var labels = (document.getElementById("staff-words") || document.body).dataset;
    window.jantakuLive.ask("confirm", '<p class="confirm-question"></p><div class="row">' +
      '<button type="button" class="btn" value="cancel"></button>' +
      '<button type="button" class="btn btn-danger" value="ok"></button></div>', {
      ".confirm-question": question,
      '[value="cancel"]': labels.tCancel || "Cancel",
      '[value="ok"]': okLabel || labels.tOk || "OK"
    }, function (dialog) { if (dialog.returnValue === "ok") then(); })
      .querySelector('[value="cancel"]').focus();
  }

  document.addEventListener("submit", function (e) {
    var form = e.target;
    if (form.dataset.confirm && !form.dataset.confirmed) {
      e.preventDefault();
      var submitter = e.submitter;
      ask(form.dataset.confirm, form.dataset.confirmOk, function () {
        form.dataset.confirmed = "1";
        if (form.requestSubmit) form.requestSubmit(submitter || undefined); else form.submit();
      });
      return;
    }
    if (form.dataset.sending) { e.preventDefault(); return; }
    if ((form.getAttribute("method") || "").toLowerCase() === "post") form.dataset.sending = "1";
  }, true);

  // A page shown again from the back/forward cache may submit again.
  window.addEventListener("pageshow", function () {
    document.querySelectorAll("form[data-sending]").forEach(function (f) { delete f.dataset.sending; });
  });
})();
