/* The console's side-by-side preview follows the typing (issue 49): a moment after the last
 * keystroke the form's configuration is sent to the console (…/preview/typed/), which checks it
 * as a save would and answers with a preview link of that unsaved state; the frame loads it.
 * Nothing is saved. While the configuration is not valid the frame keeps the last good state
 * and the reason is shown above it. */
(function () {
  "use strict";
  var WAIT_MS = 700;

  function start() {
    var aside = document.getElementById("live-preview");
    var frame = document.getElementById("live-preview-frame");
    var form = document.getElementById("partner_form");
    if (!aside || !frame || !form || !aside.dataset.typedUrl) return;
    var status = document.getElementById("live-preview-status");
    var config = form.querySelector("[name=config]");
    var csrf = form.querySelector("[name=csrfmiddlewaretoken]");
    if (!config || !csrf) return;
    var timer = null;
    var sent = config.value;
    var token = "";
    var busy = false;
    var again = false;

    function say(text, failed) {
      if (!status) return;
      status.textContent = text;
      status.dataset.state = failed ? "fehler" : "ok";
    }

    function send() {
      if (config.value === sent) return;
      if (busy) {
        again = true;
        return;
      }
      busy = true;
      sent = config.value;
      var body = new FormData();
      body.append("config", sent);
      body.append("token", token);
      body.append("csrfmiddlewaretoken", csrf.value);
      fetch(aside.dataset.typedUrl, { method: "POST", body: body, credentials: "same-origin" })
        .then(function (response) {
          return response.json().then(function (data) {
            if (response.ok && data.url) {
              token = data.token;
              frame.src = data.url;
              aside.dataset.typed = "ja";
              say("Zeigt den ungespeicherten Stand (" + new Date().toLocaleTimeString("de-DE") + ").", false);
            } else {
              say("Vorschau nicht aktualisiert: " + (data.errors || []).slice(0, 3).join(" · "), true);
            }
          });
        })
        .catch(function () {
          say("Vorschau nicht aktualisiert: keine Verbindung.", true);
        })
        .then(function () {
          busy = false;
          if (again) {
            again = false;
            send();
          }
        });
    }

    function later() {
      window.clearTimeout(timer);
      // the widget writes the hidden field after its own render: read it a moment later
      timer = window.setTimeout(send, WAIT_MS);
    }

    form.addEventListener("input", later);
    form.addEventListener("change", later);
    form.addEventListener("click", later); // "Hinzufügen", "Entfernen" of list entries
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
