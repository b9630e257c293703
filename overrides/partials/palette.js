/* The header's light/dark toggle: overrides/partials/palette.html says why it replaces Material's. */
(function () {
  var form = document.currentScript.previousElementSibling;
  var inputs = Array.prototype.slice.call(form.querySelectorAll("input[data-md-color-media]"));
  var themeColor = meta("theme-color");
  var colorScheme = meta("color-scheme");

  function meta(name) {
    var element = document.createElement("meta");
    element.name = name;
    document.head.appendChild(element);
    return element;
  }

  // the palette of `inputs[index]` on <body>, remembered, its toggle shown, and the browser told its colours
  function apply(index, store) {
    var input = inputs[index];
    var color = {};
    ["media", "scheme", "primary", "accent"].forEach(function (key) {
      var name = "data-md-color-" + key;
      color[key] = input.getAttribute(name);
      if (document.body.getAttribute(name) !== color[key]) document.body.setAttribute(name, color[key]);
    });
    if (store) __md_set("__palette", { index: index, color: color });
    input.checked = true;
    inputs.forEach(function (other, i) {
      var label = other.nextElementSibling;
      if (label && label.tagName === "LABEL") label.hidden = i !== index;
    });
    var header = getComputedStyle(document.querySelector("header"));  // parsed: this script is inside it
    colorScheme.content = header.colorScheme;
    themeColor.content = "#" + header.backgroundColor.match(/\d+/g).slice(0, 3).map(function (c) {
      return (+c).toString(16).padStart(2, "0");
    }).join("");
  }

  var saved = __md_get("__palette");
  var index = saved ? saved.index : inputs.findIndex(function (input) {
    return matchMedia(input.getAttribute("data-md-color-media")).matches;
  });
  apply(Math.max(0, Math.min(index, inputs.length - 1)), false);

  // A toggle switches at once: Material's palette.css stops every transition while <body> is marked switching
  // (the header's style, read in `apply`, is computed with the mark), for a frame
  form.addEventListener("change", function (event) {
    document.body.setAttribute("data-md-color-switching", "");
    apply(inputs.indexOf(event.target), true);
    requestAnimationFrame(function () {
      document.body.removeAttribute("data-md-color-switching");
    });
  });
  // Enter on the focused option moves to the next palette, as in Material
  form.addEventListener("keydown", function (event) {
    var index = inputs.indexOf(event.target);
    if (event.key !== "Enter" || index < 0) return;
    event.preventDefault();
    var next = inputs[(index + 1) % inputs.length];
    next.click();
    next.focus();
  });
})();
