// A model served with a smaller context than Lango's budget for it, in the real window: the
// fake provider refuses a prompt over 1,500 tokens as llama.cpp's server does (HTTP 400
// exceed_context_size_error), Lango sends less history and every message is answered, the
// context meter shows the size that fit, and a message too long even alone gets a plain
// error card.
//
//   scripts/with-desktop-session.sh node --test tests/e2e/small-context.test.mjs

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, afterEach, before, describe, test } from 'node:test';

import { startAppSession } from './lib/appSession.mjs';
import { DEFAULT_APP_BIN, waitFor } from './lib/webdriver.mjs';
import { startFakeProvider } from './lib/fakeProvider.mjs';

const APP_BIN = process.env.APP_BIN ?? DEFAULT_APP_BIN;
const WINDOW = 1500;
/** The fake's count of a request's tokens (crates/lango-testkit: body bytes / 4). */
const promptTokens = (request) => Math.floor(Buffer.byteLength(request.body) / 4);

describe('Lango desktop: a model with a small context', () => {
  let app;
  let session;
  let fake;

  async function send(text) {
    await waitFor(() => session.execute(`const c = document.getElementById('composer-input'); return !!c && !c.disabled && !c.readOnly;`), {
      what: 'the composer to be enabled',
    });
    // Set at once: typing thousands of characters through WebDriver takes longer than a test.
    await session.execute(
      `const c = document.getElementById('composer-input');
       c.value = arguments[0];
       c.dispatchEvent(new Event('input', { bubbles: true }));`,
      [text],
    );
    await session.clickCss('#send-button');
    await waitFor(() => session.execute('return !!document.getElementById("stop-button") || !document.getElementById("composer-input").value'), {
      what: 'the message to go',
    });
    await session.waitForElement('#send-button', 30_000);
    await session.waitForAbsent('#stop-button', 30_000);
  }

  function meterText() {
    return session.execute(`return document.querySelector('#context-meter .text')?.textContent?.trim() ?? null`);
  }

  before(async () => {
    assert.ok(existsSync(APP_BIN), `app binary not found: ${APP_BIN}`);
    app = await startAppSession('small-context', async (root) => {
      fake = await startFakeProvider({ turns: [{ type: 'text', chunks: ['Noted.'] }], context_window: WINDOW }, root);
      return {
        providers: { local: { type: 'openai-compatible', baseUrl: `${fake.url}/v1`, defaultModel: 'smollm2' } },
        agent: { provider: 'local', maxTokens: 200 },
        observationalMemory: { enabled: false },
      };
    });
    session = app.session;
  });

  afterEach(async (t) => {
    if (session?.id) await session.screenshot(`small-context ${t.name}`);
  });

  after(async () => {
    await app?.close();
    fake?.stop();
  });

  test('every message of a conversation longer than the context is answered', async () => {
    for (let n = 1; n <= 14; n++) {
      await send(`Fact number ${n}: ${'the quick brown fox jumps over the lazy dog. '.repeat(9)}`);
      const answered = () => fake.requests.filter((r) => r.path.endsWith('/chat/completions') && promptTokens(r) <= WINDOW);
      await waitFor(() => answered().length === n, { what: `message ${n} answered (${answered().length})` });
      assert.ok(answered().at(-1).body.includes(`Fact number ${n}:`), `message ${n} was sent`);
      await waitFor(() => session.execute(`return document.body.innerText.split('Noted.').length > 1 && !document.getElementById('stop-button')`), {
        what: `reply ${n} shown`,
      });
    }
    const refused = fake.requests.filter((r) => r.path.endsWith('/chat/completions') && promptTokens(r) > WINDOW);
    assert.ok(refused.length >= 1 && refused.length <= 3, `${refused.length} refusals`);
    assert.equal(await session.execute('return document.querySelectorAll(".turn-error").length'), 0);
    // The meter shows the size that fit, not the 32,000 of a model of no known family.
    const meter = await meterText();
    const [, budget] = /\/\s*([\d,]+) tokens/.exec(meter ?? '') ?? [];
    assert.ok(budget && Number(budget.replace(/,/g, '')) < WINDOW, `meter: ${meter}`);
  });

  test('a message too long for the context even alone says so in plain words', async () => {
    await send('Please read this. '.repeat(500));
    const card = await waitFor(
      () => session.execute(`return document.querySelector('.turn-error')?.textContent ?? null`),
      { what: 'the error card' },
    );
    assert.match(card, /does not fit the model's context \(1500 tokens\)/);
    assert.match(card, /Settings → Tools/);
  });
});
