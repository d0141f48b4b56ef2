// adk-memory-kit console: charts from the JSON API (the pages work without this file).
(function () {
  "use strict";
  var COLORS = ["#2563eb", "#0d9488", "#d97706", "#db2777", "#7c3aed", "#65a30d", "#dc2626", "#0891b2"];

  function usd(v) { return "$" + (v >= 0.01 ? v.toFixed(4) : v.toFixed(6)); }
  function tokens(v) { return Math.round(v).toLocaleString("en-US") + " tokens"; }
  // no priced call in the period: the charts plot tokens (an unknown price is never $0)
  function byTokens(report) { return report.metric === "tokens"; }

  function colour(report, name, i) {
    // the same model (or app) has the same colour in every chart of the page
    var at = report.series.indexOf(name);
    return COLORS[(at >= 0 ? at : report.series.length + i) % COLORS.length];
  }

  function perDay(report) {
    // one stacked series per model (or per app on the all-apps page); days without calls are 0
    var labels = report.days.map(function (d) { return d.day.slice(5); });
    var series = report.series.length ? report.series : ["cost"];
    var datasets = series.map(function (name, i) {
      return {
        label: name,
        data: report.days.map(function (d) {
          if (byTokens(report)) {
            return report.series.length ? (d.token_split[name] || 0) : (d.input_tokens + d.output_tokens);
          }
          return report.series.length ? (d.split[name] || 0) : (d.cost_usd || 0);
        }),
        backgroundColor: colour(report, name, i),
        borderRadius: 3
      };
    });
    return { labels: labels, datasets: datasets, stacked: true, legend: series.length > 1 };
  }

  function perGroup(report, dim) {
    var t = byTokens(report);
    var rows = (report.by[dim] || []).filter(function (r) {
      return t ? (r.input_tokens + r.output_tokens) > 0 : r.cost_usd !== null;
    }).slice(0, 12);
    return {
      labels: rows.map(function (r) { return String(r.key); }),
      datasets: [{ label: t ? "tokens" : "USD",
        data: rows.map(function (r) { return t ? r.input_tokens + r.output_tokens : r.cost_usd; }),
        backgroundColor: rows.map(function (r, i) { return colour(report, String(r.key), i); }),
        borderRadius: 3 }],
      stacked: false, legend: false, horizontal: true
    };
  }

  function draw(canvas, report) {
    var kind = canvas.getAttribute("data-chart");
    var spec = kind === "days" ? perDay(report) : perGroup(report, kind);
    var fmt = byTokens(report) ? tokens : usd;
    var axis = byTokens(report) ? function (v) { return v; } : function (v) { return "$" + v; };
    if (canvas._chart) { canvas._chart.destroy(); }
    canvas._chart = new window.Chart(canvas, {
      type: "bar",
      data: { labels: spec.labels, datasets: spec.datasets },
      options: {
        indexAxis: spec.horizontal ? "y" : "x", animation: false, responsive: true,
        maintainAspectRatio: false,
        plugins: {
          legend: { display: spec.legend, position: "bottom", labels: { boxWidth: 12 } },
          tooltip: { callbacks: { label: function (c) {
            var v = spec.horizontal ? c.parsed.x : c.parsed.y;
            return (spec.legend ? c.dataset.label + ": " : "") + fmt(v);
          } } }
        },
        scales: {
          x: { stacked: spec.stacked, beginAtZero: true, grid: { display: !!spec.horizontal },
            ticks: spec.horizontal ? { callback: axis } : {} },
          y: { stacked: spec.stacked, beginAtZero: true, grid: { display: !spec.horizontal },
            ticks: spec.horizontal ? {} : { callback: axis } }
        }
      }
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
