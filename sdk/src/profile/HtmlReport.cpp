// The self-contained HTML report: profile data embedded as JSON, drawn as SVG by inline
// JavaScript (no network access). The page sets #status to "rendered" when every chart is
// drawn, or to "error: …" if a script fails, so tests can check it in a headless browser.
#include <tessera/profile/ProfileReader.hpp>

#include <algorithm>
#include <cstdio>
#include <sstream>

#include <poplar/exceptions.hpp>

#include "core/JsonQuote.hpp"
#include "profile/ProfileFileWriter.hpp"

namespace tessera::profile {

namespace {

/// Timeline events drawn (the first ones).
constexpr std::size_t kMaxDrawnEvents = 5000;

/// A JSON string safe inside the report's <script> element.
std::string jsonString(const std::string &s) { return poplar::core::jsonQuoted(s, true); }

std::string reportData(const GraphProfile &g, const ExecutionProfile *e) {
  std::ostringstream o;
  o << "{\"target\":"
    << jsonString(g.target.arch + ", " + std::to_string(g.target.numTiles) + " tiles, " +
                  std::to_string(g.target.bytesPerTile) + " bytes per tile")
    << ",\"bytesPerTile\":" << g.target.bytesPerTile << ",\"error\":" << jsonString(g.error);
  // Per tile: [variables, vertexState, exchange, padding].
  o << ",\"tiles\":[";
  for (std::size_t t = 0; t < g.tiles.size(); ++t) {
    const auto &m = g.tiles[t];
    o << (t ? "," : "") << '[' << m.variables << ',' << m.vertexState << ',' << m.exchange << ','
      << m.padding << ']';
  }
  // Memory in use per step: variables, vertex state and padding are permanent in this
  // release; a compute set's exchange buffers are live while it runs.
  std::uint64_t permanent = 0;
  for (const auto &m : g.tiles)
    permanent += m.variables + m.vertexState + m.padding;
  o << "],\"steps\":[";
  for (std::size_t i = 0; i < g.steps.size(); ++i) {
    const auto &s = g.steps[i];
    const std::uint64_t live =
        permanent + (s.computeSet >= 0
                         ? g.computeSets[static_cast<std::size_t>(s.computeSet)].exchangeBufferBytes
                         : 0);
    o << (i ? "," : "") << "{\"kind\":" << jsonString(s.kind) << ",\"name\":" << jsonString(s.name)
      << ",\"cycles\":" << s.estimatedCycles << ",\"live\":" << live << '}';
  }
  o << "],\"events\":[";
  if (e) {
    for (std::size_t i = 0; i < e->timeline.size() && i < kMaxDrawnEvents; ++i) {
      const auto &ev = e->timeline[i];
      o << (i ? "," : "") << '[' << ev.step << ',' << ev.startCycle << ',' << ev.cycles << ','
        << ev.hostNs << ']';
    }
  } else {
    // No execution profile: the first program's cost-bearing steps in order, once each.
    std::uint64_t at = 0;
    bool first = true;
    for (std::size_t i = 0; i < g.steps.size(); ++i) {
      if (g.steps[i].estimatedCycles == 0)
        continue;
      o << (first ? "" : ",") << '[' << i << ',' << at << ',' << g.steps[i].estimatedCycles
        << ",0]";
      at += g.steps[i].estimatedCycles;
      first = false;
    }
  }
  o << "],\"measured\":" << (e ? "true" : "false") << '}';
  return o.str();
}

constexpr const char *kPageHead = R"HTML(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Tessera profile report</title>
<style>
body{font-family:sans-serif;margin:1.5em;color:#222}
h1{font-size:1.4em}h2{font-size:1.1em;margin-top:1.5em}
svg{background:#fafafa;border:1px solid #ddd}
.legend span{display:inline-block;margin-right:1em}
.legend i{display:inline-block;width:.8em;height:.8em;margin-right:.3em}
#status{color:#888;font-size:.8em}
</style></head><body>
<h1>Tessera profile report</h1>
<p id="target"></p><p id="error" style="color:#b00"></p>
<h2>Memory per tile</h2>
<div class="legend"><span><i style="background:#4c78a8"></i>variables</span><span><i style="background:#f58518"></i>vertex state</span><span><i style="background:#54a24b"></i>exchange buffers</span><span><i style="background:#bab0ac"></i>padding</span></div>
<svg id="tile-memory-chart" width="960" height="260"></svg>
<h2>Memory in use per step</h2>
<svg id="liveness-chart" width="960" height="220"></svg>
<h2>Execution timeline (estimated cycles)</h2>
<svg id="timeline-chart" width="960" height="240"></svg>
<p id="status">loading</p>
<script>
)HTML";

constexpr const char *kPageScript = R"JS(
(function () {
  var status = document.getElementById('status');
  window.onerror = function (m) { status.textContent = 'error: ' + m; };
  var NS = 'http://www.w3.org/2000/svg';
  function el(svg, name, attrs, text) {
    var e = document.createElementNS(NS, name);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    svg.appendChild(e);
    return e;
  }
  function axisLabel(svg, x, y, text) { el(svg, 'text', {x: x, y: y, 'font-size': 11}, text); }
  var W = 960, L = 70, R = 10;
  document.getElementById('target').textContent = DATA.target;
  document.getElementById('error').textContent = DATA.error;

  // Per-tile memory: stacked bars, tallest tile at the top of the scale.
  (function () {
    var svg = document.getElementById('tile-memory-chart'), H = 260, T = 10, B = 30;
    var colours = ['#4c78a8', '#f58518', '#54a24b', '#bab0ac'];
    var max = DATA.bytesPerTile;
    DATA.tiles.forEach(function (t) { max = Math.max(max, t[0] + t[1] + t[2] + t[3]); });
    var n = Math.max(1, DATA.tiles.length), bw = (W - L - R) / n;
    var sy = (H - T - B) / Math.max(1, max);
    DATA.tiles.forEach(function (t, i) {
      var y = H - B;
      for (var k = 0; k < 4; ++k) {
        if (!t[k]) continue;
        var h = t[k] * sy;
        y -= h;
        var r = el(svg, 'rect', {x: L + i * bw, y: y, width: Math.max(bw, 0.5), height: h,
                                 fill: colours[k], 'class': 'tile-bar'});
        el(r, 'title', {}, 'tile ' + i + ': ' + t[k] + ' bytes');
      }
    });
    var cap = H - B - DATA.bytesPerTile * sy;
    el(svg, 'line', {x1: L, x2: W - R, y1: cap, y2: cap, stroke: '#b00', 'stroke-dasharray': '4'});
    axisLabel(svg, 2, cap + 4, 'capacity');
    axisLabel(svg, L, H - 10, 'tile 0');
    axisLabel(svg, W - R - 60, H - 10, 'tile ' + (n - 1));
  })();

  // Memory in use per step (all tiles).
  (function () {
    var svg = document.getElementById('liveness-chart'), H = 220, T = 10, B = 30;
    var steps = DATA.steps, max = 1;
    steps.forEach(function (s) { max = Math.max(max, s.live); });
    var n = Math.max(1, steps.length), dx = (W - L - R) / n, sy = (H - T - B) / max;
    var pts = [];
    steps.forEach(function (s, i) {
      var y = H - B - s.live * sy;
      pts.push((L + i * dx) + ',' + y, (L + (i + 1) * dx) + ',' + y);
    });
    el(svg, 'polyline', {points: pts.join(' '), fill: 'none', stroke: '#4c78a8',
                         'stroke-width': 2, 'class': 'liveness-line'});
    axisLabel(svg, 2, T + 10, max + ' B');
    axisLabel(svg, L, H - 10, 'step 0');
    axisLabel(svg, W - R - 60, H - 10, 'step ' + (n - 1));
  })();

  // Timeline: one bar per step execution, one lane per step kind.
  (function () {
    var svg = document.getElementById('timeline-chart'), H = 240, T = 10, B = 30;
    var lanes = ['Execute', 'Copy', 'StreamIn', 'StreamOut', 'RemoteIn', 'RemoteOut'],
        colours = ['#4c78a8', '#54a24b', '#f58518', '#e45756', '#b279a2', '#9d755d'];
    var end = 1;
    DATA.events.forEach(function (e) { end = Math.max(end, e[1] + e[2]); });
    var sx = (W - L - R) / end, lh = (H - T - B) / lanes.length;
    lanes.forEach(function (name, k) { axisLabel(svg, 2, T + k * lh + lh / 2 + 4, name); });
    DATA.events.forEach(function (e) {
      var s = DATA.steps[e[0]], k = Math.max(0, lanes.indexOf(s.kind));
      var r = el(svg, 'rect', {x: L + e[1] * sx, y: T + k * lh + 2, width: Math.max(1, e[2] * sx),
                               height: lh - 4, fill: colours[k], 'class': 'timeline-event'});
      el(r, 'title', {}, s.kind + ' ' + s.name + ': ' + e[2] + ' cycles' +
                         (DATA.measured && e[3] ? ', host ' + (e[3] / 1000).toFixed(1) + ' us' : ''));
    });
    axisLabel(svg, L, H - 10, '0');
    axisLabel(svg, W - R - 100, H - 10, end + ' cycles');
  })();

  status.textContent = 'rendered';
})();
</script></body></html>
)JS";

} // namespace

void writeHtmlReport(const std::string &path, const GraphProfile &graph,
                     const ExecutionProfile *exec) {
  poplar::profile::writeProfileFile(path, kPageHead + ("var DATA = " + reportData(graph, exec)) +
                                              ";\n" + kPageScript);
}

} // namespace tessera::profile
