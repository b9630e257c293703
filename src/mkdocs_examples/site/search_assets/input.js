// Material searches on `keyup`, which a paste with the mouse (or a drop, or an input method) never
// sends: search whenever the query changes
document.addEventListener("input", function (event) {
  var input = event.target
  if (input.matches && input.matches(".md-search__input")) input.dispatchEvent(new KeyboardEvent("keyup"))
})

// Load the search index when the reader goes to the search, or comes from it, not with every page:
// Material requests it (XMLHttpRequest) as soon as a page loads, and most readers of a page never search
;(function () {
  var open = XMLHttpRequest.prototype.open
  var send = XMLHttpRequest.prototype.send
  var waiting = []
  // a page opened from a search result (?h=the+query): Material marks the query's words on it once the
  // index is there, so it is wanted at once
  var wanted = new URLSearchParams(location.search).has("h")
  XMLHttpRequest.prototype.open = function (method, url) {
    this.ptIndex = /\/search\/search_index\.json$/.test(String(url))
    this.ptSitemap = /\/sitemap\.xml$/.test(String(url))
    return open.apply(this, arguments)
  }
  XMLHttpRequest.prototype.send = function () {
    // Material asks for the `sitemap.xml` beside each `<link rel=alternate>` of a page, to map its pages
    // across languages, as if the link named the language's home; static-i18n's name the page's twin,
    // where there is no sitemap (a 404 on every page but the home pages), and its language switch links
    // to that twin already: the request is never sent, and the switch follows its link
    if (this.ptSitemap) return
    if (this.ptIndex && !wanted) return void waiting.push([this, arguments])
    return send.apply(this, arguments)
  }
  function load(event) {
    var target = event.target
    if (wanted || !target.closest || !target.closest(".md-search, [for=__search], #__search")) return
    wanted = true
    waiting.splice(0).forEach(function (request) {
      send.apply(request[0], request[1])
    })
  }
  // a pointer over the search field or its button, a focus in it (also "/" or "s"), the toggle
  document.addEventListener("pointerover", load)
  document.addEventListener("focusin", load)
  document.addEventListener("change", load)
})()

// A result's card is its page, with the page's best sections below it, and its first link, the page's
// title, is where a click or Enter goes. Where a section answers better than the page as a whole (a
// pasted error: its section on an errors page), that link opens the section, not the top of the page
new MutationObserver(function () {
  document.querySelectorAll(".md-search-result__item").forEach(function (item) {
    var links = item.querySelectorAll(":scope > a.md-search-result__link")
    if (links.length < 2 || links[0].dataset.ptBest) return
    var score = function (link) { return parseFloat(link.querySelector("[data-md-score]").dataset.mdScore) }
    links[0].dataset.ptBest = "1"
    if (score(links[1]) > score(links[0])) links[0].href = links[1].href
  })
}).observe(document.querySelector(".md-search-result__list") || document.body, { childList: true, subtree: true })
