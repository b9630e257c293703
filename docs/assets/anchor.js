/* The language switcher keeps the reader's place: its links carry the place being read to the other
   language's page. A cell's anchor (#ex-...) is the same in every language and goes in the link as it is; a
   heading's is not (#concatenating, #拼接), and the pages of both languages have the same headings in the
   same order (tests/test_site_basics.py), so the link names the heading by its rank (#mx-heading-<rank>), which
   the other page turns into its own anchor before the code below keeps it in place. The place is the
   anchor the reader followed while no heading has come between it and the screen's top, else the nearest
   heading above the screen's top. */
(function () {
  var header = document.querySelector(".md-header");
  var HEADINGS = ".md-content__inner :is(h2, h3, h4, h5, h6)[id]";
  var headings = document.querySelectorAll(HEADINGS);

  function here() {
    var top = header ? header.getBoundingClientRect().bottom : 0;
    var rank = 0;
    while (rank < headings.length && headings[rank].getBoundingClientRect().top <= top + 1) rank++;
    var nearest = rank ? "#mx-heading-" + (rank - 1) : "";
    var followed = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
    var shown = followed; // a cell's anchor has no box of its own: where the block after it is
    while (shown && !shown.getClientRects().length) shown = shown.nextElementSibling;
    if (!shown) return nearest;
    var at = shown.getBoundingClientRect().top;
    // the anchor followed, while it is above the screen's bottom and no heading came between it and the reader
    if (at >= innerHeight || (rank && headings[rank - 1].getBoundingClientRect().top > at)) return nearest;
    var own = [].indexOf.call(headings, followed);
    return own < 0 ? "#" + followed.id : "#mx-heading-" + own;
  }

  // as it is followed: a click, a middle click, or the menu that opens it in a new tab
  function carry(event) {
    var link = event.target.closest && event.target.closest("a.md-select__link[hreflang]");
    if (link && !link.hasAttribute("aria-current")) link.hash = here();
  }
  ["click", "auxclick", "contextmenu"].forEach(function (type) {
    document.addEventListener(type, carry, true);
  });

  var rank = /^#mx-heading-(\d+)$/.exec(location.hash);
  if (!rank) return;
  var heading = headings[+rank[1]];
  history.replaceState(history.state, "", heading ? "#" + heading.id : location.pathname + location.search);
  if (heading) heading.scrollIntoView();
})();

/* A link to a place on a page (the error index's and the changes page's links to a cell, a checks line's link
   up to its cell) lands there and stays there. Blocks are laid out only as they come near the screen
   (content-visibility in site.css, Material's content.lazy), so blocks between the screen and the target
   change height after the browser has scrolled to it and push it away, or under the header. Until the page
   settles (3 s after the page opened on the target or the reader followed a link to it) or the reader
   scrolls, the target is put back below the header whenever the page's height changes. */
(function () {
  if (!window.ResizeObserver) return;
  var header = document.querySelector(".md-header");
  var target = null;
  var timer = 0;
  function place() {
    if (!target) return;
    var below = header ? header.getBoundingClientRect().bottom : 0;
    var top = target.getBoundingClientRect().top;
    if (Math.abs(top - below - 8) > 2) window.scrollBy(0, top - below - 8);
  }
  function settle() {
    target = null;
  }
  function hold() {
    var id = decodeURIComponent(location.hash.slice(1));
    target = (id && document.getElementById(id)) || null;
    if (!target) return;
    clearTimeout(timer);
    timer = setTimeout(settle, 3000);
    place();
  }
  new ResizeObserver(place).observe(document.body);
  // the reader's own scrolling ends the hold; a link followed within the page (a click) starts a new one
  ["wheel", "touchstart", "keydown", "mousedown"].forEach(function (type) {
    addEventListener(type, settle, { passive: true });
  });
  addEventListener("hashchange", hold);
  hold();
})();
