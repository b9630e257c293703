// Segment a run of Han characters of the query into the words of the index (which jieba cut at
// build time): forward maximum matching, skipping characters the index does not hold. Material's
// own segmentation never tried the run's last character (梯度累加 was searched as 梯度, 学习率 as 学习).
function ptSegment(text, vocabulary, longest) {
  var words = []
  for (var start = 0; start < text.length; ) {
    var end = Math.min(text.length, start + (longest || 8))
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
// Words of a question that say nothing about its subject, beyond lunr's stop words: the name of the
// library (every page is about it), "vs" (A vs B is about A and B), "work" (how does X work), and the
// question words of Chinese (什么 would match every title that asks 长什么样, 里 every 里面). A last
// word still being typed is kept, as a stop word is
var PT_STOP = new Set([
  "pytorch", "vs", "versus", "work", "works",
  "什么", "怎么", "怎样", "如何", "为什么", "为何", "是否", "哪个", "哪些", "哪里", "意思", "到底", "一样",
  "一下", "需要", "可以", "应该", "有没有", "能不能", "要不要", "怎么办", "怎么样", "时候", "干什么",
  "做什么", "有什么", "里", "呢", "吗", "啊", "干", "做",
])
function ptQuery(query, index) {
  ptPhrasesFound = ptErrorLine ? {} : ptPhrasesIn(query)
  ptNames = []
  ptSplitTags = []
  ptMarking(ptTyped, index)
  if (ptErrorLine) return query
  // a dotted name typed whole (torch.where) counts where it is whole (ptShare), its words apart do not
  ptNames = (query.match(/[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+/g) || []).map(function (name) {
    return [name.toLowerCase(), name.toLowerCase().split(/[._]+/).filter(function (piece) { return lunr.stopWordFilter(piece) })]
  })
  var apart = query
    .replace(/[，。、；：？！“”‘’（）《》【】…—]/g, " ") // separators of the index, as in site/search.py
    .replace(/([A-Za-z_)])\.(?=[A-Za-z_])/g, "$1 ") // torch.gather: two words, as in the index
    .replace(/[()[\]"`',!=/]/g, " ") // contiguous(): the word alone, which the wildcard then extends
    // a colon of a sentence (Grad-CAM:), a C++ name (c10::Half), a slice (x[::-1]); never lunr's field, which
    // found nothing, and read x[::-1] as "without 1"
    .replace(/:+/g, " ")
    .replace(/(^|\s)[-+]+(?=\S)/g, "$1") // view(-1): the number, not lunr's "without 1"
    .replace(/(\p{sc=Han})(?=[A-Za-z0-9_])/gu, "$1 ")
    .replace(/([A-Za-z0-9_.])(?=\p{sc=Han})/gu, "$1 ")
  var typing = !/\s$/.test(query)
  var parts = apart.trim().split(/\s+/)
  var words = []
  parts.forEach(function (part, i) {
    var last = typing && i === parts.length - 1
    if (!PT_HAN.test(part)) {
      var lower = part.toLowerCase()
      var typed = last && !(PT_STOP.has(lower) && lower in index.invertedIndex) // "work" typed whole: done
      if (typed || !/^[A-Za-z]+$/.test(part) || (lunr.stopWordFilter(lower) && !PT_STOP.has(lower))) words.push(part)
      return
    }
    if (!/^\p{sc=Han}+$/u.test(part)) return void words.push(part) // lunr syntax around Han letters
    ptSegment(part, index.invertedIndex).forEach(function (word) {
      if (lunr.zh && (!lunr.zh.stopWordFilter(word) || PT_STOP.has(word)) && !(last && word === part)) return
      words.push(word.length === 1 ? word + "^1" : word) // ^1: no wildcard, the same weight
      var parts = ptTagParts(word, index)
      if (parts.length && (1 + parts.length) * PT_PHRASE_SHARE >= ptMarkTyped.length) ptSplitTags.push(word)
      parts.forEach(function (piece) { if (words.indexOf(piece) < 0) words.push(piece) })
    })
  })
  // the last word is still being typed unless the index holds it whole (梯度, torch: not 梯度累积, torchrun)
  var unfinished = typing && words.length && !(words[words.length - 1].toLowerCase() in index.invertedIndex)
  var lastTyped = unfinished ? words.length - 1 : -1
  return ptSynonyms(words).map(function (word, i) {
    if (word === null) return ""
    var pieces = ptWholePieces(word, i < words.length)
    return pieces === word ? ptFields(word, i === lastTyped, index) : pieces
  }).filter(Boolean).join(" ")
}

// A Chinese tag of terms.yml is one word of the index (jieba keeps 显存不够, 多卡训练 whole), matched only
// whole, as a tag: alone it answered only the pages it tags, and a page about the same subject in other
// words (显存 on the page about GPU memory) was never offered. A tag that is a phrase, words of the index
// of two characters or more end to end (显存 + 不够, 多卡 + 训练), is searched with its words beside it,
// and the pages it tags come first (ptTagRank), where the tag and its words are a share of the query's
// content words as a phrase must be (PT_PHRASE_SHARE: 加载模型 is not the subject of a pasted error that
// follows it). A tag that is one word (检查点, not 检查 + 点; 爆显存) is searched as it is: its pieces
// are not its subject
var ptTagTerms = Object.create(null) // a Chinese tag of a page of the index: true
var ptSplitTags = [] // the query's tags searched with their parts
function ptTagRank(group) {
  return group.some(function (item) {
    var doc = ptDocs.get(item.location)
    return !!doc && (doc.tags || []).some(function (tag) { return ptSplitTags.indexOf(tag.toLowerCase()) >= 0 })
  }) ? 1 : 0
}
function ptTagParts(word, index) {
  if (!(word in ptTagTerms)) return []
  var parts = ptSegment(word, index.invertedIndex, word.length - 1)
  if (parts.join("") !== word || parts.some(function (piece) { return piece.length < 2 })) return []
  return parts.filter(function (piece) { return !PT_STOP.has(piece) && (!lunr.zh || lunr.zh.stopWordFilter(piece)) })
}

// A word matches the beginning of words in titles and text (layer finds layers), but a tag only whole:
// a tag is the page's subject in the reader's words, weighted above all else (mkdocs.yml), and a tag
// that merely begins with the word (torch, the tag torchrun) would put its page first for every query
// that holds the word. A short word that the index holds whole is matched whole everywhere (stemmed:
// gpu finds GPUs): as the start of words it matched every longer word it begins (rand: every random of
// WeightedRandomSampler, which put that page first for torch.rand). A word still being typed, or
// written with lunr's syntax, is left as it is
var PT_SHORT = 4 // letters

// Material scores a result as lunr does, times 1 + g², where g is 1 for a page's own entry plus the share
// of the query's words the entry holds. A name typed whole (set_epoch, torch.where) is found where it is
// whole, not where its pieces are apart (the set and the epoch of another subject's text)
var ptNames = [] // the names typed whole: [the name, lowercased; its pieces searched]
var ptAllText = "" // the titles and texts of every entry, lowercased
function ptShare(terms, doc) {
  var found = Object.assign({}, terms)
  var where = null
  ptNames.forEach(function (name) {
    where = where || (doc.title + " " + doc.text).toLowerCase()
    if (where.indexOf(name[0]) < 0) name[1].forEach(function (piece) { if (piece in found) found[piece] = false })
  })
  var words = Object.keys(found)
  return words.length ? words.filter(function (word) { return found[word] }).length / words.length : 0
}
function ptFields(word, typing, index) {
  // the namespace, whole: as a prefix it would match every title with torchvision, torchrun or
  // torchscript; whole, torch.tensor still finds torch.tensor
  if (/^torch$/i.test(word)) return word + "^1"
  if (typing || /[+\-~^*:]/.test(word)) return word
  var whole = /^[A-Za-z0-9]+$/.test(word) && word.length <= PT_SHORT && word.toLowerCase() in index.invertedIndex
  // a Chinese word the index holds: whole (训练 is not the start of 训练集, nor 学习 of 学习率; ptTermPieces)
  whole = whole || (PT_HAN.test(word) && word in index.invertedIndex)
  var prefix = whole ? "^1" : ""
  return "title:" + word + prefix + " text:" + word + prefix + " tags:" + word + "^1 phrases:" + word + "^1"
}

// A name such as num_workers or ReduceLROnPlateau: the index holds its pieces (num, workers; reducelr, on,
// plateau). Each but the last is matched whole, not as the start of any word (num found the tag numpy;
// On, every one and onto), and where the reader typed the name (not a synonym we added) a page must hold
// every piece (pin_memory found the pages on GPU memory first); a stop word (the no of no_grad, the On of
// ReduceLROnPlateau) is left out, as the index leaves it out. A name no entry holds (masked_select,
// SummaryWriter, on a site without them) requires nothing: required, its pieces left no result at all
// for a question that named it, where the pages about its other words answer. Nor does a name beside a
// message that the question pastes, where no message holds it (next(train_loader) 报错 'DataLoader' object
// is not an iterator): it is the reader's own code, and the message is the subject
function ptWholePieces(word, typed) {
  var pieces = word.split(/_+|(?!\b)(?=[A-Z][a-z])/) // as the index's separator cuts them (mkdocs.yml)
  if (pieces.length < 2 || !pieces.every(function (piece) { return /^[A-Za-z0-9]+$/.test(piece) })) return word
  var quoted = ptMessages.indexOf(" " + pieces.join(" ").toLowerCase() + " ") >= 0
  typed = typed && (!ptPastedInside || quoted) && ptAllText.indexOf(word.toLowerCase()) >= 0
  var last = pieces.pop()
  pieces = pieces.filter(function (piece) { return lunr.stopWordFilter(piece.toLowerCase()) }) // not in the index
  if (lunr.stopWordFilter(last.toLowerCase()) || !pieces.length) pieces.push(last) // weights_only: weights
  if (typed) ptNames.push([word.toLowerCase(), pieces.map(function (piece) { return piece.toLowerCase() })])
  return pieces.map(function (piece, i) {
    return (typed ? "+" : "") + piece + (i < pieces.length - 1 ? "^1" : "")
  }).join(" ")
}

// Groups of words that mean one thing to readers (the `synonyms` of the option `terms`: GPU, 显卡
// and CUDA) are one word of the search: the index holds, beside each word of a group, the group's first
// word (ptOneWord, a step of the index's pipeline), and a query's word of a group is searched as that
// first word. A page that says CUDA twenty times and GPU once weighs as one that says GPU twenty-one
// times, not as one that holds two of the query's words: searched as two words, the group put the pages
// full of CUDA (its errors, CUDA_VISIBLE_DEVICES) first for every question about the GPU. A group with a
// word the index cuts into several (num_workers) cannot be one word of the index: a query that holds
// one of its words is searched with the others too (ptSynonymsOf)
var ptGroupWord = Object.create(null) // a word of a group, as the index holds it: its group's first word, likewise
var ptSynonymsOf = Object.create(null)
var ptAddedFor = {} // a word searched for the reader's (its group's, or a synonym added): the word typed
function ptIndexWord(word) {
  return lunr.stemmer(new lunr.Token(word.toLowerCase())).toString()
}
function ptOneWord(token) {
  var word = token.toString()
  var group = ptGroupWord[word]
  var tokens = group === undefined || group === word ? [token] : [token, token.clone(function () { return group })]
  ;(token.metadata.ptTag ? [] : ptPiecesOf[word] || []).forEach(function (piece) { tokens.push(token.clone(function () { return piece })) })
  return tokens.length === 1 ? token : tokens
}
// A Chinese term of terms.yml made of others (冻结层: 冻结 and 层), which jieba keeps whole as it cuts
// the pages, is indexed as its pieces too, in titles and text: a query's Chinese word is matched whole
// (ptFields), and a query cut into words (冻结部分层: 冻结, 部分, 层) finds the term by its pieces. Not
// in tags: a tag is its page's subject, whole (二元交叉熵 does not tag its page 交叉熵)
var ptPiecesOf = Object.create(null) // a term, as the index holds it: its pieces
function ptTermPieces(docs, groups) {
  var terms = Object.create(null)
  docs.forEach(function (doc) { (doc.tags || []).forEach(function (tag) { terms[tag.toLowerCase()] = true }) })
  groups.forEach(function (group) { group.forEach(function (word) { terms[word.toLowerCase()] = true }) })
  ptPiecesOf = Object.create(null)
  Object.keys(terms).forEach(function (term) {
    if (!/^\p{sc=Han}+$/u.test(term)) return
    delete terms[term]
    var pieces = ptSegment(term, terms) // the other terms it holds, then what is left between them
    terms[term] = true
    if (pieces.length) ptPiecesOf[term] = pieces.concat(term.split(new RegExp(pieces.join("|"))).filter(Boolean))
  })
}
// lunr's builder names the field it cuts (a tag's, a title's), which Material's tokenizer does not pass on
function ptNameTheField(builder) {
  if (builder.ptTokenizer) return
  var tokenizer = builder.tokenizer
  builder.ptTokenizer = builder.tokenizer = function (value, metadata) {
    var tokens = tokenizer.apply(this, arguments)
    var tag = metadata && metadata.fields && metadata.fields[0] === "tags"
    if (tag) tokens.forEach(function (token) { token.metadata.ptTag = true }) // not kept in the index
    return tokens
  }
}
function ptSynonymGroups(groups) {
  ptGroupWord = Object.create(null)
  ptSynonymsOf = Object.create(null)
  groups.forEach(function (group) {
    var oneWord = group.every(function (word) { return word.split(ptSeparator).length === 1 && !/\p{sc=Han}[A-Za-z0-9]|[A-Za-z0-9]\p{sc=Han}/u.test(word) })
    group.forEach(function (word) {
      if (oneWord) ptGroupWord[ptIndexWord(word)] = ptIndexWord(group[0])
      if (!oneWord) ptSynonymsOf[word.toLowerCase()] = group.filter(function (other) { return other !== word })
    })
  })
}
// The words of a query as they are searched: a word of a group as its group's word (null where the
// query holds that word already), then the words added for a word of a group that is no word of the index
function ptSynonyms(words) {
  var all = []
  var added = []
  ptAddedFor = {}
  words.forEach(function (word) {
    var typed = word.replace(/\^1$/, "").toLowerCase()
    var group = ptGroupWord[ptIndexWord(typed)]
    var searched = group === undefined ? word : group
    if (group !== undefined) ptAddedFor[group] = ptAddedFor[group] || typed
    all.push(group !== undefined && all.indexOf(searched) >= 0 ? null : searched)
    ;(ptSynonymsOf[typed] || []).forEach(function (other) {
      if (words.indexOf(other) >= 0 || added.indexOf(other) >= 0) return
      added.push(other)
      ptAddedFor[other.toLowerCase()] = typed
    })
  })
  return all.concat(added)
}
// A result lists the words of the query it lacks (Material's "Missing"): as the reader typed them, not
// the words searched for them, and not a word typed whose synonym it holds
function ptTypedWordsFound(item) {
  Object.keys(ptAddedFor).forEach(function (added) {
    var typed = ptAddedFor[added]
    if (!(added in item.terms) || typed === added) return
    item.terms[typed] = item.terms[added] || !!item.terms[typed]
    delete item.terms[added]
  })
}

// A term of terms.yml that the index would cut into words (NaN loss, torch.Tensor, 多GPU) is a phrase
// of its page (site/search.py): it answers a query that holds all its words, in their order, not one
// of them alone (the word loss of the tag "NaN loss" put its page first for every query with "loss").
// Words are compared as the index compares them (stop words left out, stemmed: "multiple GPUs" is
// in "use multiple gpu"), Han characters one by one (loss不下降 is in loss不下降怎么办)
var ptPhrases = [] // [the page, its phrase's words, whether it is a name]
var ptPhrasesFound = {} // the page: the number of words of its longest phrase the query holds
// (a phrase of one word but for its stop words, weights_only, keeps them: weights alone is no phrase)
function ptPhraseWords(text, all) {
  var words = []
  text.toLowerCase().split(ptSeparator).forEach(function (part) {
    part.split(/(\p{sc=Han})/u).forEach(function (word) {
      if (PT_HAN.test(word)) words.push(word)
      else if (/\w/.test(word) && (all || (lunr.stopWordFilter(word) && !PT_STOP.has(word)))) {
        words.push(lunr.stemmer(new lunr.Token(word)).toString())
      }
    })
  })
  return all || words.length > 1 ? words : ptPhraseWords(text, true)
}
function ptPhrasesIn(query) {
  var found = {}
  var content = ptPhraseWords(query)
  var distinct = new Set(content).size // "GPUs / which GPU": one word
  var words = " " + content.join(" ") + " | " + ptPhraseWords(query, true).join(" ") + " "
  ptPhrases.forEach(function (phrase) {
    var page = phrase[0]
    if (!phrase[2] && phrase[1].length * PT_PHRASE_SHARE < distinct) return
    if (words.indexOf(" " + phrase[1].join(" ") + " ") >= 0) found[page] = Math.max(found[page] || 0, phrase[1].length)
  })
  return found
}
// A page with a phrase the query holds comes first, the longest phrase first: readers with these words
// look for that page. Where the phrase is a small part of a longer question (BatchNorm in "freeze
// BatchNorm running mean and var when fine-tuning", NaN loss in "FP16 autocast gives NaN loss"), the
// question is about more than the phrase's page: the phrase counts only where it holds at least
// 1 / PT_PHRASE_SHARE of the query's content words, and the scores rank the rest. A name typed whole
// (F.dropout, weights_only) always counts: code names the subject, whatever words surround it
var PT_PHRASE_SHARE = 2
// A section's index page holds every one of its pages' summaries, and so the words of many questions: the
// page that answers comes before it
var ptIndexPages = Object.create(null)
function ptAnswerRank(group) {
  return ptIndexPages[group[0].location.split("#")[0]] ? 0 : 1
}
function ptPhraseRank(group) {
  return ptPhrasesFound[group[0].location.split("#")[0]] || 0
}

// A pasted error line is searched word for word, in the text: no prefix matching on every word
// ("be" found "belongs", "to" found "torch"), no title boost (a title that shares one common word
// with the error outranked the section that shows it), numbers and shapes as plain words; and the
// pages whose sections hold the most of its words come first
var ptSeparator = null
var ptErrorLine = false
// A query is a pasted message when it names its type (RuntimeError, UserWarning) or quotes a message the
// pages show: PT_QUOTED words of it in a row are words of an error or warning line of the index, values
// aside. A question in a message's words ("grad is None for a non-leaf tensor", "training loss is flat
// from the first epoch") quotes none, and is searched as a question: titles first
var PT_QUOTED = 5
var PT_TYPED = /[a-z](Error|Exception|Warning)\b/
var ptMessages = " " // the index's error and warning lines, as ptMessageWords, " | " between two
// A Chinese question around a pasted message (多进程里用 CUDA 报错 Cannot re-initialize CUDA in forked
// subprocess) is searched as a question, its words all counting, and a section headed by the message it
// quotes comes first (ptHeadedByTheError): the Chinese pages show the same English lines
var ptPastedInside = false
function ptErrorQuery(query) {
  ptPastedInside = false
  if (PT_HAN.test(query)) {
    ptErrorLine = false
    var latin = query.replace(/\p{sc=Han}+/gu, " ").replace(/[，。、；：？！“”‘’（）《》【】…—]/g, " ")
    ptPastedInside = ptQuotesAMessage(latin)
    ptPasted = new Set(ptMessageWords(latin))
    ptPastedRun = ptMessageWords(latin).join(" ")
    return query
  }
  var words = query.split(ptSeparator).filter(Boolean)
  ptErrorLine = words.length >= 3 && (PT_TYPED.test(query) || ptQuotesAMessage(query))
  if (!ptErrorLine) return query
  ptPasted = new Set(ptMessageWords(query))
  ptPastedRun = ptMessageWords(query).join(" ")
  var typing = !/[\s.)\]]$/.test(query) // the last word may be unfinished
  return words
    .map(function (word, i) {
      word = word.replace(/[+\-~^*:]/g, "")
      if (!word) return ""
      return "text:" + word + (typing && i === words.length - 1 ? "*" : "^1")
    })
    .join(" ")
}
function ptQuotesAMessage(query) {
  var words = ptMessageWords(query)
  for (var i = 0; i + PT_QUOTED <= words.length; i++) {
    if (ptMessages.indexOf(" " + words.slice(i, i + PT_QUOTED).join(" ") + " ") >= 0) return true
  }
  return false
}
// The words of a message as they are compared: lowercased, each number as "#" (a reader's error shows
// other values than the page's: Target 5 is out of bounds, the page's Target 3)
function ptMessageWords(text) {
  return ptWords(text).map(function (word) { return /^\d+$/.test(word) ? "#" : word })
}
// A message's lines after its first are its own too (torch.load's Weights only load failed, then "In
// PyTorch 2.6, we changed the default value of the weights_only argument"): the rest of its block of text
function ptMessagesOf(docs) {
  var lines = []
  docs.forEach(function (doc) {
    ;[doc.title].concat(doc.text.split(/<[^>]*>/)).forEach(function (block) {
      var message = false
      block.split("\n").forEach(function (line) {
        message = message || PT_TYPED.test(line)
        if (message && /\w/.test(line)) lines.push(ptMessageWords(line).join(" "))
      })
    })
  })
  return " " + lines.join(" | ") + " "
}
function ptWordsFound(group) {
  return Math.max.apply(null, group.map(function (item) {
    return Object.values(item.terms).filter(Boolean).length
  }))
}
// A page with a section headed by the pasted error itself (every word of the heading is a word of
// the line, but for the heading's type, which readers often leave out, and for one name in a heading of
// PT_NAMED words or more: the reader's module is [Net] where the heading's is [Model], an old release's
// Variable where the heading's is Tensor; and one is Error, Exception or Warning), or by an error the paste is a part of (its
// words, in their order, within the heading's: a reader copied the message without its type or its
// end): the errors pages' sections, which exist to answer that paste. It comes before a page that
// only shows the error on the way, however many of the line's words that page holds (an output may
// print the whole line where the heading cuts it)
var ptPasted = null
var PT_NAMED = 6
var PT_TYPE = /^[\s`]*(?:[\w.]+\.)?\w*(?:Error|Exception|Warning):/ // the heading's type, which a paste may leave out
var ptPastedRun = "" // the pasted words (ptMessageWords), in their order, one space apart
function ptWords(text) {
  var entities = {"&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'", "&#x27;": "'", "&amp;": "&"}
  text = text.replace(/<[^>]*>/g, "").replace(/&(lt|gt|quot|#39|#x27|amp);/g, function (e) { return entities[e] })
  return text.split(ptSeparator).filter(function (word) { return /\w/.test(word) })
    .map(function (word) { return word.toLowerCase() })
}
function ptHeadedByTheError(group) {
  return group.some(function (item) {
    var quoted = ptQuotedHeading(item.title)
    var heading = ptMessageWords(quoted === null ? item.title : quoted)
    var typed = PT_TYPE.exec(item.title.replace(/<[^>]*>/g, ""))
    var type = new Set(typed ? ptMessageWords(typed[0]) : [])
    var missing = new Set(heading.filter(function (word) { return !ptPasted.has(word) && !type.has(word) })).size
    var message = heading.some(function (word) { return /^(error|exception|warning)$/.test(word) }) ||
      (quoted !== null && heading.length >= PT_QUOTED)
    var said = heading.filter(function (word) { return !type.has(word) }).length // the message beyond its type
    return heading.length >= 3 && said >= 2 && message &&
      (missing === 0 || (missing === 1 && heading.length >= PT_NAMED) || ptRunIn(" " + heading.join(" ") + " "))
  })
}
// The message a heading quotes in code before words of its own (`This DataLoader will create N worker
// processes in total`: more workers than CPUs): the line a reader pastes, which holds none of those words;
// a quote of PT_QUOTED words or more is a message even without the word error or warning. null: no such quote
function ptQuotedHeading(title) {
  var quote = /^<code>([^<]*)<\/code>\s*[:：]/.exec(title.replace(/<(?!\/?code>)[^>]*>/g, "")) // marks aside
  return quote ? quote[1] : null
}
// Whether the heading holds the pasted words in their order: all of them, or six or more in a row (a
// message with the reader's own words around it: "stack expects each tensor to be equal size / variable
// length batch", "BatchNorm Expected more than 1 value per channel when training, batch size 1")
function ptRunIn(heading) {
  var words = ptPastedRun.split(" ")
  if (heading.indexOf(" " + ptPastedRun + " ") >= 0) return true
  for (var start = 0; start + 6 <= words.length; start++) {
    if (heading.indexOf(" " + words.slice(start, start + 6).join(" ") + " ") >= 0) return true
  }
  return false
}
function ptPastedRank(group) {
  return ptPastedInside && ptHeadedByTheError(group) ? 1 : 0
}
function ptErrorRank(group) {
  return (ptHeadedByTheError(group) ? 1000 : 0) + ptWordsFound(group)
}
// What a result shows: the index separates the words jieba found with U+007F (SEGMENT_BREAK in
// site/search.py), which would be copied with a snippet; the positions of the highlights are already
// applied
function ptVisible(item) {
  item.title = item.title.replace(/\x7f/g, "")
  item.text = ptTeaser(ptNearTheMatch(item.text.replace(/\x7f/g, "").replace(PT_NAMES, "")), PT_TEASER)
  item.tags = (item.tags || []).concat(item.phrases || [], item.names || [])
  if (!item.tags.length) delete item.tags
  delete item.phrases
  delete item.names
  if (item.tags) item.tags = item.tags.map(function (tag) { return tag.replace(/\x7f/g, "") })
}
// The names a section's code uses are in its text for search to find (site/search.py), not to be read
var PT_NAMES = /<i>.*?<\/i>\s*/g
// A teaser starts with the sentence that holds the first word found, as a search engine's snippet,
// where that sentence is not among the section's first lines (a match deep in a long section, a row of
// the glossary): "…" and the sentence, not the section's opening lines without the word
function ptNearTheMatch(html) {
  var mark = html.indexOf("<mark>")
  if (mark < 0 || ptWidth(html.slice(0, mark).replace(/<[^>]*>/g, "")) < PT_TEASER / 2) return html
  var block = Math.max(html.lastIndexOf("<p>", mark), html.lastIndexOf("<li>", mark), html.lastIndexOf("<pre>", mark))
  var start = block < 0 ? 0 : html.indexOf(">", block) + 1
  var head = html.slice(start, mark)
  var ends = /[.!?;:](?=\s)\s*|[。！？；：]/g
  var cut = 0
  for (var end; (end = ends.exec(head)); ) cut = end.index + end[0].length
  if (/<[^>]*$/.test(head.slice(0, cut))) cut = 0 // not inside a tag
  // the block's own tag again: its end tag follows, and a lone </p> would make an empty paragraph
  return (html.startsWith("<pre>", block) ? "<pre>" : "<p>") + "…" + html.slice(start + cut)
}
// A result shows the first lines of its section's text, as a search engine's snippet: Material shows
// the whole text (up to 4 KB a section), and laying out ten of them took most of the time from a
// query to its first result on a phone
var PT_TEASER = 320 // in Latin letters: about three lines on a wide screen, five on a phone
var PT_TAG = /<(\/?)([a-z0-9]+)[^>]*>/iy
var PT_ENTITY = /&#?\w+;/y
function ptTeaser(html, visible) {
  // character codes, not a regular expression per character: every result's text passes here
  var open = []
  var shown = 0
  var at = 0
  while (at < html.length && shown < visible) {
    var code = html.charCodeAt(at)
    if (code === 60) { // <
      PT_TAG.lastIndex = at
      var tag = PT_TAG.exec(html)
      if (tag) {
        if (tag[1]) open.pop()
        else if (!/^(br|hr|img|wbr)$/i.test(tag[2])) open.push(tag[2])
        at = PT_TAG.lastIndex
        continue
      }
    }
    shown += ptWide(code) ? 2 : 1 // a Han character is as wide as two Latin letters
    PT_ENTITY.lastIndex = at
    at = code === 38 && PT_ENTITY.exec(html) ? PT_ENTITY.lastIndex : at + 1 // &
  }
  if (at >= html.length) return html
  return html.slice(0, at) + "…" + open.reverse().map(function (name) { return "</" + name + ">" }).join("")
}
function ptWide(code) {
  return (code >= 0x2e80 && code <= 0x9fff) || (code >= 0xf900 && code <= 0xfaff) || (code >= 0xff00 && code <= 0xffef)
}
function ptWidth(text) {
  var width = 0
  for (var i = 0; i < text.length; i++) width += ptWide(text.charCodeAt(i)) ? 2 : 1
  return width
}
// A result lists the words of the query it lacks (Material's "Missing"): only words the reader typed,
// as typed, not the pieces the query was cut into for the index (runtime of RuntimeError, the stem cpu*)
var ptTyped = "" // the query as typed, lowercased
var ptTypedWords = new Set() // its words, whole and cut at . and _ (num_workers, num, workers)
function ptTyping(query) {
  ptTyped = String(query).toLowerCase()
  ptTypedWords = new Set(ptTyped.split(/[^\p{L}\p{N}]+/u).concat(ptTyped.split(/[^\p{L}\p{N}_.]+/u)))
}
function ptOnlyTypedMissing(item) {
  Object.keys(item.terms).forEach(function (term) {
    if (item.terms[term]) return
    var word = term.replace(/\*+$|[~^]\d+$/, "")
    var typed = PT_HAN.test(word) ? ptTyped.indexOf(word) >= 0 : ptTypedWords.has(word)
    delete item.terms[term]
    if (typed && ptSaysMissing(word)) item.terms[word] = false
  })
}
// ... and of those, only words that say what the reader looks for: not a number or a size of their own
// (64x512, 4096, GiB: "Missing: 64x512" on every result of a pasted error), nor a stop word of either language
function ptSaysMissing(word) {
  if (PT_HAN.test(word)) return !PT_STOP.has(word) && (!lunr.zh || !!lunr.zh.stopWordFilter(word))
  return !PT_UNMARKED.test(word) && !!lunr.stopWordFilter(word) && !PT_STOP.has(word)
}
// What a result marks, in its card and on the page it opens (its link's ?h=, search_assets/input.js):
// the query's content words, whole, once. A word of Latin letters, digits and underscores (a name is
// one word: memory_stats; a dotted name is several: torch.cuda) of three or more, not a stop word, a
// number or a size (4096, 4x3, GiB), nor torch (the namespace of every name) nor part of a web
// address, marked where a word of the text has its stem (allocate marks allocated, never the "a" of
// every word); a Chinese word of two characters or more as the index holds it (ptSegment), and the
// parts of a tag (ptTagParts), marked where the index holds it as a word of its own (jieba's), not
// inside a longer one (训练 is not marked in 训练集). Material's worker marked every position its
// matches held, twice where two words of a query shared one (a synonym's, a term's piece:
// "<mark><mar</mark>k>"), and its page marked the query's terms anywhere in a word (the "0" of 1024);
// these marks replace its, made once on the text of the entry as the index holds it
var PT_UNMARKED = /^(?:\d|[kmgtp]i?b$|torch$)/ // numbers and sizes, the namespace
var ptMarkStems = Object.create(null) // the stem of a Latin content word of the query: true
var ptMarkHan = new Set() // its Chinese content words
var ptMarkTyped = [] // its content words as typed, lowercased
var ptMarkPrefix = "" // its last word, still being typed: the start of the words it marks
var ptStems = new Map() // a word: its stem, as the index's pipeline makes it
function ptStem(word) {
  var stem = ptStems.get(word)
  if (stem === undefined) ptStems.set(word, stem = lunr.stemmer(new lunr.Token(word)).toString())
  return stem
}
function ptMarking(typed, index) {
  ptMarksOf = new Map()
  ptMarkStems = Object.create(null)
  ptMarkHan = new Set()
  ptMarkTyped = []
  ptMarkPrefix = ""
  var latin = typed.replace(/\bhttps?:\/\/\S*/g, " ").match(/[a-z0-9_]+/g) || []
  latin.forEach(function (word, i) {
    if (!ptContentWord(word)) return
    ptMarkStems[ptStem(word)] = true
    ptMarkTyped.push(word)
    var last = i === latin.length - 1 && new RegExp(word + "$").test(typed)
    if (last && !ptErrorLine && !(word in index.invertedIndex)) ptMarkPrefix = word
  })
  ;(typed.match(/\p{sc=Han}+/gu) || []).forEach(function (run) {
    ptSegment(run, index.invertedIndex).forEach(function (word) {
      ;[word].concat(ptTagParts(word, index)).forEach(function (part) {
        if (part.length < 2 || PT_STOP.has(part) || (lunr.zh && !lunr.zh.stopWordFilter(part))) return
        if (!ptMarkHan.has(part)) ptMarkTyped.push(part)
        ptMarkHan.add(part)
      })
    })
  })
}
function ptContentWord(word) {
  return word.length > 2 && !PT_UNMARKED.test(word) && !!lunr.stopWordFilter(word) && !PT_STOP.has(word)
}
var ptMarksOf = new Map() // a word of the entries: whether the query marks it (for one query)
function ptMarks(word) {
  var known = ptMarksOf.get(word)
  if (known !== undefined) return known
  var lower = word.toLowerCase()
  // a content word of the text only: one, a content word, has the stem of on, a stop word
  known = ptContentWord(lower) && (ptMarkStems[ptStem(lower)] === true || (!!ptMarkPrefix && lower.startsWith(ptMarkPrefix)))
  ptMarksOf.set(word, known)
  return known
}
// The entry's words: runs of Latin letters, digits and underscores, and each run of Han characters (a
// word of jieba's: the index puts U+007F between them)
var PT_WORDS = /(<[^>]*>|&#?\w+;)|([A-Za-z0-9_]+)|(\p{sc=Han}+)/gu
function ptMark(html) {
  return html.replace(PT_WORDS, function (all, skipped, latin, han) {
    return (latin && ptMarks(latin)) || (han && ptMarkHan.has(han)) ? "<mark>" + all + "</mark>" : all
  })
}
var ptDocs = new Map() // the index's entries as it holds them, by location
var ptPageDocs = new Map() // a page's location: its entries, its own and its sections'
var ptWordsOf = new Map() // an entry: its words, lowercased, once each
function ptEntryWords(doc) {
  var words = ptWordsOf.get(doc)
  if (words) return words
  words = new Set()
  ;(doc.title + " " + doc.text).replace(PT_WORDS, function (all, skipped, latin, han) {
    if (latin || han) words.add(all.toLowerCase())
    return all
  })
  ptWordsOf.set(doc, words)
  return words
}
// The words the page a result opens marks (?h=), in the part of it the result opens (a section, or the
// whole page): the query's content words as typed and the forms of them that part holds; and the words of
// that part that hold a Chinese one (?hx=), inside which the page marks none: the page's text has no
// jieba in it
function ptMarkLink(item) {
  var path = item.location.split("#")[0]
  var docs = item.location.indexOf("#") < 0 ? ptPageDocs.get(path) || [] : [ptDocs.get(item.location)].filter(Boolean)
  var marked = new Set(ptMarkTyped)
  var holders = new Set()
  docs.forEach(function (doc) {
    ptEntryWords(doc).forEach(function (word) {
      if (!PT_HAN.test(word)) {
        if (ptMarks(word)) marked.add(word)
        return
      }
      ptMarkHan.forEach(function (han) {
        if (word !== han && word.indexOf(han) >= 0 && !ptMarkHan.has(word)) holders.add(word)
      })
    })
  })
  if (!marked.size) return
  var query = "h=" + ptParameter(marked) + (holders.size ? "&hx=" + ptParameter(holders) : "")
  var at = item.location.indexOf("#")
  item.location = at < 0 ? item.location + "?" + query : item.location.slice(0, at) + "?" + query + item.location.slice(at)
}
function ptParameter(words) {
  return Array.from(words).map(encodeURIComponent).join("+")
}
function ptMarked(item) {
  var doc = ptDocs.get(item.location)
  if (!doc) return
  item.title = ptMark(doc.title)
  item.text = ptMark(doc.text)
  ;["tags", "phrases", "names"].forEach(function (field) {
    if (doc[field]) item[field] = doc[field].map(ptMarkTerm)
  })
}
// A tag, a phrase or a name, marked as the text is; but jieba did not cut its runs of Han characters
// (a term is indexed whole and in pieces: 冻结层, 冻结), so a Chinese word of the query is marked
// where a run holds it, the longest first: 冻结 of the query in the tag 冻结层. A tag is a flex box
// with a gap between its children (Material's .md-tag): one span holds the marked term, all of a piece
function ptMarkTerm(term) {
  var marked = ptMarkWords(term)
  return marked === term ? term : "<span>" + marked + "</span>"
}
function ptMarkWords(term) {
  return term.replace(PT_WORDS, function (all, skipped, latin, han) {
    if (latin) return ptMarks(latin) ? "<mark>" + all + "</mark>" : all
    if (!han) return all
    var marked = ""
    for (var start = 0; start < han.length; ) {
      var end = Math.min(han.length, start + 8)
      while (end > start + 1 && !ptMarkHan.has(han.slice(start, end))) end--
      var piece = han.slice(start, end)
      marked += ptMarkHan.has(piece) ? "<mark>" + piece + "</mark>" : piece
      start = end
    }
    return marked
  })
}

// A result lands on its answer. Where one of a page's sections answers the query, the best such section
// outranks its page, and the card's title links to it (search_assets/input.js), as it does where a
// section's score is above its page's: a section tagged with a term of the query (data/search_terms.yml),
// whatever its page's tags; else a section headed by the pasted error (ptHeadedByTheError), or one that
// holds every word of a query of two content words or more, unless the page's title holds every content
// word of the query as typed (its top is the answer: "cat and stack") or the page is tagged with a term
// of the query
function ptTagged(doc) {
  var terms = doc ? (doc.tags || []).concat(doc.phrases || [], doc.names || []) : []
  return terms.some(function (term) {
    term = term.toLowerCase()
    var at = ptTyped.indexOf(term)
    if (PT_HAN.test(term)) return at >= 0
    // a Latin term whole: the tag OOM is not in "room"
    for (; at >= 0; at = ptTyped.indexOf(term, at + 1)) {
      if (!/\w/.test(ptTyped.charAt(at - 1)) && !/\w/.test(ptTyped.charAt(at + term.length))) return true
    }
    return false
  })
}
function ptAnswers(item) {
  if (ptErrorLine) return ptHeadedByTheError([item])
  if (ptPastedInside && ptHeadedByTheError([item])) return true
  var terms = Object.keys(item.terms)
  return ptMarkTyped.length > 1 && terms.length > 0 && terms.every(function (term) { return item.terms[term] })
}
function ptNamesTheQuery(doc) {
  if (!doc || !ptMarkTyped.length) return false
  var words = new Set((doc.title.toLowerCase().match(PT_WORDS) || []))
  return ptTagged(doc) || ptMarkTyped.every(function (word) { return words.has(word) })
}
function ptBest(group, page, answers) {
  var best = null
  group.forEach(function (item) {
    if (item !== page && (!best || item.score > best.score) && answers(item)) best = item
  })
  return best
}
function ptLandOnTheAnswer(group) {
  var page = group.find(function (item) { return item.location.indexOf("#") < 0 })
  if (!page) return
  var best = ptBest(group, page, function (item) { return ptTagged(ptDocs.get(item.location)) })
  if (!best && !ptNamesTheQuery(ptDocs.get(page.location))) best = ptBest(group, page, ptAnswers)
  if (!best || best.score > page.score) return
  // above the page's as Material shows a score (two decimals), and first among its sections
  best.score = page.score + 0.02
  group.splice(group.indexOf(best), 1)
  group.unshift(best)
}

// lunr names a node of its token set (the index's words as a graph, merged where two nodes end alike)
// by its flag, then each edge's label and child's id run together: the node with an edge 1 to node 234
// and the node with edges 1 to 2 and 3 to 4 are both "01234", and merging the two made words the index
// lacks (bn2 and bn6 beside bn2d, on the Chinese pages): a query that reached one threw, and found
// nothing (lunr 2.3.9, which Material bundles). A separator after each id keeps the names apart
function ptTokenSetName() {
  if (this._str) return this._str
  var name = this.final ? "1" : "0"
  var labels = Object.keys(this.edges).sort()
  for (var i = 0; i < labels.length; i++) name += labels[i] + this.edges[labels[i]].id + ","
  return name
}

// Once the index is built, the words of every entry (ptEntryWords: each page's link names the words it
// marks) and one search that nobody sees, of the title of the index's first entry (Han characters in the
// Chinese index): the query's path (its segmentation against the index's words, lunr's parser, the marks)
// is compiled and warmed then, not on the reader's first keystroke
var ptWarming = false
function ptWarmUp() {
  ptDocs.forEach(ptEntryWords)
  var first = ptDocs.values().next().value
  if (!first || !first.title) return
  ptWarming = true
  self.dispatchEvent(new MessageEvent("message", { data: { type: 2, data: first.title.replace(/<[^>]*>/g, "") } }))
}
var ptPostMessage = self.postMessage.bind(self)
self.postMessage = function (message) {
  if (message.type === 1) setTimeout(ptWarmUp) // after the page hears that the search is ready
  if (message.type === 3 && ptWarming) {
    ptWarming = false
    return
  }
  if (message.type === 3) {
    message.data.items.forEach(function (group) {
      group.forEach(ptMarked)
      group.forEach(ptVisible)
      if (!ptErrorLine) group.forEach(ptTypedWordsFound)
      group.forEach(ptOnlyTypedMissing)
    })
  }
  if (ptErrorLine && message.type === 3) {
    message.data.items.sort(function (a, b) { // stable
      return ptAnswerRank(b) - ptAnswerRank(a) || ptErrorRank(b) - ptErrorRank(a)
    })
  } else if (message.type === 3) {
    message.data.items.sort(function (a, b) {
      return ptPastedRank(b) - ptPastedRank(a) || ptPhraseRank(b) - ptPhraseRank(a) || ptTagRank(b) - ptTagRank(a) ||
        ptAnswerRank(b) - ptAnswerRank(a)
    })
  }
  if (message.type === 3) {
    message.data.items.forEach(function (group) {
      ptLandOnTheAnswer(group)
      group.forEach(ptMarkLink)
    })
  }
  ptPostMessage(message)
}
addEventListener("message", function (event) {
  // runs before Material's own listener, which reads the same message
  var message = event.data
  if (message.type === 0) {
    ptSeparator = new RegExp(message.data.config.separator, "gu")
    ptDocs = new Map()
    ptPageDocs = new Map()
    ptWordsOf = new Map()
    ptTagTerms = Object.create(null)
    message.data.docs.forEach(function (doc) {
      var path = doc.location.split("#")[0]
      ptDocs.set(doc.location, doc)
      if (!ptPageDocs.has(path)) ptPageDocs.set(path, [])
      ptPageDocs.get(path).push(doc)
      ;(doc.tags || []).forEach(function (tag) { if (/^\p{sc=Han}+$/u.test(tag)) ptTagTerms[tag.toLowerCase()] = true })
    })
    ptIndexPages = Object.create(null)
    ptPageDocs.forEach(function (docs, path) {
      var parent = path.replace(/[^/]+\/$/, "") // tensors/views/ is listed by tensors/
      if (parent !== path && ptPageDocs.has(parent)) ptIndexPages[parent] = true
    })
    ptMessages = ptMessagesOf(message.data.docs)
    ptAllText = message.data.docs.map(function (doc) { return doc.title + " " + doc.text }).join(" ").toLowerCase()
    ptPhrases = []
    message.data.docs.forEach(function (doc) {
      var page = doc.location.split("#")[0] // a section's phrase puts its page first
      ;(doc.phrases || []).forEach(function (phrase) { ptPhrases.push([page, ptPhraseWords(phrase), false]) })
      ;(doc.names || []).forEach(function (name) { ptPhrases.push([page, ptPhraseWords(name), true]) })
    })
    ptSynonymGroups(message.data.config.synonyms || [])
    ptTermPieces(message.data.docs, message.data.config.synonyms || [])
    if (!(lunr.Pipeline.registeredFunctions.ptOneWord)) lunr.Pipeline.registerFunction(ptOneWord, "ptOneWord")
    lunr.TokenSet.prototype.toString = ptTokenSetName
    if (!lunr.Builder.prototype.ptAdd) {
      lunr.Builder.prototype.ptAdd = lunr.Builder.prototype.add
      lunr.Builder.prototype.add = function () {
        ptNameTheField(this)
        return this.ptAdd.apply(this, arguments)
      }
    }
  }
  else if (message.type === 2 && ptSeparator) {
    ptTyping(message.data)
    message.data = ptErrorQuery(message.data)
  }
})
