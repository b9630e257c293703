/* The torch picker of mkdocs_examples: a <select> in the header (on a phone, above the page's title); the reader
 * picks their torch release and each output on the page shows what that release printed on the output's device,
 * labelled with it; where that device was not recorded with that release, the output stays and its label says so.
 *
 * Data (publish/picker.py): outputs/environments.json (the releases, the environment each shows per
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
      var output = node.matches(".language-text, .language-pytb") ||
        (node.matches("p") && node.children.length === 1 && node.firstElementChild.matches("img"));
      if (!output || node.classList.contains("mx-added")) break;
      blocks.unshift(node);
    }
    return blocks;
  }

  function restore(label) {
    var kept = state.get(label);
    if (!kept) {
      kept = {text: label.textContent, title: label.title, blocks: outputs(label), added: []};
      state.set(label, kept);
    }
    kept.added.forEach(function (node) { node.remove(); });
    kept.added = [];
    kept.blocks.forEach(function (node) { node.hidden = false; });
    label.textContent = kept.text;
    label.title = kept.title;
    return kept;
  }

  function block(kind, title, body) {
    var div = document.createElement("div");
    div.className = "language-" + kind + " highlight mx-added";
    var name = document.createElement("span");
    name.className = "filename";
    name.textContent = title;
    var pre = document.createElement("pre");
    var code = document.createElement("code");
    code.textContent = body;
    pre.appendChild(code);
    div.append(name, pre);
    return div;
  }

  function render(output, words) {
    var nodes = [];
    var text = output.output;
    if (output.truncated) text += "\n" + format(words.cut, {n: output.truncated.toLocaleString("en-US")});
    if (text.trim()) nodes.push(block("text", words.output, text));
    if (output.traceback) nodes.push(block("pytb", words.exception, output.traceback));
    output.images.forEach(function (image, i) {
      if (!/^[A-Za-z0-9+/]+={0,2}$/.test(image)) return;
      var p = document.createElement("p");
      p.className = "mx-added";
      var img = document.createElement("img");
      img.alt = words.figure + " " + (i + 1);
      img.src = "data:image/png;base64," + image;
      p.appendChild(img);
      nodes.push(p);
    });
    return nodes;
  }

  // The label of an output of `environment` for a reader who picked `pick`
  function relabel(label, environment, pick, words) {
    label.textContent = environment.unverified ?
      format(words["picker.unverified"], {label: environment.label}) : environment.label;
    label.title = inLanguage(environment.printed);
  }

  var DEVICES = {cpu: "CPU", cuda: "CUDA"};

  function deviceName(device) {
    return DEVICES[device] || device.toUpperCase();
  }

  // The label of an output whose device was not recorded with the picked release: the output stays
  function unrecorded(label, pick, words) {
    label.textContent = format(words["picker.unrecorded"],
      {label: label.textContent, device: deviceName(label.dataset.mxDevice), release: pick});
  }

  // Show, beside `label`, the output of the environment `target` (a name of environments.json)
  function show(label, target, pick, site, example, words) {
    var kept = restore(label);
    var own = label.dataset.mxEnv;
    var environment = site.environments[target];
    var cell = example && example.cells[label.dataset.mxCell] || {};
    if (!(target in cell)) { // not recorded there (or stale, or its check failed): say so, keep the build's
      label.textContent = format(words["picker.missing"], {label: kept.text, other: environment.label});
      return;
    }
    relabel(label, environment, pick, words);
    if (cell[target] === cell[own]) return; // the same output, printed there too
    var nodes = render(example.outputs[cell[target]], words);
    var anchor = label.closest("p") || label;
    kept.blocks.forEach(function (node) { node.hidden = true; });
    nodes.forEach(function (node) { anchor.before(node); });
    kept.added = nodes;
  }

  function apply(release) {
    var labels = Array.prototype.slice.call(document.querySelectorAll(LABELS));
    return json("outputs/environments.json").then(function (site) {
      var entry = site.releases.filter(function (r) { return r.release === release; })[0];
      var words = texts(site);
      var wanted = labels.filter(function (label) { // those that may show another environment's output
        var target = entry && entry.shows[label.dataset.mxDevice];
        restore(label);
        if (target && target === label.dataset.mxEnv) relabel(label, site.environments[target], release, words);
        if (entry && !target) unrecorded(label, release, words);
        return Boolean(target) && target !== label.dataset.mxEnv;
      });
      var paths = wanted.map(function (label) { return label.dataset.mxExample; })
        .filter(function (path, i, all) { return all.indexOf(path) === i; });
      return Promise.all(paths.map(function (path) {
        return json("outputs/examples/" + path.replace(/\.py$/, "") + ".json").catch(function () { return null; });
      })).then(function (found) {
        wanted.forEach(function (label) {
          var example = found[paths.indexOf(label.dataset.mxExample)];
          show(label, entry.shows[label.dataset.mxDevice], release, site, example, words);
        });
        document.documentElement.dataset.mxTorch = release;
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
    site.releases.forEach(function (r) {
      var option = document.createElement("option");
      option.value = r.release;
      var name = r.release === site.build ? format(words["picker.built"], {release: r.release}) : r.release;
      option.textContent = format(words["picker.option"],
        {release: name, devices: (r.devices || []).map(deviceName).join(", ")});
      select.appendChild(option);
    });
    select.value = stored() || site.build || "";
    if (select.selectedIndex < 0) select.value = site.build || "";
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
      var release = picker(site);
      if (release !== (site.build || "")) return apply(release);
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
