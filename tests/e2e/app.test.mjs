// End-to-end tests of the real Lango window (Tauri + WebKitGTK) through raw WebKitWebDriver.
//
//   cargo build -p lango-desktop --features tauri/custom-protocol
//   xvfb-run -a -s "-screen 0 1280x800x24" env APP_BIN=$PWD/target/debug/lango-desktop node --test tests/e2e/
//
// The app runs with LANGO_HOME (and XDG dirs) in a fresh temp folder, so it never touches real data.
// Each test leaves a screenshot in tests/e2e/screenshots/<test-name>.png.

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, afterEach, before, describe, test } from 'node:test';

import { ARTIFACT_DIR, DEFAULT_APP_BIN, REPO_ROOT, Session, startDriver, waitFor } from './lib/webdriver.mjs';

const APP_BIN = process.env.APP_BIN ?? DEFAULT_APP_BIN;

/** The version in the workspace Cargo.toml, which app_info reports. */
function cargoVersion() {
  const toml = readFileSync(resolve(REPO_ROOT, 'Cargo.toml'), 'utf8');
  const section = toml.split('[workspace.package]')[1] ?? '';
  const match = section.match(/^\s*version\s*=\s*"([^"]+)"/m);
  assert.ok(match, 'no [workspace.package] version in Cargo.toml');
  return match[1];
}

