// Row filters: by name substring, status and verdict. The URL's fragment sets them at
// load (#name=add&status=native&verdict=STRICT), so a link, or a headless browser, can
// open a filtered page.
(function () {
  var byId = function (id) { return document.getElementById(id); };
  var name = byId("filter-name"), status = byId("filter-status"), verdict = byId("filter-verdict");
  function apply() {
    var rows = document.querySelectorAll("tr.row"), shown = 0;
    var text = name ? name.value.toLowerCase() : "";
    for (var i = 0; i < rows.length; i++) {
      var r = rows[i];
      var ok = r.dataset.name.toLowerCase().indexOf(text) >= 0 &&
        (!status || !status.value || r.dataset.status.split(" ").indexOf(status.value) >= 0) &&
        (!verdict || !verdict.value || r.dataset.verdict.split(" ").indexOf(verdict.value) >= 0);
      r.hidden = !ok;
      if (ok) shown++;
    }
    byId("shown").textContent = shown + " of " + rows.length + " rows shown";
  }
  var params = new URLSearchParams(location.hash.slice(1));
  if (name && params.has("name")) name.value = params.get("name");
  if (status && params.has("status")) status.value = params.get("status");
  if (verdict && params.has("verdict")) verdict.value = params.get("verdict");
  [name, status, verdict].forEach(function (el) { if (el) el.addEventListener("input", apply); });
  apply();
})();
