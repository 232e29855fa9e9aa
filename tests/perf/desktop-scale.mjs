// The desktop app on the 1,000 × 1,000-message database against the 1-conversation one,
// side by side in one run (`make bench-scale` prints these rows in its table):
//   - cold start → interactive sidebar: from the app process's start until the shell shows
//     the backend's status and the sidebar lists conversations;
//   - sidebar first paint: from the process start until the first conversation row is there;
//   - opening a conversation (1,000 messages): the click → its first message painted;
//   - send → first partial: the first streamed words of a reply on screen (fake provider);
//   - peak memory of the app's own process (VmHWM) over the run.
// Runs alternate between the two databases, each a cold start with its own WebDriver, and
// each the day's first start: daily backups on (the default) and today's copy removed
// before it, so a start that has the backup to take (a 400 MB check and copy at 1M) is what
// is measured.
//
// Environment: APP_BIN, FAKE_PROVIDER_BIN, SCALE_ONE and SCALE_BIG (the seeded data
// folders; their settings.json is rewritten to point at the fake provider, memory off so the
// seeded data stays as it is), DESKTOP_RUNS (cold starts each, default 5). Prints one JSON
// line per database for scripts/bench-scale.sh. A measurement: it never fails on a figure.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { DEFAULT_APP_BIN, Session, startDriver, waitFor } from '../e2e/lib/webdriver.mjs';
import { startFakeProvider } from '../e2e/lib/fakeProvider.mjs';
import { pidOf, processAgeMs, quantile } from './lib/proc.mjs';
import { clickAndTimeFirstMessage } from './lib/paint.mjs';
import { sendAndWait } from './lib/send.mjs';

const APP_BIN = process.env.APP_BIN ?? DEFAULT_APP_BIN;
const RUNS = Number(process.env.DESKTOP_RUNS ?? 5);
const FOLDERS = { one: process.env.SCALE_ONE, big: process.env.SCALE_BIG };
const REPLY = 'Noted, the tiles arrive on Tuesday and the plumber comes on Thursday.';

const tmp = mkdtempSync(join(tmpdir(), 'lango-scale-'));
const dir = (n) => {
  const d = join(tmp, n);
  mkdirSync(d, { recursive: true });
  return d;
};
const fake = await startFakeProvider({ turns: [{ type: 'text', chunks: REPLY.split(/(?<=,)/) }] }, tmp);
for (const folder of Object.values(FOLDERS)) {
  writeFileSync(
    join(folder, 'settings.json'),
    JSON.stringify({
      providers: { fake: { type: 'openai-compatible', baseUrl: `${fake.url}/v1`, defaultModel: 'fake-model' } },
      agent: { provider: 'fake' },
      observationalMemory: { enabled: false },
      backups: { daily: true },
    }),
  );
}

/** Today's daily backup in `folder` (the app names it by the local date). */
function todaysBackup(folder) {
  const d = new Date();
  const two = (n) => String(n).padStart(2, '0');
  return join(folder, 'backups', `lango-${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}-daily.db`);
}

/** Peak resident memory of `pid` so far (kB). */
const peakKb = (pid) => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);

/** One cold start on `folder`: sidebar, interactive, open the newest conversation, send. */
async function run(folder, i) {
  rmSync(todaysBackup(folder), { force: true });
  const driver = await startDriver({
    env: {
      LANGO_HOME: folder,
      LANGO_FAKE_API_KEY: 'sk-scale',
      XDG_DATA_HOME: dir(`data-${i}`),
      XDG_CACHE_HOME: dir(`cache-${i}`),
      XDG_CONFIG_HOME: dir(`config-${i}`),
    },
  });
  try {
    const session = await Session.create(driver.url, { binary: APP_BIN });
    const pid = pidOf(APP_BIN);
    // Both moments on the process's clock: polled every 10 ms (/proc counts in 10 ms ticks).
    const seen = { sidebar: null, interactive: null };
    await waitFor(
      async () => {
        const s = await session.execute(
          `return { rows: document.querySelectorAll('.session-item').length,
                    status: (document.querySelector('#app-version')?.textContent ?? '').trim().length };`,
        );
        const age = processAgeMs(pid);
        if (s.rows > 0 && seen.sidebar === null) seen.sidebar = age;
        if (s.rows > 0 && s.status > 0) seen.interactive = age;
        return seen.interactive !== null;
      },
      { timeout: 60_000, interval: 10, what: 'the sidebar' },
    );
    const openMs = await clickAndTimeFirstMessage(session, '.session-item .session-main');
    await session.waitForElement('#composer-input:not([disabled])', 30_000);
    const sent = await sendAndWait(session, `Run ${i}: where are the tiles?`);
    const peak = peakKb(pid);
    await session.delete().catch(() => {});
    return { coldMs: seen.interactive, sidebarMs: seen.sidebar, openMs, firstPartialMs: sent.first, peakKb: peak };
  } finally {
    await driver.stop();
  }
}

try {
  const runs = { one: [], big: [] };
  for (let i = 0; i < RUNS; i++) {
    // Alternate which goes first, so neither always starts on the other's warm caches.
    for (const db of i % 2 ? ['big', 'one'] : ['one', 'big']) {
      const r = await run(FOLDERS[db], `${db}-${i}`);
      runs[db].push(r);
      console.error(
        `  desktop run ${i + 1} ${db.padEnd(3)}: interactive ${r.coldMs.toFixed(0)} ms, sidebar ${r.sidebarMs.toFixed(0)} ms,` +
          ` open ${r.openMs.toFixed(0)} ms, first partial ${r.firstPartialMs.toFixed(0)} ms`,
      );
    }
  }
  const summary = (db) => {
    const of = (k) => runs[db].map((r) => r[k]);
    const stat = (k) => ({ p50: quantile(of(k), 0.5), p95: quantile(of(k), 0.95) });
    return {
      db,
      cold: stat('coldMs'),
      sidebar: stat('sidebarMs'),
      open: stat('openMs'),
      firstPartial: stat('firstPartialMs'),
      peakKb: Math.max(...of('peakKb')),
    };
  };
  console.log(JSON.stringify(summary('one')));
  console.log(JSON.stringify(summary('big')));
} finally {
  fake.stop();
  rmSync(tmp, { recursive: true, force: true });
}
