// The recovery screen, end to end: a data folder whose database was damaged for real (garbage
// over its header) but which holds the automatic daily backup the engine takes. The real app
// must show the recovery screen with the problem in plain words and the backup listed; Restore
// must put the backup in place, the app must then open with the backup's conversation, and the
// damaged file must be kept aside byte for byte, never overwritten.
//
//   scripts/with-desktop-session.sh node --test tests/e2e/recovery.test.mjs
//
// The conversation and the backup are made by the real `lango` CLI against the fake provider,
// the way a user's data folder gets them. Screenshots go to tests/e2e/screenshots/.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';

import { ARTIFACT_DIR, DEFAULT_APP_BIN, REPO_ROOT, Session, startDriver, waitFor } from './lib/webdriver.mjs';
import { startFakeProvider } from './lib/fakeProvider.mjs';

const APP_BIN = process.env.APP_BIN ?? DEFAULT_APP_BIN;
const CLI_BIN = process.env.LANGO_BIN ?? resolve(REPO_ROOT, 'target', 'debug', 'lango');
const QUESTION = 'Which conversation survives a damaged database?';
const ANSWER = 'This one: it is in the daily backup.';

describe('Lango desktop: recovery from a damaged database', () => {
  let tmpRoot;
  let langoHome;
  let driver;
  let session;
  let fake;
  let backupName;
  let damaged;

  const lango = (...args) =>
    execFileSync(CLI_BIN, ['--data-dir', langoHome, ...args], {
      env: { ...process.env, LANGO_P_API_KEY: 'sk-e2e-recovery', LANGO_HOME: langoHome },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });

  before(async () => {
    assert.ok(existsSync(APP_BIN), `app binary not found: ${APP_BIN}`);
    assert.ok(existsSync(CLI_BIN), `CLI binary not found: ${CLI_BIN}`);
    tmpRoot = mkdtempSync(join(tmpdir(), 'lango-e2e-recovery-'));
    langoHome = join(tmpRoot, 'lango-home');
    mkdirSync(langoHome, { recursive: true });
    fake = await startFakeProvider({ turns: [{ type: 'text', chunks: [ANSWER] }] }, tmpRoot);
    writeFileSync(
      join(langoHome, 'settings.json'),
      JSON.stringify({
        providers: { p: { type: 'openai-compatible', baseUrl: `${fake.url}/v1`, defaultModel: 'fake-model' } },
        agent: { provider: 'p' },
      }),
    );
    // A conversation, then any command: it takes today's backup (the chat's own one may have
    // been taken before its first message was stored, so it is dropped first).
    lango('chat', '--session', 'kept-talk', QUESTION);
    const backups = join(langoHome, 'backups');
    rmSync(backups, { recursive: true, force: true });
    lango('sessions', 'list');
    backupName = await waitFor(
      () => (existsSync(backups) ? readdirSync(backups).find((n) => n.endsWith('-daily.db')) : undefined),
      { timeout: 15_000, what: 'the daily backup' },
    );

    // Damage the database for real: garbage over its header and first page.
    const db = join(langoHome, 'lango.db');
    const bytes = readFileSync(db);
    bytes.fill(0x5a, 0, 4096);
    writeFileSync(db, bytes);
    for (const side of ['lango.db-wal', 'lango.db-shm']) rmSync(join(langoHome, side), { force: true });
    damaged = readFileSync(db);

    const xdg = (name) => {
      const dir = join(tmpRoot, name);
      mkdirSync(dir, { recursive: true });
      return dir;
    };
    driver = await startDriver({
      env: {
        LANGO_HOME: langoHome,
        XDG_DATA_HOME: xdg('data'),
        XDG_CACHE_HOME: xdg('cache'),
        XDG_CONFIG_HOME: xdg('config'),
      },
      logFile: join(ARTIFACT_DIR, 'webkitwebdriver-recovery.log'),
    });
    session = await Session.create(driver.url, { binary: APP_BIN });
    await session.waitForElement('#app-shell', 20_000);
  });

  after(async () => {
    await session?.delete().catch(() => {});
    await driver?.stop();
    fake?.stop();
    if (tmpRoot) rmSync(tmpRoot, { recursive: true, force: true });
  });

  test('a damaged database shows the recovery screen with the problem and the backup', async () => {
    await session.waitForElement('#recovery', 20_000);
    const problem = await session.waitForText('#recovery-problem');
    assert.match(problem, /lango\.db/, `the problem names the file: ${problem}`);
    assert.match(problem, /damaged|not a database|corrupt/i, `the problem in plain words: ${problem}`);
    assert.doesNotMatch(problem, /code: \d+|SQLITE_/, `no raw database codes: ${problem}`);
    assert.doesNotMatch(problem, /`|\/tmp\//, `no command syntax or full path in the headline: ${problem}`);
    // The engine's own text (full path, SQLite's reason) is folded away under Details.
    await session.waitForElement('#recovery-problem-details');
    const listed = await session.waitForText(`.backup[data-file="${backupName}"]`, (t) => t.includes('Restore'), 20_000);
    assert.match(listed, new RegExp(backupName.replace(/[.]/g, '\\.')));
    // Nothing is shown as a conversation while the database cannot be opened, and the sidebar
    // does not repeat the error the recovery screen explains.
    assert.equal((await session.findAll('.session-item')).length, 0);
    await session.waitForElement('#sessions-recovering');
    assert.doesNotMatch(await session.text(await session.find('#sidebar')), /Could not load conversations/);
    await session.screenshot('recovery damaged database shows the recovery screen');
  });

  test('restoring the backup opens the app with its conversation and keeps the damaged file', async () => {
    await session.clickCss(`.backup[data-file="${backupName}"] button`);
    await session.waitForAbsent('#recovery', 20_000);
    await session.waitForElement('.session-item', 20_000);
    assert.equal((await session.findAll('.session-item')).length, 1);
    await session.clickCss('.session-item .session-main');
    await session.waitForText('.message[data-role="user"]', (t) => t.includes(QUESTION), 15_000);
    await session.waitForText('.message[data-role="assistant"]', (t) => t.includes(ANSWER), 15_000);
    await session.screenshot('recovery restored backup opens the conversation');

    // The damaged original is kept aside, byte for byte; the backup itself is still there.
    const aside = readdirSync(langoHome).filter((n) => n.startsWith('lango.db.damaged-') && !/-(wal|shm)$/.test(n));
    assert.equal(aside.length, 1, `one damaged copy kept: ${readdirSync(langoHome)}`);
    assert.ok(readFileSync(join(langoHome, aside[0])).equals(damaged), 'the damaged file was changed');
    assert.ok(existsSync(join(langoHome, 'backups', backupName)), 'the backup is still there');
    await waitFor(() => existsSync(join(langoHome, 'lango.db')), { what: 'a database in place' });
  });
});
