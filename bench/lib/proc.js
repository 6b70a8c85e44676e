'use strict';
// CPU time and resident memory of processes, read from /proc (Linux): what a system under test
// spends, summed over its own processes and the Postgres backends serving its database.
const { readFileSync, writeFileSync } = require('node:fs');
const { execFileSync } = require('node:child_process');

let ticksPerSecond;
function clockTicks() {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** User + system CPU seconds of one process so far, or undefined when it is not readable (gone, remote). */
function cpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses: fields are counted after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / clockTicks();
  } catch {
    return undefined;
  }
}

/** VmHWM (peak resident set) and VmRSS of one process, in bytes. */
function memory(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key) =>
      Number((status.match(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm')) ?? [])[1] ?? NaN) * 1024;
    return { peak: kb('VmHWM'), current: kb('VmRSS') };
  } catch {
    return undefined;
  }
}

/**
 * Resets a process's peak RSS to its current RSS (`5` to clear_refs, Linux 4.0+), so that a window's
 * peak is the window's own. Best effort: false when not allowed.
 */
function resetPeak(pid) {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** The pids of the Postgres backends connected to `database` (they do the system's SQL work). */
async function backendPids(admin, database) {
  if (!admin || !database) return [];
  const { rows } = await admin.query('select pid from pg_stat_activity where datname = $1', [database]);
  return rows.map((r) => r.pid);
}

/**
 * Measures one window: CPU seconds spent by `pids()` (the system's own processes), by the Postgres
 * backends of `database` and by `infraPids` (a NATS server of ours), and the summed peak RSS of the
 * system's own processes during the window (their peaks are reset at its start). Backends that connect during the window count from zero; one that
 * disconnects during it is lost (pools keep theirs open, so this is rare).
 */
function createMeter({ pids, admin, database, infraPids = () => [] }) {
  let before;
  const sample = async () => {
    const own = new Map(pids().map((pid) => [pid, cpuSeconds(pid)]));
    const db = new Map((await backendPids(admin, database)).map((pid) => [pid, cpuSeconds(pid)]));
    const infra = new Map(infraPids().map((pid) => [pid, cpuSeconds(pid)]));
    return { own, db, infra, at: process.hrtime.bigint() };
  };
  const spent = (start, end) => {
    let sum = 0;
    let known = true;
    for (const [pid, value] of end) {
      if (value === undefined) {
        known = false;
        continue;
      }
      sum += value - (start.get(pid) ?? 0);
    }
    return known || sum > 0 ? sum : undefined;
  };
  return {
    async start() {
      for (const pid of pids()) resetPeak(pid);
      before = await sample();
    },
    async stop() {
      const after = await sample();
      const app = spent(before.own, after.own);
      const db = database ? spent(before.db, after.db) : undefined;
      const infra = spent(before.infra, after.infra);
      return {
        wallSeconds: Number(after.at - before.at) / 1e9,
        cpuSeconds: { app, db, infra, total: (app ?? 0) + (db ?? 0) + (infra ?? 0) },
        peakRssBytes: peakRss(pids()),
      };
    },
  };
}

/** Sum of the peak resident sets of `pids` (each process's own peak: an upper bound of the joint peak). */
function peakRss(pids) {
  let sum = 0;
  for (const pid of pids) sum += memory(pid)?.peak ?? 0;
  return sum;
}

module.exports = { cpuSeconds, memory, resetPeak, backendPids, createMeter, peakRss };
