// What /proc says about the desktop app's processes: their memory, their age, and finding
// the app among the WebDriver's descendants. Shared by the desktop measurements
// (desktop-perf.mjs, desktop-soak.mjs). Linux only.

import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * The fields of /proc/<pid>/stat after the command name (which may hold spaces): index 0 is
 * the state, 1 the parent pid, 19 the start time in clock ticks since boot.
 */
function statFields(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

const field = (text, name) => Number(text.match(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm'))?.[1] ?? 0);

/**
 * Memory (kB) of one process: `rss`, `pss` (shared pages split between the processes that map
 * them) and `private` (pages only this process maps, clean or dirty: what it would give back
 * if it exited).
 */
export function processMemoryKb(pid) {
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  return {
    rss: field(rollup, 'Rss'),
    pss: field(rollup, 'Pss'),
    private: field(rollup, 'Private_Clean') + field(rollup, 'Private_Dirty'),
  };
}

/**
 * Memory (kB) of `pid` and all its descendants (the app and its WebKit web and network
 * processes): sums of `rss`, `pss` (the fair total: shared libraries counted once) and
 * `private`, and `processes`, each one's name and memory plus how much of its RSS is Mesa's
 * software OpenGL (libLLVM and the swrast driver), which WebKitGTK loads under Xvfb.
 */
export function treeMemoryKb(pid) {
  const children = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const ppid = Number(statFields(entry)[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(entry));
    } catch {}
  }
  const total = { rss: 0, pss: 0, private: 0, processes: [] };
  const stack = [pid];
  while (stack.length) {
    const p = stack.pop();
    try {
      const m = processMemoryKb(p);
      total.rss += m.rss;
      total.pss += m.pss;
      total.private += m.private;
      total.processes.push({ name: processName(p), ...m, gl: softwareGlRssKb(p) });
    } catch {}
    stack.push(...(children.get(p) ?? []));
  }
  return total;
}

function processName(pid) {
  const exe = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0];
  return exe.slice(exe.lastIndexOf('/') + 1);
}

/** RSS (kB) of the mappings of `pid` whose /proc/<pid>/smaps header line `isWanted` accepts. */
function mappedRssKb(pid, isWanted) {
  let kb = 0;
  let wanted = false;
  for (const row of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    if (/^[0-9a-f]+-[0-9a-f]+ /.test(row)) wanted = isWanted(row);
    else if (wanted && row.startsWith('Rss:')) kb += Number(row.split(/\s+/)[1]);
  }
  return kb;
}

/**
 * RSS (kB) of the mappings of `pid`'s own executable file: its code and read-only data
 * resident in memory (the kernel maps the pages around each one touched, in 64 KB blocks).
 */
export function ownBinaryRssKb(pid) {
  const exe = readlinkSync(`/proc/${pid}/exe`);
  return mappedRssKb(pid, (header) => header.endsWith(` ${exe}`));
}

/** RSS (kB) of the Mesa software OpenGL libraries mapped by `pid`. */
function softwareGlRssKb(pid) {
  return mappedRssKb(pid, (header) => /libLLVM|swrast_dri/.test(header));
}

/**
 * Milliseconds since process `pid` started, from /proc (10 ms resolution: the kernel counts
 * a process's start in clock ticks since boot, 100 per second on Linux).
 */
export function processAgeMs(pid) {
  const startTicks = Number(statFields(pid)[19]);
  const uptimeS = Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]);
  return (uptimeS - startTicks / 100) * 1000;
}

/** The running process started from `bin` (the app is a descendant of WebKitWebDriver). */
export function pidOf(bin) {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmd.split('\0')[0] === bin) return Number(entry);
    } catch {}
  }
  return null;
}

export const mb = (kb) => `${(kb / 1024).toFixed(0)} MB`;

/** The `q`-quantile (0..1) of `values`, nearest rank. */
export function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

export const median = (values) => quantile(values, 0.5);
