// Material searches on `keyup`, which a paste with the mouse (or a drop, or an input method) never
// sends: search whenever the query changes
document.addEventListener("input", function (event) {
  var input = event.target
  if (input.matches && input.matches(".md-search__input")) input.dispatchEvent(new KeyboardEvent("keyup"))
})

// Load the search index when the reader shows they will search, or when the browser is idle once the
// page has loaded, not while the page loads: Material requests it (XMLHttpRequest) as soon as its script
// runs, and the page's own bytes come first. Building the index takes its worker most of a second (the
// Chinese one more), which a reader who types at once on focusing the field would wait for; ready
// beforehand, the first keystroke finds it built. A page opened from a result marks its words without it
// (below)
;(function () {
  var open = XMLHttpRequest.prototype.open
  var send = XMLHttpRequest.prototype.send
  var waiting = []
  var wanted = false
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
  function prepare() {
    if (wanted) return
    wanted = true
    waiting.splice(0).forEach(function (request) {
      send.apply(request[0], request[1])
    })
  }
  function load(event) {
    var target = event.target
    if (target.closest && target.closest(".md-search, [for=__search], #__search")) prepare()
  }
  // a pointer over the search field or its button, a focus in it (also "/" or "s"), the toggle
  document.addEventListener("pointerover", load)
  document.addEventListener("focusin", load)
  document.addEventListener("change", load)
  // the browser idle after the load (at most two seconds after it where it is never idle)
  addEventListener("load", function () {
    if (window.requestIdleCallback) requestIdleCallback(prepare, { timeout: 2000 })
    else setTimeout(prepare, 200)
  })
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

// A page opened from a search result marks the words its link names (?h=, made by the search worker:
// the query's content words, in the forms the part of the page it opens holds), whole words only, in
// the section the link opens (up to the next heading of its level or above), or in the whole page
// where it opens the top. Runs of Latin letters, digits and underscores are marked whole (the "cuda" of
// torch.cuda, never the "0" of 1024 nor the "cuda" of wrapper_CUDA_addmm); Chinese words where the page's text holds them, but not inside the longer
// words of the index's own segmentation that the link names (?hx=: 训练集 for 训练). Text nodes only,
// each once: no marked HTML is ever marked again. Material's own highlighting (its feature
// search.highlight) is off: it marked each term anywhere, inside any word
;(function () {
  var params = new URLSearchParams(location.search)
  var words = (params.get("h") || "").toLowerCase().split(/\s+/).filter(Boolean)
  if (!words.length) return
  var han = /\p{sc=Han}/u
  var latin = new Set(words.filter(function (word) { return !han.test(word) }))
  var chinese = words.filter(function (word) { return han.test(word) })
  var holders = (params.get("hx") || "").split(/\s+/).filter(Boolean)
  var runs = /[A-Za-z0-9_]+|\p{sc=Han}+/gu
  var skipped = /^(SCRIPT|STYLE|MARK|TEXTAREA)$/

  // where ``word`` is in ``run`` outside ``taken`` (ranges [start, end)): its ranges
  function found(run, word, taken) {
    var ranges = []
    for (var at = run.indexOf(word); at >= 0; at = run.indexOf(word, at + 1)) {
      var end = at + word.length
      if (!taken.some(function (range) { return at < range[1] && range[0] < end })) ranges.push([at, end])
    }
    return ranges
  }
  function ranges(text) {
    var marked = []
    for (var match; (match = runs.exec(text)); ) {
      var run = match[0]
      if (!han.test(run)) {
        if (latin.has(run.toLowerCase())) marked.push([match.index, match.index + run.length])
        continue
      }
      var taken = []
      holders.forEach(function (holder) { taken = taken.concat(found(run, holder, [])) })
      chinese.forEach(function (word) {
        var mine = found(run, word, taken)
        taken = taken.concat(mine)
        mine.forEach(function (range) { marked.push([match.index + range[0], match.index + range[1]]) })
      })
    }
    return marked.sort(function (a, b) { return a[0] - b[0] })
  }
  function mark(node) {
    var text = node.nodeValue
    var marked = ranges(text)
    if (!marked.length) return
    var parts = document.createDocumentFragment()
    var at = 0
    marked.forEach(function (range) {
      parts.appendChild(document.createTextNode(text.slice(at, range[0])))
      var element = document.createElement("mark")
      element.setAttribute("data-md-highlight", "")
      element.textContent = text.slice(range[0], range[1])
      parts.appendChild(element)
      at = range[1]
    })
    parts.appendChild(document.createTextNode(text.slice(at)))
    node.replaceWith(parts)
  }
  // the heading the link opens, and the next one of its level or above: the section between them
  function section(article) {
    var id = decodeURIComponent(location.hash.slice(1))
    var heading = id && document.getElementById(id)
    if (!heading || !/^H[1-6]$/.test(heading.tagName) || !article.contains(heading)) return [null, null]
    var headings = Array.from(article.querySelectorAll("h1, h2, h3, h4, h5, h6"))
    var next = headings.slice(headings.indexOf(heading) + 1).find(function (other) {
      return other.tagName <= heading.tagName
    })
    return [heading, next || null]
  }
  function highlight() {
    var article = document.querySelector(".md-content article")
    if (!article) return
    var bounds = section(article)
    var nodes = []
    var walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT)
    for (var node = walker.nextNode(); node; node = walker.nextNode()) {
      if (bounds[0] && !(bounds[0].contains(node) || bounds[0].compareDocumentPosition(node) & Node.DOCUMENT_POSITION_FOLLOWING)) continue
      if (bounds[1] && !(bounds[1].compareDocumentPosition(node) & Node.DOCUMENT_POSITION_PRECEDING)) break
      if (!node.parentElement || skipped.test(node.parentElement.tagName) || node.parentElement.closest("mark")) continue
      nodes.push(node)
    }
    nodes.forEach(mark)
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", highlight)
  else highlight()
})()