describe('Lango desktop window', () => {
  let tmpRoot;
  let langoHome;
  let driver;
  let session;

  before(async () => {
    assert.ok(existsSync(APP_BIN), `app binary not found: ${APP_BIN} (build it first, or set APP_BIN)`);
    tmpRoot = mkdtempSync(join(tmpdir(), 'lango-e2e-'));
    langoHome = join(tmpRoot, 'lango-home');
    const xdg = (name) => {
      const dir = join(tmpRoot, name);
      mkdirSync(dir, { recursive: true });
      return dir;
    };
    driver = await startDriver({
      env: {
        LANGO_HOME: langoHome,
        // WebKit's own cache and storage also go to the temp folder.
        XDG_DATA_HOME: xdg('data'),
        XDG_CACHE_HOME: xdg('cache'),
        XDG_CONFIG_HOME: xdg('config'),
        // A debug build on a busy machine can take over a second to open its data: the
        // page waits for its status that long here (300 ms in use; src-tauri/src/boot.rs).
        LANGO_BOOT_WAIT_MS: '15000',
      },
      logFile: join(ARTIFACT_DIR, 'webkitwebdriver.log'),
    });
    session = await Session.create(driver.url, { binary: APP_BIN });
    await session.waitForElement('#app-shell', 20_000);
  });

  afterEach(async (t) => {
    if (session?.id) await session.screenshot(t.name);
  });

  after(async () => {
    await session?.delete().catch(() => {});
    await driver?.stop();
    if (tmpRoot) rmSync(tmpRoot, { recursive: true, force: true });
  });

  test('the window opens and shows the app shell', async () => {
    assert.equal(await session.title(), 'Lango');

    const sidebar = await session.find('#sidebar');
    assert.equal(await session.displayed(sidebar), true);
    const sidebarText = await session.text(sidebar);
    assert.match(sidebarText, /Lango/);
    assert.match(sidebarText, /No conversations yet/);
    assert.equal(await session.displayed(await session.find('#new-chat')), true);

    const chat = await session.text(await session.find('#view-chat'));
    assert.match(chat, /Add a provider to start chatting/);
    const composer = await session.find('#composer-input');
    assert.equal(await session.attribute(composer, 'disabled'), 'true');

    // The version comes from Rust, with the status the backend served with the page.
    const version = await session.waitForText('#app-version');
    assert.equal(version, cargoVersion());
  });

  test('the first status comes with the page, without a round trip to the backend', async () => {
    // src-tauri/src/boot.rs injects it into index.html; the shell marks when it used it.
    const served = await session.execute("return performance.getEntriesByName('lango:status-served').length");
    assert.equal(served, 1);
    assert.equal(await session.exists('#lango-boot'), false, 'the block is read once and removed');
  });

  test('navigation switches between chat, memory and settings', async () => {
    const selected = async (view) => session.attribute(await session.find(`#nav-${view}`), 'aria-selected');

    await session.clickCss('#nav-memory');
    await session.waitForElement('#view-memory');
    await session.waitForAbsent('#view-chat');
    assert.match(
      await session.text(await session.find('#view-memory')),
      /Memory appears here once a conversation has been observed\./,
    );
    assert.equal(await selected('memory'), 'true');
    assert.equal(await selected('chat'), 'false');

    await session.clickCss('#nav-settings');
    await session.waitForElement('#view-settings');
    await session.waitForAbsent('#view-memory');
    assert.equal(await selected('settings'), 'true');

    await session.clickCss('#nav-chat');
    await session.waitForElement('#view-chat');
    await session.waitForAbsent('#view-settings');
    assert.equal(await selected('chat'), 'true');

    // "New chat" in the sidebar brings you back to the chat view from anywhere.
    await session.clickCss('#nav-memory');
    await session.waitForElement('#view-memory');
    await session.clickCss('#new-chat');
    await session.waitForElement('#view-chat');
    assert.equal(await selected('chat'), 'true');
  });

  test('settings about says what the database and its backups take on disk', async () => {
    await session.clickCss('#nav-settings');
    await session.waitForElement('#view-settings');
    assert.match(await session.waitForText('#storage-database'), /^\d+\.\d (KB|MB) · \d+ conversations?$/);
    // Today's copy of this small database is taken at start, and nothing went wrong with it.
    assert.match(await session.waitForText('#storage-backups'), /^(None yet|\d+\.\d (KB|MB|GB) in \d+ cop(y|ies) · newest .+)$/);
    assert.equal(await session.exists('#backup-problem'), false);
  });

  test('settings view shows the LANGO_HOME data dir', async () => {
    await session.clickCss('#nav-settings');
    await session.waitForElement('#view-settings');

    const dataDir = await session.waitForText('#data-dir');
    assert.equal(dataDir, langoHome);
    const configFile = await session.waitForText('#config-file');
    assert.equal(configFile, join(langoHome, 'settings.json'));
    assert.equal(await session.text(await session.find('#settings-version')), cargoVersion());
  });

  test('settings about checks a release feed and shows the newer version', async () => {
    // A release feed on this machine (plain http is allowed for localhost only).
    let requests = 0;
    const feed = createServer((req, res) => {
      requests += 1;
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(
        JSON.stringify({
          version: '99.0.0',
          url: 'https://example.com/lango/releases/tag/v99.0.0',
          notes: 'Faster start.\n<b>not bold</b>',
          pubDate: '2026-11-20',
        }),
      );
    });
    await new Promise((ok) => feed.listen(0, '127.0.0.1', ok));
    try {
      await session.clickCss('#nav-settings');
      await session.waitForElement('#view-settings');
      const check = await session.waitForElement('#check-updates');
      assert.equal(await session.attribute(check, 'disabled'), 'true', 'off until a feed is saved');

      const url = `http://127.0.0.1:${feed.address().port}/latest.json`;
      await session.fill('#update-feed-url', url);
      await session.clickCss('#save-feed-url');
      await waitFor(async () => (await session.attribute(check, 'disabled')) === null, {
        what: 'Check for updates enabled',
      });
      assert.equal(requests, 0, 'saving the address fetches nothing');
      const saved = JSON.parse(readFileSync(join(langoHome, 'settings.json'), 'utf8'));
      assert.equal(saved.updates.feedUrl, url);

      await session.click(check);
      const headline = await session.waitForText('#update-headline', (t) => t.includes('available'));
      assert.equal(headline, `Lango 99.0.0 is available — you have ${cargoVersion()}.`);
      assert.equal(await session.text(await session.find('#update-notes')), 'Faster start.\n<b>not bold</b>');
      assert.equal(await session.exists('#update-notes b'), false, 'notes are text, not markup');
      assert.equal(await session.exists('#update-link'), true);
      assert.equal(requests, 1);
      // Where the screenshot is taken: the answer in view.
      await session.execute(`document.getElementById('update-result').scrollIntoView()`);
    } finally {
      feed.close();
    }
  });
});
