// The desktop app's main flows, end to end: the real window (Tauri + WebKitGTK) driven over
// WebDriver under Xvfb, the real engine and SQLite file, a real OS keychain (gnome-keyring in
// the test's D-Bus session), and `lango-fake-provider` speaking OpenAI's wire format on
// loopback. One app, one conversation, steps in order — the way a user goes through them.
//
//   make test   (or: scripts/with-desktop-session.sh node --test tests/e2e/desktop.test.mjs)
//
// Each step leaves a screenshot in tests/e2e/screenshots/.

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, test } from 'node:test';

import { ARTIFACT_DIR, DEFAULT_APP_BIN, Session, startDriver, waitFor } from './lib/webdriver.mjs';
import { startFakeProvider } from './lib/fakeProvider.mjs';

const APP_BIN = process.env.APP_BIN ?? DEFAULT_APP_BIN;
const API_KEY = 'sk-e2e-keychain-0123456789abcdef';
const MEMORY_NOTE = 'The user is testing the memory of Lango with a fake provider.';

const SCRIPT = {
  turns: [
    { type: 'text', chunks: ['Hello from the fake provider! ', 'Streaming ', 'works', '.'], delay_ms: 150 },
    { type: 'stall', chunks: ['This reply will be stop'], stall_ms: 120000 },
    { type: 'text', chunks: ['A regenerated answer.'] },
    {
      type: 'text',
      chunks: [
        'Careful: <script>window.__xss = 1</script><img src="x" onerror="window.__xss = 2"> ',
        '[click me](javascript:window.__xss=3) <a href="javascript:window.__xss=4">link</a> ',
        '<svg onload="window.__xss=5"></svg> **bold text**',
      ],
    },
    // Everything after this (more chat and the memory's own observer/reflector calls).
    { type: 'text', chunks: [MEMORY_NOTE] },
  ],
  models: ['fake-model', 'fake-model-large'],
  require_key: API_KEY,
};

