// adk-memory-kit console: charts from the JSON API (the pages work without this file).
(function () {
  "use strict";
  var COLORS = ["#2563eb", "#0d9488", "#d97706", "#db2777", "#7c3aed", "#65a30d", "#dc2626", "#0891b2"];

  function draw(canvas, report) {
    var kind = canvas.getAttribute("data-chart");
    var labels = [], values = [];
    if (kind === "days") {
      report.days.forEach(function (d) { labels.push(d.day.slice(5)); values.push(d.cost_usd); });
    } else {
      var dim = kind === "user" ? "user_id" : kind;
      (report.by[dim] || []).slice(0, 12).forEach(function (r) { labels.push(String(r[dim])); values.push(r.cost_usd); });
    }
    if (canvas._chart) { canvas._chart.destroy(); }
    canvas._chart = new window.Chart(canvas, {
      type: kind === "days" ? "bar" : "bar",
      data: { labels: labels, datasets: [{ label: "USD", data: values,
        backgroundColor: kind === "days" ? "#2563eb" : COLORS }] },
      options: { indexAxis: kind === "days" ? "x" : "y", animation: false, responsive: true,
        maintainAspectRatio: false, plugins: { legend: { display: false } },
        scales: { x: { beginAtZero: true }, y: { beginAtZero: true } } }
    });
  }

  function loadCharts(root) {
    if (!window.Chart) { return; }
    var canvases = (root || document).querySelectorAll("canvas[data-chart-src]");
    var cache = {};
    canvases.forEach(function (canvas) {
      var src = canvas.getAttribute("data-chart-src");
      cache[src] = cache[src] || fetch(src, { credentials: "same-origin", headers: { "Accept": "application/json" } })
        .then(function (r) { return r.json(); });
      cache[src].then(function (report) { if (report.available) { draw(canvas, report); } });
    });
  }

  document.addEventListener("DOMContentLoaded", function () { loadCharts(document); });
  document.addEventListener("htmx:load", function (evt) { loadCharts(evt.target); });
})();
