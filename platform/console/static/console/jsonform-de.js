/* The configuration form's own buttons in German: django-jsonform writes "Add item", "Remove",
 * "Move up" … into the page; the console's operators read German only (issue 49). Texts and
 * titles are replaced where the widget puts them, also after it re-renders. */
(function () {
  "use strict";
  var WORDS = {
    "Add item": "Hinzufügen",
    "Add new item": "Neuen Eintrag hinzufügen",
    "Add key": "Feld hinzufügen",
    "Add new key": "Neues Feld hinzufügen",
    "Remove": "Entfernen",
    "Delete": "Löschen",
    "Move up": "Nach oben",
    "Move down": "Nach unten",
    "Clear": "Leeren",
    "Edit": "Bearbeiten",
    "Collapse": "Zuklappen",
    "Expand": "Aufklappen",
    "Collapsed": "Zugeklappt",
    "Open in new tab": "In neuem Tab öffnen",
    "Open link": "Link öffnen",
    "No options": "Keine Auswahl",
    "Cancel": "Abbrechen",
    "Set": "Übernehmen",
    "Select file": "Datei auswählen",
    "Change file": "Datei ändern",
    // a choice field's empty entry and a multiple choice's placeholder
    "Select...": "Bitte wählen …",
  };

  function translate(root) {
    var nodes = root.querySelectorAll(".rjf-form-wrapper button, .rjf-form-wrapper [title], .rjf-form-wrapper .rjf-collapsed-indicator, " +
        ".rjf-form-wrapper option, .rjf-form-wrapper .rjf-multiselect-field-input-placeholder");
    for (var i = 0; i < nodes.length; i++) {
      var node = nodes[i];
      var title = node.getAttribute("title");
      if (title && WORDS[title]) node.setAttribute("title", WORDS[title]);
      for (var j = 0; j < node.childNodes.length; j++) {
        var child = node.childNodes[j];
        if (child.nodeType === 3) {
          var text = child.nodeValue.trim();
          if (WORDS[text]) child.nodeValue = child.nodeValue.replace(text, WORDS[text]);
        }
      }
    }
  }

  function start() {
    translate(document);
    new MutationObserver(function () {
      translate(document);
    }).observe(document.body, { childList: true, subtree: true, characterData: true });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
