// Desktop soak: the app kept open through 500 streamed replies (SOAK_REPLIES) in one
// conversation with the memory on, against the fake provider (crates/lango-testkit), and
// prints memory and latency at the start and at the end:
//   - memory of the app and its WebKit processes (PSS and RSS sums) and of the app's own
//     process, sampled every 10 replies: the median of the samples over the 100 replies
//     after reply 50 (the caches filled: "start") against the median over the last 100;
//     goal: growth ≤ 10 %. Medians, not single samples: the web process's JavaScript heap
//     rises and falls by ~30 MB between collections, so one sample at reply 50 put the same
//     build's growth anywhere from 2 to 19 %;
//   - send → first streamed words and send → reply stored (the composer ready again), timed
//     inside the page, p50 and p95 of the first and the last 100 replies; goal: p95 flat
//     (last / first ≤ 1.10).
// Replies are short (one sentence, no delay), so 500 take a few minutes.
//
// Run through scripts/soak.sh (`make soak`: builds, starts Xvfb). Environment: APP_BIN,
// FAKE_PROVIDER_BIN. A measurement, not a test: it prints and never fails on a missed goal.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { DEFAULT_APP_BIN, Session, startDriver } from '../e2e/lib/webdriver.mjs';
import { startFakeProvider } from '../e2e/lib/fakeProvider.mjs';
import { mb, median, pidOf, processMemoryKb, quantile, treeMemoryKb } from './lib/proc.mjs';
import { sendAndWait } from './lib/send.mjs';

const APP_BIN = process.env.APP_BIN ?? DEFAULT_APP_BIN;
const REPLIES = Number(process.env.SOAK_REPLIES ?? 500);
const WARMUP = 50;
const WINDOW = 100;
/** Memory is sampled after every this many replies. */
const SAMPLE_EVERY = 10;
const REPLY = 'Noted, the tiles arrive on Tuesday and the plumber comes on Thursday.';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const tmp = mkdtempSync(join(tmpdir(), 'lango-soak-'));
const dir = (n) => {
  const d = join(tmp, n);
  mkdirSync(d, { recursive: true });
  return d;
};
const home = dir('home');
const fake = await startFakeProvider({ turns: [{ type: 'text', chunks: REPLY.split(/(?<=,)/) }] }, tmp);
writeFileSync(
  join(home, 'settings.json'),
  JSON.stringify({
    providers: { fake: { type: 'openai-compatible', baseUrl: `${fake.url}/v1`, defaultModel: 'fake-model' } },
    agent: { provider: 'fake' },
    observationalMemory: { enabled: true },
  }),
);
const driver = await startDriver({
  env: {
    LANGO_HOME: home,
    LANGO_FAKE_API_KEY: 'sk-soak',
    XDG_DATA_HOME: dir('data'),
    XDG_CACHE_HOME: dir('cache'),
    XDG_CONFIG_HOME: dir('config'),
  },
});

function memoryNow() {
  const pid = pidOf(APP_BIN);
  if (!pid) return null;
  return { tree: treeMemoryKb(pid), own: processMemoryKb(pid) };
}

const fmt = (ms) => `${ms.toFixed(1)} ms`;

try {
  const session = await Session.create(driver.url, { binary: APP_BIN });
  await session.waitForElement('#composer-input:not([disabled])', 30_000);
  await sleep(2000);
  const atOpen = memoryNow();
  const samples = [];
  /** Memory samples: { reply, m }. */
  const memory = [];
  const started = Date.now();
  for (let i = 0; i < REPLIES; i++) {
    samples.push(await sendAndWait(session, `Reply ${i + 1}: please note the tiles and the plumber.`));
    if (i + 1 >= WARMUP && (i + 1) % SAMPLE_EVERY === 0) memory.push({ reply: i + 1, m: memoryNow() });
    if ((i + 1) % 100 === 0) {
      const m = memory.at(-1).m;
      console.log(
        `  reply ${String(i + 1).padStart(4)}: PSS ${mb(m.tree.pss)}, RSS sum ${mb(m.tree.rss)}, app process private ${mb(m.own.private)}; ${((Date.now() - started) / 1000).toFixed(0)} s`,
      );
    }
  }
  const startWindow = memory.filter((x) => x.reply > WARMUP && x.reply <= WARMUP + WINDOW).map((x) => x.m);
  const endWindow = memory.filter((x) => x.reply > REPLIES - WINDOW).map((x) => x.m);
  const chats = fake.chatRequests().length;

  console.log(`\nLango desktop soak: ${REPLIES} streamed replies in one conversation, memory on (${APP_BIN})`);
  console.log(
    `  ${((Date.now() - started) / 1000).toFixed(0)} s; ${chats} model requests (chat and memory);` +
      ` memory when the window opened: PSS ${mb(atOpen.tree.pss)}, RSS sum ${mb(atOpen.tree.rss)}`,
  );
  const growth = (a, b) => b / a - 1;
  console.log(
    `  memory: medians of ${startWindow.length} samples over replies ${WARMUP + 1}-${WARMUP + WINDOW}` +
      ` and of ${endWindow.length} over replies ${REPLIES - WINDOW + 1}-${REPLIES}`,
  );
  for (const [name, pick] of [
    ['PSS, app + WebKit processes', (m) => m.tree.pss],
    ['RSS sum, app + WebKit processes', (m) => m.tree.rss],
    ["private, the app's own process", (m) => m.own.private],
  ]) {
    const first = median(startWindow.map(pick));
    const last = median(endWindow.map(pick));
    const all = endWindow.concat(startWindow).map(pick);
    const g = growth(first, last);
    console.log(
      `  ${name.padEnd(32)} start ${mb(first).padStart(7)} -> end ${mb(last).padStart(7)}` +
        ` (samples ${mb(Math.min(...all))}-${mb(Math.max(...all))}):` +
        ` growth ${(g * 100).toFixed(1).padStart(5)} % (goal ≤ 10 %) ${g <= 0.1 ? 'met' : 'MISSED'}`,
    );
  }
  for (const key of ['first', 'done']) {
    const xs = samples.map((s) => s[key]);
    const head = xs.slice(0, WINDOW);
    const tail = xs.slice(-WINDOW);
    const ratio = quantile(tail, 0.95) / quantile(head, 0.95);
    const label = key === 'first' ? 'send → first words' : 'send → reply stored';
    console.log(
      `  ${label.padEnd(20)} first ${WINDOW}: p50 ${fmt(quantile(head, 0.5))} p95 ${fmt(quantile(head, 0.95))};` +
        ` last ${WINDOW}: p50 ${fmt(quantile(tail, 0.5))} p95 ${fmt(quantile(tail, 0.95))};` +
        ` p95 last / first ${ratio.toFixed(2)} (goal ≤ 1.10) ${ratio <= 1.1 ? 'met' : 'MISSED'}`,
    );
  }
  await session.delete().catch(() => {});
} finally {
  await driver.stop();
  fake.stop();
  rmSync(tmp, { recursive: true, force: true });
}
