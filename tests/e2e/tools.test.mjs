// Tools in the real window: an MCP server from npm (@modelcontextprotocol/server-everything,
// run with node from tests/mcp-servers) configured in settings.json the way Claude Desktop
// users paste it, the fake provider asking for tool calls, and the user answering the
// approval card: Allow once, Deny, Always allow (saved to settings.json).
//
//   make test   (or: scripts/with-desktop-session.sh node --test tests/e2e/tools.test.mjs)

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, afterEach, before, describe, test } from 'node:test';

import { ARTIFACT_DIR, DEFAULT_APP_BIN, REPO_ROOT, Session, startDriver, waitFor } from './lib/webdriver.mjs';
import { startFakeProvider } from './lib/fakeProvider.mjs';

const APP_BIN = process.env.APP_BIN ?? DEFAULT_APP_BIN;
const EVERYTHING = resolve(
  REPO_ROOT,
  'tests/mcp-servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js',
);
const FAULT_SERVER = resolve(REPO_ROOT, 'tests/mcp-servers/fault-server.mjs');

/** Whether a process runs (and is not a zombie). */
function alive(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\s*Z/.test(stat.slice(stat.lastIndexOf(')') + 1));
  } catch {
    return false;
  }
}

const SCRIPT = {
  turns: [
    { type: 'tool_call', id: 'call_echo_1', name: 'everything__echo', arguments_json: '{"message":"from the window"}', then_text: 'The echo tool answered.' },
    { type: 'tool_call', id: 'call_sum_1', name: 'everything__get-sum', arguments_json: '{"a":2,"b":3}', then_text: 'I did not run it.' },
    { type: 'tool_call', id: 'call_echo_2', name: 'everything__echo', arguments_json: '{"message":"always"}', then_text: 'Allowed for good.' },
    { type: 'tool_call', id: 'call_echo_3', name: 'everything__echo', arguments_json: '{"message":"no card"}', then_text: 'Ran without asking.' },
    { type: 'tool_call', id: 'call_big_1', name: 'fault__big', arguments_json: '{"bytes":1000000}', then_text: 'Here is the big one.' },
    { type: 'stall', chunks: ['Half a reply, then the session logs out'], stall_ms: 120000 },
    { type: 'text', chunks: ['ok'] },
  ],
  models: ['fake-model'],
};

