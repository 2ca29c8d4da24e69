// Sortable tables: a click on a column's name sorts the rows by that column (numbers descending first,
// text ascending first; a second click reverses). Cells sort by their data-sort attribute, else their text;
// empty or non-numeric values of a numeric column go last.
(function () {
  "use strict";
  function key(row, col) {
    var cell = row.cells[col];
    return cell.hasAttribute("data-sort") ? cell.getAttribute("data-sort") : cell.textContent.trim();
  }
  function sortBy(table, th) {
    var col = Number(th.getAttribute("data-col"));
    var text = th.getAttribute("data-type") === "text";
    var current = th.getAttribute("aria-sort");
    var order = current ? (current === "ascending" ? "descending" : "ascending") : (text ? "ascending" : "descending");
    table.querySelectorAll("th[aria-sort]").forEach(function (other) { other.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", order);
    var sign = order === "ascending" ? 1 : -1;
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = key(a, col), y = key(b, col);
      if (text) { return sign * x.localeCompare(y, undefined, {numeric: true}); }
      var u = parseFloat(x), v = parseFloat(y);
      if (isNaN(u) || isNaN(v)) { return isNaN(u) - isNaN(v); }
      return sign * (u - v);
    });
    rows.forEach(function (row) { body.appendChild(row); });
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    table.querySelectorAll("th[data-col] button").forEach(function (button) {
      button.addEventListener("click", function () { sortBy(table, button.parentElement); });
    });
  });
})();
