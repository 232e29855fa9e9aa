// How well a binary follows its start-up order file (src-tauri/startup-order.txt): how many
// of the functions the file lists the binary has, and how much of the binary they span. A
// Rust or dependency upgrade renames symbols; then fewer are found, the span grows, and the
// file wants regenerating (scripts/startup-order.sh). Also reads the callgrind profiles the file
// is made from. Linux only (reads the symbols with nm).

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

/**
 * The functions a callgrind profile ran in `object` (matched by file name), in the order the
 * profile first names them (roughly the order they first ran). Callgrind compresses names:
 * `fn=(12) name` the first time, `fn=(12)` after; objects likewise with `ob=`.
 */
export function functionsRunIn(profileText, object) {
  const objects = new Map();
  const names = new Map();
  const run = new Set(); // keeps the order its members were first added in
  let inObject = false;
  for (const line of profileText.split('\n')) {
    const m = /^(c?ob|c?fn)=\((\d+)\)(?: (.*))?$/.exec(line);
    if (!m) continue;
    const [, key, id, name] = m;
    if (key === 'ob' || key === 'cob') {
      if (name) objects.set(id, name);
      if (key === 'ob') inObject = basename(objects.get(id) ?? '') === object;
      continue;
    }
    if (name) names.set(id, name);
    if (key === 'fn' && inObject) {
      const fn = names.get(id);
      if (fn) run.add(fn);
    }
  }
  return [...run];
}

/** The function names an order file lists (one per line; `#` starts a comment). */
export function listedFunctions(orderText) {
  return orderText
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
}

/**
 * `{ listed, found, spanKb }`: of the functions `orderFile` lists, how many `binary` defines,
 * and the size of the address range they cover; null when `nm` cannot read the binary (a
 * stripped one, or no binutils).
 */
export function orderCoverage(binary, orderFile) {
  const listed = new Set(listedFunctions(readFileSync(orderFile, 'utf8')));
  let symbols;
  try {
    symbols = execFileSync('nm', ['-S', '--defined-only', binary], { maxBuffer: 1 << 28, encoding: 'utf8' });
  } catch {
    return null;
  }
  let low = Infinity;
  let high = 0;
  const found = new Set();
  for (const row of symbols.split('\n')) {
    const [addr, size, kind, name] = row.split(' ');
    if (!name || !/^[tTwW]$/.test(kind) || !listed.has(name)) continue;
    const start = parseInt(addr, 16);
    low = Math.min(low, start);
    high = Math.max(high, start + parseInt(size, 16));
    found.add(name);
  }
  return { listed: listed.size, found: found.size, spanKb: found.size ? (high - low) / 1024 : 0 };
}
