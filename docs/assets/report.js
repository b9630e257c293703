/* "Report a problem" (overrides/partials/report.html): as the reader follows the link, the issue's body names the
 * torch release whose outputs the page shows (the one picked in the header's picker, kept in localStorage by
 * mkdocs_examples' picker) and the cell the address points to (#ex-…), in place of what the page says as built
 * (the build's outputs, no cell). Nothing is sent anywhere: the link is GitHub's page for a new issue, which the
 * reader then fills in and submits, or not.
 */
(function () {
  "use strict";
  var PICKED = "mkdocs_examples.torch"; // the picker's key (src/mkdocs_examples/assets/mkdocs_examples_picker.js)

  function release(link) {
    var select = document.querySelector(".mx-picker__select");
    if (select && select.selectedIndex >= 0) return select.options[select.selectedIndex].text;
    try {
      var stored = localStorage.getItem(PICKED);
      if (stored) return stored;
    } catch (error) { /* storage off: the page's outputs are the build's */ }
    return link.getAttribute("data-report-release");
  }

  function cell() {
    var id = decodeURIComponent(location.hash.slice(1));
    return /^ex-[\w-]+$/.test(id) ? id : null;
  }

  function fill(event) {
    var link = event.target && event.target.closest ? event.target.closest("a[data-report]") : null;
    if (!link) return;
    var id = cell();
    var values = {
      url: link.getAttribute("data-report-url") + (id ? "#" + id : ""),
      release: release(link),
      cell: id ? "#" + id : link.getAttribute("data-report-cell"),
    };
    var body = link.getAttribute("data-report").replace(/\{(\w+)\}/g, function (whole, name) {
      return Object.prototype.hasOwnProperty.call(values, name) ? values[name] : whole;
    });
    var href = link.href;
    var at = href.indexOf("&body=");
    if (at >= 0) link.href = href.slice(0, at) + "&body=" + encodeURIComponent(body);
  }

  // before the browser follows the link, however the reader does: a click, the keyboard, a middle click, the menu
  ["pointerdown", "click", "auxclick", "keydown", "contextmenu", "focusin"].forEach(function (type) {
    document.addEventListener(type, fill, true);
  });
})();
