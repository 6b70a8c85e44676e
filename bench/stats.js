'use strict';
/** Median and spread of a list of milliseconds, formatted for a bench line. */
function summarize(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { n: sorted.length, median: at(0.5), p10: at(0.1), p90: at(0.9), min: sorted[0], max: sorted[sorted.length - 1] };
}

function line(label, samples, unit = 'ms') {
  const s = summarize(samples);
  const f = (v) => (v < 1 ? v.toFixed(3) : v < 10 ? v.toFixed(2) : v.toFixed(1));
  return `${label.padEnd(44)} median ${f(s.median)} ${unit}  (p10 ${f(s.p10)}, p90 ${f(s.p90)}, n=${s.n})`;
}

module.exports = { summarize, line };
