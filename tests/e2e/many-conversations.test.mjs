// More conversations than one page of the sidebar, in the real window: 620 conversations
// (as after importing a long ChatGPT history) are all reachable by scrolling the sidebar —
// the oldest included, which lies past the first page of 500 the backend sends — and the
// oldest opens with its messages.
//
//   scripts/with-desktop-session.sh node --test tests/e2e/many-conversations.test.mjs
//
// The conversations are written by the `seed_scale` example (the same store and schema the
// app uses, two messages each). No provider is needed.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, afterEach, before, describe, test } from 'node:test';

import { startAppSession } from './lib/appSession.mjs';
import { REPO_ROOT, waitFor } from './lib/webdriver.mjs';

const SEED_BIN = process.env.SEED_SCALE_BIN ?? resolve(REPO_ROOT, 'target', 'debug', 'examples', 'seed_scale');
const CONVERSATIONS = 620;
/** seed_scale's keys: scale-00000 is the oldest. */
const OLDEST = 'scale-00000';

describe('Lango desktop: more conversations than a page', () => {
  let app;
  let session;

  before(async () => {
    assert.ok(existsSync(SEED_BIN), `seed_scale not found: ${SEED_BIN} (cargo build -p lango-core --example seed_scale)`);
    // Seeded before the app's first start; no provider is needed.
    app = await startAppSession('many', (root) => {
      execFileSync(SEED_BIN, [join(root, 'lango-home'), String(CONVERSATIONS), '2'], { stdio: 'ignore' });
      return {};
    });
    session = app.session;
  });

  afterEach(async (t) => {
    if (session?.id) await session.screenshot(`many ${t.name}`);
  });

  after(async () => {
    await app?.close();
  });

  const rows = () => session.execute(`return document.querySelectorAll('.session-item').length;`);

  test('scrolling the sidebar to its end lists every conversation, the oldest past the first page too', async () => {
    await session.waitForElement('.session-item', 20_000);
    const first = await rows();
    assert.ok(first < 500, `a page of rows renders first, not all loaded ones (${first})`);
    // Scroll to the end until nothing more comes: the rows page in 50 at a time, and past the
    // 500th the backend's next page.
    await waitFor(
      async () => {
        await session.execute(`const s = document.querySelector('.sessions-scroll'); s.scrollTop = s.scrollHeight;`);
        return (await rows()) === CONVERSATIONS && !(await session.execute(`return !!document.querySelector('.more-rows');`));
      },
      { timeout: 60_000, interval: 200, what: `all ${CONVERSATIONS} conversations listed` },
    );
    const keys = await session.execute(`return Array.from(document.querySelectorAll('.session-item')).map((li) => li.dataset.key);`);
    assert.equal(new Set(keys).size, CONVERSATIONS, 'each conversation once');
    assert.equal(keys.at(-1), OLDEST, 'the oldest last');
  });

  test('the oldest conversation opens with its messages', async () => {
    await session.execute(`document.querySelector(arguments[0]).scrollIntoView();`, [`.session-item[data-key="${OLDEST}"]`]);
    await session.clickCss(`.session-item[data-key="${OLDEST}"] .session-main`);
    await waitFor(async () => (await session.execute(`return document.querySelectorAll('#message-list .message').length;`)) === 2, {
      timeout: 15_000,
      what: 'its two messages',
    });
  });
});