describe('Lango desktop: MCP tools behind the approval card', () => {
  let tmpRoot;
  let langoHome;
  let driver;
  let session;
  let fake;
  let faultLog;

  const lastAssistantText = async () => {
    const all = await session.findAll('.message[data-role="assistant"]');
    return all.length ? session.text(all[all.length - 1]) : '';
  };
  const cards = (status) => session.findAll(`[data-testid="tool-card"][data-status="${status}"]`);

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
    assert.ok(existsSync(EVERYTHING), 'MCP test servers missing: run scripts/install-mcp-test-servers.sh');
    tmpRoot = mkdtempSync(join(tmpdir(), 'lango-e2e-tools-'));
    langoHome = join(tmpRoot, 'lango-home');
    mkdirSync(langoHome, { recursive: true });
    const xdg = (name) => {
      const dir = join(tmpRoot, name);
      mkdirSync(dir, { recursive: true });
      return dir;
    };
    fake = await startFakeProvider(SCRIPT, tmpRoot);
    faultLog = join(tmpRoot, 'fault-server.log');
    writeFileSync(
      join(langoHome, 'settings.json'),
      JSON.stringify({
        providers: { fake: { type: 'openai-compatible', baseUrl: `${fake.url}/v1`, defaultModel: 'fake-model' } },
        agent: { provider: 'fake' },
        mcpServers: {
          everything: { command: 'node', args: [EVERYTHING, 'stdio'] },
          // Logs its pid, so the last test can check it does not outlive the app.
          fault: { command: 'node', args: [FAULT_SERVER], env: { FAULT_LOG: faultLog }, disabledTools: ['crash'], autoApprove: ['big'] },
        },
      }),
    );
    const env = {
      LANGO_HOME: langoHome,
      LANGO_FAKE_API_KEY: 'sk-e2e-tools',
      LANGO_EXPORT_DIR: join(tmpRoot, 'exports'),
      XDG_DATA_HOME: xdg('data'),
      XDG_CACHE_HOME: xdg('cache'),
      XDG_CONFIG_HOME: xdg('config'),
    };
    driver = await startDriver({ env, logFile: join(ARTIFACT_DIR, 'webkitwebdriver-tools.log') });
    session = await Session.create(driver.url, { binary: APP_BIN });
    await session.waitForElement('#app-shell', 20_000);
  });

  afterEach(async (t) => {
    if (session?.id) await session.screenshot(`tools ${t.name}`);
  });

  after(async () => {
    await session?.delete().catch(() => {});
    await driver?.stop();
    fake?.stop();
    if (tmpRoot) rmSync(tmpRoot, { recursive: true, force: true });
  });

  test('Settings → Tools shows the server ready with its tools', async () => {
    await session.clickCss('#nav-settings');
    await session.waitForElement('[data-testid="mcp-server"][data-name="everything"][data-state="ready"]', 30_000);
    await session.waitForText('#tools-section', (t) => t.includes('echo') && t.includes('get-sum'), 10_000);
    await session.execute('document.querySelector("#tools-section")?.scrollIntoView()');
    await session.screenshot('tools settings section');
    await session.clickCss('#nav-chat');
  });

  test('a tool call waits for the approval card; Allow once runs it', async () => {
    await session.waitForElement('#composer-input:not([disabled])', 15_000);
    await sendMessage('Please echo something.');
    const card = await session.waitForText(
      '[data-testid="tool-approval"]',
      (t) => t.includes('echo') && t.includes('from the window') && t.includes('everything'),
      20_000,
    );
    assert.ok(card);
    await session.screenshot('tools approval card');
    await session.clickCss('[data-testid="approve-once"]');
    await waitFor(async () => (await lastAssistantText()).includes('The echo tool answered.'), {
      what: 'the reply after the tool',
      timeout: 20_000,
    });
    await waitIdle();
    const done = await cards('done');
    assert.ok(done.length >= 1, 'no done tool card');
    assert.match(await session.text(done[done.length - 1]), /Echo: from the window/);
    assert.equal(await session.exists('[data-testid="tool-approval"]'), false);
    // The provider got the tool's result in its next request.
    await fake.lastChatRequestShowing(/Echo: from the window/);
  });

  test('Deny: the tool does not run, the model is told and answers', async () => {
    await sendMessage('Add two numbers.');
    await session.waitForText('[data-testid="tool-approval"]', (t) => t.includes('get-sum'), 20_000);
    await session.clickCss('[data-testid="approve-deny"]');
    await waitFor(async () => (await lastAssistantText()).includes('I did not run it.'), {
      what: 'the reply after the denial',
      timeout: 20_000,
    });
    await waitIdle();
    assert.ok((await cards('denied')).length >= 1, 'no denied tool card');
    await fake.lastChatRequestShowing(/The user denied this tool call/);
  });

  test('Always allow is saved and the next call runs without a card', async () => {
    await sendMessage('Echo again.');
    await session.waitForText('[data-testid="tool-approval"]', (t) => t.includes('always'), 20_000);
    await session.clickCss('[data-testid="approve-always"]');
    await waitFor(async () => (await lastAssistantText()).includes('Allowed for good.'), {
      what: 'the reply after always-allow',
      timeout: 20_000,
    });
    await waitIdle();
    const saved = JSON.parse(readFileSync(join(langoHome, 'settings.json'), 'utf8'));
    assert.deepEqual(saved.mcpServers.everything.autoApprove, ['echo']);

    await sendMessage('And once more.');
    await waitFor(async () => (await lastAssistantText()).includes('Ran without asking.'), {
      what: 'the reply without a card',
      timeout: 20_000,
    });
    await waitIdle();
    await fake.lastChatRequestShowing(/Echo: no card/);
  });

  test('What the model sees counts the tool definitions sent with every request', async () => {
    // Both servers ready first: the inspector shows what a request would carry now.
    await session.clickCss('#nav-settings');
    for (const name of ['everything', 'fault']) {
      await session.waitForElement(`[data-testid="mcp-server"][data-name="${name}"][data-state="ready"]`, 30_000);
    }
    await session.clickCss('#nav-memory');
    await session.clickCss('#inspector-tab');
    let row;
    try {
      row = await session.waitForText('#inspector-tools-row', (t) => /\d+ tools on offer, sent with every request/.test(t), 15_000);
    } catch (err) {
      const shown = await session.execute(`return document.querySelector('#inspector')?.innerText ?? document.body.innerText`);
      throw new Error(`${err.message}; the inspector showed: ${shown.slice(0, 1500)}`);
    }
    const tokens = Number(await session.execute(`return document.querySelector('#inspector-tools-row').dataset.tokens`));
    // Two servers' names, descriptions and JSON Schemas.
    assert.ok(tokens > 1_000, `${tokens} tokens: ${row}`);
    await session.execute(`document.querySelector('#inspector-sections').scrollIntoView()`);
    await session.screenshot('tools inspector counts tool definitions');
    await session.clickCss('#nav-chat');
    await session.waitForElement('#composer-input:not([disabled])', 15_000);
  });

  test('a 1 MB result (976.6 KB): the card shows its start, Show all reads up to 512 KB, and the whole result saves to a file', async () => {
    await sendMessage('Fetch the big one.');
    await waitFor(async () => (await lastAssistantText()).includes('Here is the big one.'), {
      what: 'the reply after the big result',
      timeout: 30_000,
    });
    await waitIdle();
    const card = '[data-testid="tool-card"][data-tool-id="call_big_1"]';
    const clickIn = (text) =>
      session.execute(
        `const b = [...document.querySelectorAll('${card} button')].find((b) => b.textContent.includes(arguments[0])); if (b) { b.scrollIntoView(); b.click(); } return !!b;`,
        [text],
      );
    await session.execute(`document.querySelector('${card} summary').scrollIntoView(); document.querySelector('${card} summary').click();`);
    await session.waitForText(card, (t) => t.includes('Show all (976.6 KB)'), 10_000);
    // The page carried only the result's start.
    const before = await session.execute(`return document.querySelector('${card} pre.json:last-of-type').textContent.length`);
    assert.ok(before < 20_000, `${before} characters before Show all`);
    assert.ok(await clickIn('Show all'));
    await session.waitForText(card, (t) => t.includes('Showing the first 512.0 KB of 976.6 KB.'), 10_000);
    const shown = await session.execute(
      `return Math.max(...[...document.querySelectorAll('${card} pre.json')].map((p) => p.textContent.length))`,
    );
    assert.ok(shown > 500_000 && shown <= 512 * 1024, `${shown} characters shown`);
    assert.ok(await clickIn('Save the whole result'));
    const note = await session.waitForText(`${card} [data-testid="tool-result-note"]`, (t) => t.includes('Saved to'), 10_000);
    await session.screenshot('tools large result saved');
    const path = join(tmpRoot, 'exports', 'Lango - big result.txt');
    assert.ok(note.includes(path), note);
    assert.equal(readFileSync(path, 'utf8'), 'x'.repeat(1_000_000));
  });

  test('SIGTERM mid-reply (a session logging out) keeps the partial reply and stops the servers', async () => {
    const pids = () =>
      (existsSync(faultLog) ? readFileSync(faultLog, 'utf8') : '')
        .split('\n')
        .filter((l) => l.startsWith('started pid='))
        .map((l) => Number(l.slice('started pid='.length)));
    await waitFor(() => pids().length > 0, { what: 'the fault server to start' });
    const servers = pids().filter(alive);
    assert.equal(servers.length, 1, `expected one running fault server, got ${pids()}`);
    await sendMessage('Write something long.');
    await waitFor(async () => (await lastAssistantText()).includes('Half a reply'), { what: 'the partial reply' });
    await session.screenshot('tools before SIGTERM');
    // The app process of this test: the one whose environment names our data folder.
    const app = readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .find((pid) => {
        try {
          return (
            readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('lango-desktop') &&
            readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`LANGO_HOME=${langoHome}`)
          );
        } catch {
          return false;
        }
      });
    assert.ok(app, 'the app process was not found');
    process.kill(Number(app), 'SIGTERM');
    await waitFor(() => !alive(Number(app)), { what: 'the app to quit on SIGTERM', timeout: 15_000 });
    await waitFor(() => !alive(servers[0]), { what: `server ${servers[0]} to stop with the app`, timeout: 10_000 });
    await session.delete().catch(() => {});
    session = null;
    // The partial reply is in the database, marked interrupted.
    const lango = resolve(REPO_ROOT, 'target', 'debug', 'lango');
    const list = JSON.parse(execFileSync(lango, ['--data-dir', langoHome, '--json', 'sessions', 'list'], { encoding: 'utf8' }));
    const key = list[0].key;
    // The conversation holds the 1 MB result of the test before.
    const shown = JSON.parse(
      execFileSync(lango, ['--data-dir', langoHome, '--json', 'sessions', 'show', key], { encoding: 'utf8', maxBuffer: 64 << 20 }),
    );
    const messages = shown.messages ?? shown;
    const last = messages[messages.length - 1];
    assert.equal(last.content, 'Half a reply, then the session logs out');
    assert.equal(last.status, 'interrupted');
  });
});