describe('Lango desktop: provider, chat, stop, regenerate, sessions, memory, settings', () => {
  let tmpRoot;
  let langoHome;
  let exportDir;
  let env;
  let driver;
  let session;
  let fake;

  const assistantMessages = () => session.findAll('.message[data-role="assistant"]');
  const lastAssistantText = async () => {
    const all = await assistantMessages();
    return all.length ? session.text(all[all.length - 1]) : '';
  };

  async function openApp() {
    session = await Session.create(driver.url, { binary: APP_BIN });
    await session.waitForElement('#app-shell', 20_000);
  }

  async function sendMessage(text) {
    await session.fill('#composer-input', text);
    await session.clickCss('#send-button');
  }

  async function waitIdle() {
    await session.waitForElement('#send-button', 30_000);
    await session.waitForAbsent('#stop-button', 30_000);
  }

  before(async () => {
    assert.ok(existsSync(APP_BIN), `app binary not found: ${APP_BIN}`);
    tmpRoot = mkdtempSync(join(tmpdir(), 'lango-e2e-desktop-'));
    langoHome = join(tmpRoot, 'lango-home');
    exportDir = join(tmpRoot, 'exports');
    const xdg = (name) => {
      const dir = join(tmpRoot, name);
      mkdirSync(dir, { recursive: true });
      return dir;
    };
    fake = await startFakeProvider(SCRIPT, tmpRoot);
    env = {
      LANGO_HOME: langoHome,
      LANGO_EXPORT_DIR: exportDir,
      XDG_DATA_HOME: xdg('data'),
      XDG_CACHE_HOME: xdg('cache'),
      XDG_CONFIG_HOME: xdg('config'),
    };
    driver = await startDriver({ env, logFile: join(ARTIFACT_DIR, 'webkitwebdriver-desktop.log') });
    await openApp();
  });

  afterEach(async (t) => {
    if (session?.id) await session.screenshot(`desktop ${t.name}`);
  });

  after(async () => {
    await session?.delete().catch(() => {});
    await driver?.stop();
    fake?.stop();
    if (tmpRoot) rmSync(tmpRoot, { recursive: true, force: true });
  });

  test('add a provider with its key in the OS keychain', async () => {
    await session.clickCss('#nav-settings');
    await session.clickCss('#add-provider');
    await session.fill('#provider-id', 'fake');
    await session.selectValue('#provider-type', 'openai-compatible');
    await session.fill('#provider-base-url', `${fake.url}/v1`);
    await session.fill('#provider-api-key', API_KEY);
    await session.clickCss('#test-connection');
    await session.waitForText('.model-list', (t) => t.includes('fake-model-large'), 15_000);
    await session.clickCss('#save-provider');
    await session.waitForText('.key-location', (t) => /keychain/i.test(t), 15_000);
    // The key field is cleared once the key is stored.
    assert.equal(await session.execute('return document.querySelector("#provider-api-key")?.value ?? ""'), '');
  });

  test('pick a model and chat with a streaming reply', async () => {
    await session.clickCss('#nav-chat');
    await session.waitForElement('#composer-input:not([disabled])', 15_000);
    // The picker is enabled once the conversation's settings have loaded.
    await session.waitForElement('#model-picker:not([disabled])');
    await session.clickCss('#model-picker');
    await waitFor(
      async () => (await session.findAll('#model-picker option[value="fake-model-large"]')).length > 0,
      { what: 'the model list in the picker' },
    );
    await session.selectValue('#model-picker', 'fake-model');
    await sendMessage('Hello Lango, please stream something.');
    // Mid-stream: the stop button is there and the reply grows.
    await session.waitForElement('#stop-button', 10_000);
    await waitFor(async () => (await lastAssistantText()).includes('Hello from the fake provider'), {
      what: 'the first streamed words',
    });
    await waitIdle();
    await waitFor(async () => (await lastAssistantText()).includes('Streaming works.'), { what: 'the full reply' });
    const sent = await fake.lastChatRequestShowing(/Hello Lango, please stream something/);
    assert.equal(sent.model, 'fake-model');
    assert.equal(sent.stream, true);
    // The picker keeps showing the chosen model after the view is left and opened again.
    await session.clickCss('#nav-settings');
    await session.clickCss('#nav-chat');
    await waitFor(
      async () => (await session.execute('return document.querySelector("#model-picker")?.value')) === 'fake-model',
      { what: 'the picked model to stay selected' },
    );
  });

  test('stop mid-reply keeps the partial reply and closes the connection', async () => {
    await sendMessage('Write me a very long essay.');
    await waitFor(async () => (await lastAssistantText()).includes('This reply will be stop'), {
      what: 'the partial reply',
    });
    await session.clickCss('#stop-button');
    await session.waitForElement('.message[data-role="assistant"][data-status="interrupted"]', 10_000);
    assert.match(await lastAssistantText(), /This reply will be stop/);
    await waitFor(() => fake.closedEarly >= 1, { what: 'the provider to see the connection close' });
    await waitIdle();
  });

  test('regenerate replaces the stopped reply', async () => {
    await session.clickCss('#regenerate-button');
    await waitFor(async () => (await lastAssistantText()).includes('A regenerated answer.'), {
      what: 'the regenerated reply',
      timeout: 15_000,
    });
    await waitIdle();
    assert.equal(await session.exists('.message[data-status="interrupted"]'), false);
  });

  test('a reply with XSS payloads renders as text and runs nothing', async () => {
    await sendMessage('Show me some HTML.');
    await waitFor(async () => (await lastAssistantText()).includes('bold text'), { what: 'the HTML reply' });
    await waitIdle();
    const xss = await session.execute('return window.__xss ?? null');
    assert.equal(xss, null, 'a payload ran');
    assert.equal(await session.exists('.message img[onerror]'), false);
    assert.equal(await session.exists('.message svg[onload]'), false);
    assert.equal(await session.exists('.message script'), false);
    assert.equal(await session.exists('.message a[href^="javascript"]'), false);
    assert.equal(await session.exists('.message strong'), true, 'Markdown still renders');
  });

  test('search finds the conversation; rename and export it', async () => {
    await session.fill('#session-search', 'regenerated');
    await session.waitForText('.search-hit', (t) => t.includes('regenerated'), 10_000);
    await session.clickCss('.search-hit');
    await session.fill('#session-search', '');

    await session.clickCss('.session-item[aria-current="true"] button.menu-button');
    await session.clickCss('button[aria-label="Rename"]');
    const input = await session.fill('#rename-input', 'Renamed by e2e');
    await session.type(input, '\uE007'); // Enter
    await session.waitForText('.session-item[aria-current="true"]', (t) => t.includes('Renamed by e2e'));

    await session.clickCss('.session-item[aria-current="true"] button.menu-button');
    await session.clickCss('button[aria-label="Export as Markdown"]');
    const toast = await session.waitForText('#toast .text', (t) => t.includes('Exported to'));
    const path = toast.slice(toast.indexOf('Exported to') + 'Exported to'.length).trim();
    const exported = readFileSync(path, 'utf8');
    assert.match(exported, /A regenerated answer\./);
    assert.ok(!exported.includes(API_KEY), 'the export contains the API key');
  });

  test('the API key is not in the database, the settings or the webview storage', async () => {
    for (const file of ['lango.db', 'settings.json']) {
      const bytes = readFileSync(join(langoHome, file));
      assert.ok(!bytes.includes(API_KEY), `${file} contains the API key`);
    }
    const storage = await session.execute(
      'return JSON.stringify({l: Object.entries(localStorage), s: Object.entries(sessionStorage)})',
    );
    assert.ok(!storage.includes(API_KEY), 'webview storage contains the API key');
  });

  test('with low thresholds, observations and a reflection appear and the inspector shows memory', async () => {
    await session.clickCss('#nav-settings');
    const enabled = await session.waitForElement('#memory-enabled');
    if ((await session.execute('return document.querySelector("#memory-enabled").checked')) !== true) {
      await session.click(enabled);
    }
    await session.fill('#om-messageTokenThreshold', '30');
    await session.fill('#om-observationTokenThreshold', '25');
    await session.waitForAbsent('.field-error');
    await session.clickCss('#save-settings');
    await session.waitForText('#settings-saved', (t) => /saved/i.test(t));

    // Chat until the memory browser shows an observation, then on until it shows a reflection
    // (each reflection condenses the observations before it, so both are checked as they land).
    const MAX_TURNS = 12;
    let turn = 0;
    const chatTurn = async () => {
      turn += 1;
      await session.clickCss('#nav-chat');
      await session.waitForElement('#composer-input:not([disabled])', 15_000);
      await sendMessage(`Turn ${turn}: I am planning a trip to Lisbon and I love grilled sardines.`);
      await waitIdle();
    };
    /** One turn at a time until the memory browser shows `css`; false after MAX_TURNS. */
    const chatUntilMemoryShows = async (css) => {
      while (turn < MAX_TURNS) {
        await chatTurn();
        await session.clickCss('#nav-memory');
        if (await session.waitForElement(css, 8_000).then(() => true, () => false)) return true;
      }
      return false;
    };
    assert.ok(
      await chatUntilMemoryShows('.observation-item'),
      `no observation in the memory browser after ${turn} turns`,
    );
    assert.match(await session.text(await session.find('.observation-item')), /testing the memory of Lango/);
    await session.screenshot('desktop memory browser with an observation');

    assert.ok(
      await chatUntilMemoryShows('.reflection-item'),
      `no reflection in the memory browser after ${turn} turns`,
    );
    assert.match(await session.text(await session.find('.reflection-item')), /testing the memory of Lango/);
    await session.clickCss('#inspector-tab');
    await session.waitForText('#inspector-system-prompt', (t) => t.includes('## Conversation Memory'), 15_000);
    assert.ok(await session.exists('.section-row[data-name="memory"]'));
  });

  test('a threshold changed in settings is kept after a restart', async () => {
    await session.delete();
    await openApp();
    await session.clickCss('#nav-settings');
    await waitFor(
      async () => (await session.execute('return document.querySelector("#om-messageTokenThreshold")?.value')) === '30',
      { what: 'the saved threshold after restart' },
    );
    assert.equal(await session.execute('return document.querySelector("#memory-enabled").checked'), true);
  });

  test('delete a conversation after confirming', async () => {
    await session.waitForElement('.session-item');
    const before = (await session.findAll('.session-item')).length;
    await session.clickCss('.session-item button.menu-button');
    await session.clickCss('button[aria-label="Delete"]');
    await session.waitForElement('#confirm-dialog');
    await session.clickCss('#confirm-delete');
    await waitFor(async () => (await session.findAll('.session-item')).length === before - 1, {
      what: 'the conversation to leave the list',
    });
  });

  test('a conversation stays readable after its provider is removed', async () => {
    await session.clickCss('#new-chat');
    await session.waitForElement('#composer-input:not([disabled])', 15_000);
    await sendMessage('Remember this conversation, please.');
    await waitIdle();

    await session.clickCss('#nav-settings');
    await session.clickCss('button[aria-label="Remove fake"]');
    await session.clickCss('#confirm-remove-provider');
    await session.waitForAbsent('button[aria-label="Remove fake"]');

    await session.clickCss('#nav-chat');
    await session.waitForText('.message[data-role="user"]', (t) => t.includes('Remember this conversation'));
    assert.equal(await session.exists('#chat-empty-title'), false, 'the first-run guide hides the conversation');
    const composer = await session.find('#composer-input');
    assert.equal(await session.attribute(composer, 'disabled'), 'true');
    assert.match(await session.attribute(composer, 'placeholder'), /continue this conversation/);
  });
});
