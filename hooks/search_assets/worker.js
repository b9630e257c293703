// Segment a run of Han characters of the query into the words of the index (which jieba cut at
// build time): forward maximum matching, skipping characters the index does not hold. Material's
// own segmentation never tried the run's last character (梯度累加 was searched as 梯度, 学习率 as 学习).
function ptSegment(text, vocabulary) {
  var words = []
  for (var start = 0; start < text.length; ) {
    var end = Math.min(text.length, start + 8)
    while (end > start && !Object.prototype.hasOwnProperty.call(vocabulary, text.slice(start, end))) end--
    if (end > start) {
      words.push(text.slice(start, end))
      start = end
    } else {
      start++
    }
  }
  return words
}

// A typed query, as words that Material's worker then parses with lunr's query parser (which adds
// one trailing wildcard to each): Latin and Han letters apart, as the index holds them (jieba puts a
// separator around every run of Han characters: `KL散度` is `KL` and `散度` there); each run of Han
// characters cut into the index's words; stop words of either language left out, but for a last word
// still being typed (lunr does not drop a stop word that carries a wildcard: `to*` found every
// `torch`, `和*` was listed as missing); a single Han character matched whole, not as the start of
// every word that begins with it (多 of 多卡 found the tag 多分类). Pasted error lines are left as
// they are (ptErrorQuery). Material's own rewrite joined the words with a textual `* `, which the
// wildcard it adds made `保存**`: a term that nothing matches, listed as missing, not highlighted.
var PT_HAN = /\p{sc=Han}/u
function ptQuery(query, index) {
  if (ptErrorLine) return query
  var apart = query
    .replace(/[，。、；：？！“”‘’（）《》【】…—]/g, " ") // separators of the index, as in hooks/search.py
    .replace(/(\p{sc=Han})(?=[A-Za-z0-9_])/gu, "$1 ")
    .replace(/([A-Za-z0-9_.])(?=\p{sc=Han})/gu, "$1 ")
  var typing = !/\s$/.test(query)
  var parts = apart.trim().split(/\s+/)
  var words = []
  parts.forEach(function (part, i) {
    var last = typing && i === parts.length - 1
    if (!PT_HAN.test(part)) {
      if (last || !/^[A-Za-z]+$/.test(part) || lunr.stopWordFilter(part.toLowerCase())) words.push(part)
      return
    }
    if (!/^\p{sc=Han}+$/u.test(part)) return void words.push(part) // lunr syntax around Han letters
    ptSegment(part, index.invertedIndex).forEach(function (word) {
      if (lunr.zh && !lunr.zh.stopWordFilter(word) && !(last && word === part)) return
      words.push(word.length === 1 ? word + "^1" : word) // ^1: no wildcard, the same weight
    })
  })
  return words.join(" ")
}

// A pasted error line is searched word for word, in the text: no prefix matching on every word
// ("be" found "belongs", "to" found "torch"), no title boost (a title that shares one common word
// with the error outranked the section that shows it), numbers and shapes as plain words; and the
// pages whose sections hold the most of its words come first
var ptSeparator = null
var ptErrorLine = false
function ptErrorQuery(query) {
  var words = query.split(ptSeparator).filter(Boolean)
  var erroneous = /[a-z](Error|Exception|Warning)\b/.test(query) || words.length >= 6
  ptErrorLine = words.length >= 3 && erroneous && !/\p{sc=Han}/u.test(query)
  if (!ptErrorLine) return query
  var typing = !/[\s.)\]]$/.test(query) // the last word may be unfinished
  return words
    .map(function (word, i) {
      word = word.replace(/[+\-~^*:]/g, "")
      if (!word) return ""
      return "text:" + word + (typing && i === words.length - 1 ? "*" : "^1")
    })
    .join(" ")
}
function ptWordsFound(group) {
  return Math.max.apply(null, group.map(function (item) {
    return Object.values(item.terms).filter(Boolean).length
  }))
}
// What a result shows: the index separates the words jieba found with zero-width spaces, which
// would be copied with a snippet; the positions of the highlights are already applied
function ptVisible(item) {
  item.title = item.title.replace(/\u200b/g, "")
  item.text = item.text.replace(/\u200b/g, "")
  if (item.tags) item.tags = item.tags.map(function (tag) { return tag.replace(/\u200b/g, "") })
}
var ptPostMessage = self.postMessage.bind(self)
self.postMessage = function (message) {
  if (message.type === 3) message.data.items.forEach(function (group) { group.forEach(ptVisible) })
  if (ptErrorLine && message.type === 3) {
    message.data.items.sort(function (a, b) { return ptWordsFound(b) - ptWordsFound(a) }) // stable
  }
  ptPostMessage(message)
}
addEventListener("message", function (event) {
  // runs before Material's own listener, which reads the same message
  var message = event.data
  if (message.type === 0) ptSeparator = new RegExp(message.data.config.separator, "gu")
  else if (message.type === 2 && ptSeparator) message.data = ptErrorQuery(message.data)
})
