// Segment a run of Han characters of the query into the words of the index (which jieba cut at
// build time): forward maximum matching, skipping characters the index does not hold (stop words
// like 的). Material's worker calls this in place of its own segmentation, which never tries the
// run's last character (梯度累加 was searched as 梯度, 学习率 as 学习).
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
  return words.length ? words : [text]
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
var ptPostMessage = self.postMessage.bind(self)
self.postMessage = function (message) {
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
