/* The 404 page suggests the pages whose address is nearest to the one typed (overrides/404.html lists
   every page of its language, hidden): a typo (training/pretrained-weight/), a page of another section
   (training/compile/), a missing slash. Nearest: the fewest letters to add, remove or change, in the whole
   path or in its last part alone (a page that moved); at most three, and none that is far. */
(function () {
  var list = document.getElementById("mx-nearest");
  var links = document.querySelectorAll("#mx-pages a");
  if (!list || !links.length) return;

  function path(text) {
    return decodeURIComponent(text).toLowerCase().replace(/(index\.html?)?$/, "").replace(/\/*$/, "/");
  }
  function last(text) {
    return text.replace(/\/$/, "").split("/").pop();
  }
  function distance(a, b) {  // Levenshtein, one row at a time
    var row = [], i, j, previous, next;
    for (j = 0; j <= b.length; j++) row.push(j);
    for (i = 1; i <= a.length; i++) {
      previous = row[0];
      row[0] = i;
      for (j = 1; j <= b.length; j++) {
        next = Math.min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
        previous = row[j];
        row[j] = next;
      }
    }
    return row[b.length];
  }

  var typed = path(location.pathname);
  var found = [].map.call(links, function (link) {
    var own = path(link.pathname);
    var score = Math.min(distance(typed, own), distance(last(typed), last(own)) + 1);
    return { link: link, score: score, far: Math.max(3, Math.floor(last(own).length / 3)) };
  }).filter(function (page) {
    return page.score <= page.far;
  }).sort(function (a, b) {
    return a.score - b.score;
  }).slice(0, 3);
  if (!found.length) return;
  var items = list.querySelector("ul");
  found.forEach(function (page) {
    var item = document.createElement("li");
    item.appendChild(page.link.cloneNode(true));
    items.appendChild(item);
  });
  list.hidden = false;
})();
