/* A link to a place on a page (the error index's and the changes page's links to a cell) lands there
   and stays there. Blocks are laid out only as they come near the screen (content-visibility in
   site.css, Material's content.lazy), so blocks above the target grow after the browser has scrolled
   to it and push it down, or up under the header. Until the page settles (3 s) or the reader scrolls,
   the target is put back below the header whenever the page's height changes. */
(function () {
  var id = decodeURIComponent(location.hash.slice(1));
  var target = id && document.getElementById(id);
  if (!target || !window.ResizeObserver) return;
  var header = document.querySelector(".md-header");
  var settled = false;
  function place() {
    if (settled) return;
    var below = header ? header.getBoundingClientRect().bottom : 0;
    var top = target.getBoundingClientRect().top;
    if (Math.abs(top - below - 8) > 2) window.scrollBy(0, top - below - 8);
  }
  var observer = new ResizeObserver(place);
  observer.observe(document.body);
  function settle() {
    settled = true;
    observer.disconnect();
  }
  ["wheel", "touchstart", "keydown", "mousedown"].forEach(function (type) {
    addEventListener(type, settle, { once: true, passive: true });
  });
  setTimeout(settle, 3000);
})();
