// Material searches on `keyup`, which a paste with the mouse (or a drop, or an input method) never
// sends: search whenever the query changes
document.addEventListener("input", function (event) {
  var input = event.target
  if (input.matches && input.matches(".md-search__input")) input.dispatchEvent(new KeyboardEvent("keyup"))
})
