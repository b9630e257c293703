/* The formulas of a page, rendered by the site's own KaTeX (assets/katex/, tools/vendor_katex.py).
   pymdownx.arithmatex (generic mode) writes them as <span class="arithmatex">\(...\)</span> and
   <div class="arithmatex">\[...\]</div>; KaTeX (about 300 KB) is fetched only by a page that has
   one, and once. Material's document$ announces each page, instant navigation's too. */
(function () {
  var base = new URL("katex/", document.currentScript.src).href;
  var loading = null;

  function load() {
    if (!loading) {
      loading = new Promise(function (resolve, reject) {
        var style = document.createElement("link");
        style.rel = "stylesheet";
        style.href = base + "katex.min.css";
        document.head.appendChild(style);
        var script = document.createElement("script");
        script.src = base + "katex.min.js";
        script.onload = resolve;
        script.onerror = reject;
        document.head.appendChild(script);
      });
    }
    return loading;
  }

  function render() {
    var formulas = document.querySelectorAll(".arithmatex");
    if (!formulas.length) return;
    load().then(function () {
      formulas.forEach(function (formula) {
        if (formula.querySelector(".katex")) return; // rendered already
        var tex = formula.textContent.trim();
        var display = formula.tagName === "DIV";
        tex = tex.replace(/^\\[([]/, "").replace(/\\[)\]]$/, "");
        window.katex.render(tex, formula, { displayMode: display, throwOnError: false });
      });
    });
  }

  if (window.document$) {
    window.document$.subscribe(render);
  } else {
    document.addEventListener("DOMContentLoaded", render);
  }
})();
