/* The torch picker of mkdocs_examples: a <select> in the header (on a phone, above the page's title); the reader
 * picks an environment (a torch release on a device) and each output on the page shows what it printed, labelled
 * with it, the build's own folded below under its label; where the cell's check fails on the picked release, a
 * sentence above that output says so in words; where that device was not recorded with that release, the output
 * stays and its label says so.
 *
 * Data (publish/picker.py): outputs/environments.json (the choices, the environment each shows per
 * device, labels, texts) and outputs/examples/<path>.json (each cell's outputs per environment), fetched
 * only once a release other than the build's is picked. Every text in them is recorded output, so
 * hostile: it is written with textContent, never as HTML; a figure only as base64 PNG data.
 *
 * An output the picker can change is followed by its label:
 *   <small class="mx-provenance" data-mx-env data-mx-device data-mx-example data-mx-cell>
 * and the output blocks before that label's paragraph are the cell's (render/page.py writes them so).
 * Without JavaScript, and until a reader picks another release, the page is as built. The choice is
 * kept in localStorage, and applied again on every page, instant navigation (Material's document$) too.
 */
(function () {
  "use strict";
  var KEY = "mkdocs_examples.torch";
  var ROOT = new URL("..", document.currentScript.src); // assets/ is under the site's root
  var LABELS = ".mx-provenance[data-mx-env]";
  var cache = {}; // URL: the promise of its JSON
  var state = new WeakMap(); // label: {text, blocks} as built, and the blocks the picker added

  function json(path) {
    var url = new URL(path, ROOT).href;
    if (!cache[url]) {
      cache[url] = fetch(url).then(function (response) {
        if (!response.ok) throw new Error(url + ": " + response.status);
        return response.json();
      });
      cache[url].catch(function () { delete cache[url]; });
    }
    return cache[url];
  }

  function stored() {
    try { return localStorage.getItem(KEY); } catch (error) { return null; }
  }

  function store(release) {
    try { localStorage.setItem(KEY, release); } catch (error) { /* storage off: this page only */ }
  }

  // What `table` (the picker's texts, or what printed an environment's outputs) says in the page's language
  function inLanguage(table) {
    var lang = (document.documentElement.lang || "en").split("-")[0];
    return table[lang] || table.en;
  }

  function texts(site) {
    return inLanguage(site.texts);
  }

  function format(template, values) {
    return template.replace(/\{(\w+)\}/g, function (whole, name) {
      return Object.prototype.hasOwnProperty.call(values, name) ? String(values[name]) : whole;
    });
  }

  // The output blocks a label names: the blocks right before its paragraph, back to anything else
  function outputs(label) {
    var blocks = [];
    var node = label.closest("p") || label;
    for (node = node.previousElementSibling; node; node = node.previousElementSibling) {
      var output = node.matches(".language-text, .language-pytb") || // or, unnamed, a block without line numbers
        node.matches(".highlight:not([class*=language-])") && !node.querySelector(".highlighttable") ||
        (node.matches("p") && node.children.length === 1 && node.firstElementChild.matches("img"));
      if (!output) break;
      blocks.unshift(node);
    }
    return blocks;
  }

  function restore(label) {
    var kept = state.get(label);
    if (!kept) {
      kept = {text: label.textContent, title: label.title, blocks: outputs(label), undo: []};
      state.set(label, kept);
    }
    while (kept.undo.length) kept.undo.pop()();
    label.textContent = kept.text;
    label.title = kept.title;
    return kept;
  }

  // Move `nodes` before `place`, and back where they were on the label's next restore
  function move(kept, nodes, place) {
    var from = nodes.map(function (node) { return [node, node.parentNode, node.nextSibling]; });
    nodes.forEach(function (node) { place.before(node); });
    kept.undo.push(function () {
      from.reverse().forEach(function (was) { was[1].insertBefore(was[0], was[2]); });
    });
  }

  function added(kept, node, place) {
    place.before(node);
    kept.undo.push(function () { node.remove(); });
  }

  function retext(kept, node, text) {
    var was = node.textContent;
    node.textContent = text;
    kept.undo.push(function () { node.textContent = was; });
  }

  // Where a label's output blocks and its label are: its paragraph, in a device's tab or not
  function spot(label) {
    return label.closest("p") || label;
  }

  // The folded notes of a label's cell ("torch 2.4.1 prints"), after its output or its set of device tabs
  function notes(label) {
    var found = [];
    var node = (label.closest(".tabbed-set") || spot(label)).nextElementSibling;
    for (; node && node.matches("details"); node = node.nextElementSibling) found.push(node);
    return found;
  }

  function code(kind, title, body) {
    var div = document.createElement("div");
    div.className = "language-" + kind + " highlight";
    var name = document.createElement("span");
    name.className = "filename";
    name.textContent = title;
    var pre = document.createElement("pre");
    pre.id = "mx-code-" + (++made);
    var nav = document.createElement("nav"); // Material's copy button: its clipboard listens on the whole page
    nav.className = "md-code__nav";
    var copy = document.createElement("button");
    copy.className = "md-code__button";
    copy.title = (document.querySelector(".md-code__button") || {}).title || "Copy";
    copy.dataset.mdType = "copy";
    copy.dataset.clipboardTarget = "#" + pre.id + " > code";
    nav.appendChild(copy);
    var text = document.createElement("code");
    text.textContent = body;
    pre.append(nav, text);
    div.append(name, pre);
    return div;
  }
  var made = 0;

  function render(output, words) {
    var nodes = [];
    var text = output.output;
    if (output.truncated) text += "\n" + format(words.cut, {n: output.truncated.toLocaleString("en-US")});
    if (text.trim()) nodes.push(code("text", words.output, text));
    if (output.traceback) nodes.push(code("pytb", words.exception, output.traceback));
    output.images.forEach(function (image, i) {
      if (!/^[A-Za-z0-9+/]+={0,2}$/.test(image)) return;
      var p = document.createElement("p");
      var img = document.createElement("img");
      img.alt = words.figure + " " + (i + 1);
      img.src = "data:image/png;base64," + image;
      p.appendChild(img);
      nodes.push(p);
    });
    return nodes;
  }

  // The label of an output of `environment`
  function relabel(label, environment, words) {
    var named = inLanguage(environment.label);
    label.textContent = environment.unverified ? format(words["picker.unverified"], {label: named}) : named;
    label.title = inLanguage(environment.printed);
  }

  var DEVICES = {cpu: "CPU", cuda: "CUDA"};

  function deviceName(device) {
    return DEVICES[device] || device.toUpperCase();
  }

  // The label of an output whose device was not recorded with the picked release: the output stays
  function unrecorded(label, release, words) {
    label.textContent = format(words["picker.unrecorded"],
      {label: label.textContent, device: deviceName(label.dataset.mxDevice), release: release});
  }

  // The build's own output of a label's cell, out of its place and folded under its own label: the reader can
  // still open what the page printed as built, beside what the picked release printed
  function fold(label, kept, words) {
    var details = document.createElement("details");
    details.className = "note";
    var summary = document.createElement("summary");
    summary.textContent = format(words.prints, {what: kept.text});
    var p = document.createElement("p");
    var small = document.createElement("small");
    small.className = "mx-provenance";
    small.textContent = kept.text;
    small.title = kept.title;
    p.appendChild(small);
    details.append(summary, p);
    move(kept, kept.blocks, p);
    (label.closest(".tabbed-set") || spot(label)).after(details);
    kept.undo.push(function () { details.remove(); });
  }

  // Show, in `label`'s place, the output of the environment `target` (a name of environments.json); the note
  // that held it holds the build's output in turn, so that no output is shown twice and none is lost. Where a
  // check of the cell fails on that release, it still shows what that release printed, under a sentence that says
  // so (claim)
  function show(label, target, site, example, words) {
    var kept = restore(label);
    var environment = site.environments[target];
    var index = label.dataset.mxCell;
    var cell = example && example.cells[index] || {};
    if (!(target in cell)) { // not recorded there: the build's stays, and its label says why
      var stopped = example && example.failed && example.failed[target];
      var why = stopped && stopped.cell < Number(index) ? "picker.stopped" : "picker.missing";
      label.textContent = format(words[why],
        {label: kept.text, other: inLanguage(environment.label), release: environment.release});
      return null;
    }
    relabel(label, environment, words);
    if (cell[target] !== cell[label.dataset.mxEnv]) swap(label, kept, target, cell, example, words);
    var claim = example.claims && example.claims[target] && example.claims[target][index];
    if (claim) differs(label, kept, claim, environment, words);
    return target;
  }

  // The output of `target` in the place of the build's, which is folded under its own label: moved from the note
  // that shows exactly that output, or else written from the data
  function swap(label, kept, target, cell, example, words) {
    var note = notes(label).filter(function (details) {
      var names = details.querySelector("[data-mx-shows]");
      return !details.dataset.mxSwapped && names && cell[names.dataset.mxShows] === cell[target];
    })[0];
    if (!note) { // a note of several releases shows another's, or a device tab prints it
      render(example.outputs[cell[target]], words).forEach(function (node) { added(kept, node, spot(label)); });
      fold(label, kept, words);
      return;
    }
    var names = note.querySelector("[data-mx-shows]");
    var theirs = outputs(names);
    move(kept, theirs, kept.blocks[0] || spot(label));
    move(kept, kept.blocks, spot(names));
    retext(kept, note.querySelector("summary"), format(words.prints, {what: kept.text}));
    retext(kept, names, kept.text);
    note.dataset.mxSwapped = "1";
    kept.undo.push(function () { delete note.dataset.mxSwapped; });
  }

  // One sentence above the output a picked release printed where the cell's check fails there: the check's claim
  // in the page's language, where it has one, and the releases it holds on, where its cell declares them, which
  // the line beside the claim says too (hidden meanwhile); where the cell itself raised there, the error, in
  // code, and whether it printed anything before
  function differs(label, kept, claim, environment, words) {
    var range = claim.holds && inLanguage(claim.holds);
    var said = claim.claim && inLanguage(claim.claim);
    var key = said ? "picker.claim" + (claim.raised ? ".raised" : "") :
      claim.raised ? "picker.raised" : "picker.differs";
    var template = format(words[key + (range ? ".holds" : "")], {range: range, release: environment.release});
    var sentence = document.createElement("p");
    sentence.className = "mx-differs";
    template.split(/(\{claim\}|\{error\})/).forEach(function (part) {
      if (part === "{claim}") sentence.append.apply(sentence, spans(said));
      else if (part === "{error}") sentence.append(codeSpan(claim.raised));
      else if (part) sentence.append(part);
    });
    var shown = outputs(label);
    if (claim.raised) sentence.append(words[shown.length ? "picker.raised.after" : "picker.raised.end"]);
    var place = shown[0] || spot(label);
    for (var node = place.previousElementSibling; range && node && node.matches(".mx-holds");
      node = node.previousElementSibling) hide(kept, node);
    added(kept, sentence, place);
  }

  // A claim's words (plain text, code between backticks) as nodes: text, and <code> for each code span
  function spans(words) {
    return words.split(/`([^`]+)`/).map(function (part, i) { return i % 2 ? codeSpan(part) : part; })
      .filter(function (part) { return part !== ""; });
  }

  function codeSpan(text) {
    var element = document.createElement("code");
    element.textContent = text;
    return element;
  }

  function hide(kept, node) {
    node.hidden = true;
    kept.undo.push(function () { node.hidden = false; });
  }

  // The page's block on where its outputs come from names first the environments whose outputs the cells show
  var listed = new WeakMap(); // a block's list: its items as built
  function sources(shown, site, words) {
    var list = document.querySelector(".mx-sources ul");
    if (!list) return;
    if (!listed.has(list)) listed.set(list, Array.from(list.children));
    list.replaceChildren.apply(list, listed.get(list));
    shown.filter(function (name, i) { return name && shown.indexOf(name) === i; }).reverse().forEach(function (name) {
      var item = list.querySelector('[data-mx-source="' + CSS.escape(name) + '"]');
      if (!item) {
        var environment = site.environments[name];
        item = document.createElement("li");
        item.textContent = format(words["picker.source"],
          {label: inLanguage(environment.label), what: inLanguage(environment.printed)});
      }
      list.prepend(item);
    });
  }

  function choice(site, key) {
    return site.choices.filter(function (c) { return c.key === key; })[0];
  }

  // The latest choice wins: a choice made while an earlier one still waits for its outputs (a remembered release
  // applied as the page opens, a reader who picks twice quickly) leaves the earlier one nothing to show
  var applying = 0;
  function apply(key) {
    var turn = ++applying;
    var labels = Array.prototype.slice.call(document.querySelectorAll(LABELS));
    return json("outputs/environments.json").then(function (site) {
      if (turn !== applying) return;
      var entry = choice(site, key);
      var words = texts(site);
      var targets = new Map();
      labels.forEach(function (label) {
        restore(label);
        if (!entry) return;
        var target = entry.all && !label.closest(".tabbed-set") ? entry.all : entry.shows[label.dataset.mxDevice];
        if (!target) unrecorded(label, entry.release, words);
        else if (target === label.dataset.mxEnv) relabel(label, site.environments[target], words);
        else targets.set(label, target);
      });
      var wanted = Array.from(targets.keys());
      var paths = wanted.map(function (label) { return label.dataset.mxExample; })
        .filter(function (path, i, all) { return all.indexOf(path) === i; });
      return Promise.all(paths.map(function (path) {
        return json("outputs/examples/" + path.replace(/\.py$/, "") + ".json").catch(function () { return null; });
      })).then(function (found) {
        if (turn !== applying) return;
        var shown = wanted.map(function (label) {
          var example = found[paths.indexOf(label.dataset.mxExample)];
          return show(label, targets.get(label), site, example, words);
        });
        sources(shown, site, words);
        document.documentElement.dataset.mxTorch = entry ? entry.release : "";
      });
    });
  }

  function picker(site) {
    var words = texts(site);
    var old = document.querySelector(".mx-picker");
    if (old) old.remove();
    var wrap = document.createElement("div");
    var label = document.createElement("label");
    var name = document.createElement("span");
    name.className = "mx-picker__label";
    name.textContent = words["picker.label"];
    var select = document.createElement("select");
    select.className = "mx-picker__select";
    if (!site.build) { // a build that ran no torch: its own outputs come first
      var own = document.createElement("option");
      own.value = "";
      own.textContent = format(words["picker.built"], {release: "—"});
      select.appendChild(own);
    }
    site.choices.forEach(function (c) {
      var option = document.createElement("option");
      option.value = c.key;
      var named = inLanguage(c.name);
      option.textContent = c.key === "build" ? format(words["picker.built"], {release: named}) : named;
      select.appendChild(option);
    });
    // By default the build's own outputs, though newer releases may be recorded: the page's text is written about
    // them and checked against them (a recorded release may print otherwise, as a CUDA build run without a GPU does
    // where the text describes a CPU build); they come in the page itself, highlighted, searchable and with their
    // copy buttons, with no JavaScript and no fetch; and the page does not change under the reader once shown. The
    // build's choice says so in its name. A reader on another release picks it once: the choice is kept
    var was = stored(); // a choice, or a release as an older page stored it: its first choice
    var same = site.choices.filter(function (c) { return c.release === was; })[0];
    select.value = same && !choice(site, was) ? same.key : was || "build";
    if (select.selectedIndex < 0) select.value = choice(site, "build") ? "build" : "";
    select.addEventListener("change", function () {
      store(select.value);
      apply(select.value);
    });
    label.append(name, select);
    wrap.appendChild(label);
    place(wrap);
    return select.value;
  }

  // In the header, before the search; on a phone (where Material's header drops the repository link),
  // above the page's title instead, where it leaves the header room for the site's name
  var NARROW = window.matchMedia("(max-width: 59.9844em)");
  function place(wrap) {
    var header = document.querySelector(".md-header__inner");
    var title = document.querySelector(".md-content__inner > h1");
    if (NARROW.matches && title) {
      wrap.className = "mx-picker mx-picker--page";
      var room = document.querySelector(".mx-picker-room"); // kept for it by the build (publish/picker.py)
      return room ? room.replaceWith(wrap) : title.before(wrap);
    }
    wrap.className = "mx-picker" + (header ? " md-header__option" : "");
    var search = header && header.querySelector(".md-search");
    if (search) search.before(wrap);
    else if (header) header.appendChild(wrap);
    else document.body.prepend(wrap);
  }
  NARROW.addEventListener("change", function () { // a phone turned, a window resized
    var wrap = document.querySelector(".mx-picker");
    if (wrap) place(wrap);
  });

  function start() {
    if (!document.querySelector(LABELS)) return; // a page without outputs: nothing to pick
    json("outputs/environments.json").then(function (site) {
      var key = picker(site);
      if (key !== "build" && key) return apply(key);
    }).catch(function (error) { console.warn("mkdocs_examples picker:", error); });
  }

  if (typeof window.document$ !== "undefined" && window.document$.subscribe) {
    window.document$.subscribe(start); // Material: every page, instant navigation included
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
