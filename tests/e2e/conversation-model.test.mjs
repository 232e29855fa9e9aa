// Each conversation's own model in the real window: the composer's picker switches this
// conversation to another provider's model (and a new one starts from the defaults), every
// reply says which model wrote it with its tokens and cost, Conversation settings' system
// prompt reaches only its conversation's requests, and Regenerate can use another model once.
//
//   scripts/with-desktop-session.sh node --test tests/e2e/conversation-model.test.mjs
//
// Two `lango-fake-provider` servers on loopback stand for two providers (keyless local
// servers), each with its own model list.

import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, afterEach, before, describe, test } from 'node:test';

import { startAppSession } from './lib/appSession.mjs';
import { DEFAULT_APP_BIN, waitFor } from './lib/webdriver.mjs';
import { startFakeProvider } from './lib/fakeProvider.mjs';

const APP_BIN = process.env.APP_BIN ?? DEFAULT_APP_BIN;

const LOCAL_SCRIPT = {
  turns: [{ type: 'text', chunks: ['Answer from the local model.'] }],
  models: ['fake-model'],
};
const OTHER_SCRIPT = {
  turns: [{ type: 'text', chunks: ['Answer from the other provider.'] }],
  models: ['other-large', 'other-small'],
};

describe('Lango desktop: each conversation keeps its own model', () => {
  let app;
  let session;
  let local;
  let other;

  async function send(text) {
    await waitFor(() => session.execute(`const c = document.getElementById('composer-input'); return !!c && !c.disabled && !c.readOnly;`), {
      what: 'the composer to be enabled',
    });
    await session.fill('#composer-input', text);
    await session.clickCss('#send-button');
  }

  async function waitIdle() {
    await session.waitForElement('#send-button', 30_000);
    await session.waitForAbsent('#stop-button', 30_000);
  }

  /** The reply line under the newest assistant message ("model · n in · n out · $…"). */
  function lastReplyInfo() {
    return session.execute(
      `const m = Array.from(document.querySelectorAll('.message[data-role="assistant"]')).at(-1);
       return m?.querySelector('[data-testid="reply-info"]')?.textContent ?? null;`,
    );
  }

  function pickerValue() {
    return session.execute('return document.querySelector("#model-picker")?.value ?? null');
  }

  /** Opens the picker's lists (they load when it is focused) and picks `model`. */
  async function pick(model) {
    // The picker is enabled once the conversation's settings have loaded.
    await session.waitForElement('#model-picker:not([disabled])');
    await session.clickCss('#model-picker');
    await waitFor(async () => (await session.findAll(`#model-picker option[value="${model}"]`)).length > 0, {
      what: `${model} in the picker`,
      timeout: 15_000,
    }).catch(async (e) => {
      const html = await session.execute('const p = document.querySelector("#model-picker"); return p ? [p.disabled, p.outerHTML] : null');
      throw new Error(`${e.message}; the picker: ${JSON.stringify(html)}`);
    });
    // Close the native popup the click opened (a user's pick closes it), then pick.
    await session.type(await session.find('#model-picker'), '\uE00C');
    await session.selectValue('#model-picker', model);
    await waitFor(async () => (await pickerValue()) === model, { what: `${model} to stay picked` });
  }

  before(async () => {
    assert.ok(existsSync(APP_BIN), `app binary not found: ${APP_BIN}`);
    app = await startAppSession('model', async (root) => {
      mkdirSync(join(root, 'local'));
      mkdirSync(join(root, 'other'));
      local = await startFakeProvider(LOCAL_SCRIPT, join(root, 'local'));
      other = await startFakeProvider(OTHER_SCRIPT, join(root, 'other'));
      return {
        providers: {
          local: { type: 'openai-compatible', baseUrl: `${local.url}/v1`, defaultModel: 'fake-model' },
          other: { type: 'openai-compatible', baseUrl: `${other.url}/v1`, defaultModel: 'other-small' },
        },
        agent: { provider: 'local', systemPrompt: 'The default prompt.' },
        // Dear on purpose, so a reply of a few tokens shows a cost in whole cents.
        prices: { 'other-large': { input: 10000, output: 20000 } },
      };
    });
    session = app.session;
  });

  afterEach(async (t) => {
    if (session?.id) await session.screenshot(`model ${t.name}`);
  });

  after(async () => {
    await app?.close();
    local?.stop();
    other?.stop();
  });

  test("the composer's picker moves this conversation to another provider and the reply says so", async () => {
    await session.clickCss('#new-chat');
    await pick('other-large');
    await send('Which model are you?');
    await waitIdle();
    await waitFor(async () => other.chatRequests().length === 1, { what: 'the other provider to be asked' });
    assert.equal(other.chatRequests()[0].model, 'other-large');
    assert.equal(local.chatRequests().length, 0, 'the default provider was not asked');
    const info = await waitFor(lastReplyInfo, { what: 'the reply line' });
    assert.match(info, /other-large/);
    assert.match(info, /\d+ in/);
    assert.match(info, /\d+ out/);
    assert.match(info, /\$\d/, `a cost from the prices in Settings: ${info}`);
    // The picker still shows the conversation's model after the turn.
    await waitFor(async () => (await pickerValue()) === 'other-large', { what: 'the picker to keep other-large' });
    const shown = await session.execute('const p = document.querySelector("#model-picker"); return p.options[p.selectedIndex]?.textContent ?? null');
    assert.equal(shown, 'other-large');
  });

  test('a new conversation starts from the defaults and its reply names the default model', async () => {
    await session.clickCss('#new-chat');
    await waitFor(async () => (await pickerValue()) !== 'other-large', { what: 'the picker to show the default' });
    await send('And you?');
    await waitIdle();
    await waitFor(() => local.chatRequests().length === 1, { what: 'the default provider to be asked' });
    assert.equal(local.chatRequests()[0].model, 'fake-model');
    const info = await waitFor(lastReplyInfo, { what: 'the reply line' });
    assert.match(info, /fake-model/);
    assert.doesNotMatch(info, /\$/, 'no price, no cost shown');
  });

  test("conversation settings' system prompt reaches only this conversation's requests", async () => {
    await session.clickCss('#conversation-settings-button');
    await session.fill('#conversation-system-prompt', 'Answer like a pirate.');
    await session.clickCss('#conversation-settings-save');
    // The panel shows this conversation's usage so far.
    await session.waitForText('#conversation-usage', (t) => /\d/.test(t));
    await session.screenshot('model conversation settings panel');
    await session.execute(`document.querySelector('[aria-label="Close conversation settings"]')?.click();`);
    await send('Hello again');
    await waitIdle();
    await waitFor(() => local.chatRequests().length === 2, { what: 'the second request' });
    const sent = local.chatRequests()[1];
    assert.equal(sent.messages[0].role, 'system');
    assert.match(sent.messages[0].content, /^Answer like a pirate\./);
    assert.match(local.chatRequests()[0].messages[0].content, /^The default prompt\./);
  });

  test('regenerate with another model uses it for that reply only', async () => {
    await session.clickCss('#regenerate-with-button');
    await session.waitForElement('#regenerate-with-menu');
    const picked = await session.execute(
      `const item = Array.from(document.querySelectorAll('#regenerate-with-menu [role="menuitem"]'))
         .find((b) => b.textContent.includes('other-small'));
       item?.click();
       return !!item;`,
    );
    assert.ok(picked, "the menu offers the other provider's default model");
    await waitFor(() => other.chatRequests().length === 2, { what: 'the regeneration to go to the other provider' });
    await waitIdle();
    await waitFor(async () => /other-small/.test((await lastReplyInfo()) ?? ''), { what: 'the regenerated reply to name its model' });
    assert.equal(other.chatRequests()[1].model, 'other-small');
    // The conversation itself keeps its own (default) model.
    await send('One more');
    await waitIdle();
    await waitFor(() => local.chatRequests().length === 3, { what: 'the next turn on the default provider' });
  });
});
