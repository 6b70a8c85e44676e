'use strict';
// Closed-loop load: `concurrency` workers each start the next run as soon as theirs ends, until
// `runs` have been started. Used in the driver (HTTP to Flex) and inside the peers' processes.

/** Percentile of an ascending list (nearest rank). */
function percentile(sorted, q) {
  if (sorted.length === 0) return undefined;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

function median(values) {
  const xs = values.filter((v) => typeof v === 'number' && Number.isFinite(v)).sort((a, b) => a - b);
  if (xs.length === 0) return undefined;
  const mid = Math.floor(xs.length / 2);
  return xs.length % 2 ? xs[mid] : (xs[mid - 1] + xs[mid]) / 2;
}

/**
 * Runs `runOnce` `runs` times, at most `concurrency` at once. Returns the wall time, the latency of
 * each successful run, and the errors (a run that throws is counted, not retried).
 */
async function closedLoop({ concurrency, runs, runOnce }) {
  let started = 0;
  const latencies = [];
  const errors = [];
  const t0 = performance.now();
  const worker = async () => {
    while (started < runs) {
      started++;
      const t = performance.now();
      try {
        await runOnce();
        latencies.push(performance.now() - t);
      } catch (error) {
        errors.push(String(error?.message ?? error).slice(0, 300));
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, runs) }, worker));
  return { wallMs: performance.now() - t0, latencies, errors };
}

/** Runs/s and latency percentiles of one closedLoop result. */
function summarizeLoad({ wallMs, latencies, errors }) {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    runs: latencies.length,
    errors: errors.length,
    firstError: errors[0],
    wallMs,
    runsPerSec: latencies.length / (wallMs / 1000),
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
  };
}

/** Median and range of a list of numbers. */
function spread(values) {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values) };
}

module.exports = { percentile, median, spread, closedLoop, summarizeLoad };
