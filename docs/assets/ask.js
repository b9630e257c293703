/* The home page's question field (#mx-ask-field): what the reader types or pastes there goes into the
   site's search, which opens with it, its results under the header's field; Enter does the same with
   what is there. The field is the page's own, so that a reader sees where to ask on the first screen,
   on a phone too, where the header shows search only as an icon. */
(function () {
  var field = document.getElementById("mx-ask-field");
  var toggle = document.getElementById("__search");
  var query = document.querySelector("[data-md-component=search-query]");
  if (!field || !toggle || !query) return;

  function ask() {
    if (!field.value.trim()) return;
    toggle.checked = true;
    toggle.dispatchEvent(new Event("change"));
    query.value = field.value;
    field.value = "";
    query.focus();
    query.setSelectionRange(query.value.length, query.value.length);
    query.dispatchEvent(new KeyboardEvent("keyup"));  // the search answers what its field holds
  }
  field.addEventListener("input", ask);
  field.addEventListener("keydown", function (event) {
    if (event.key === "Enter") ask();
  });
})();
