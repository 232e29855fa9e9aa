// Settings → Data → Import, end to end in the real window: a synthetic ChatGPT export (the
// engine's test fixture, never real data) is imported by its path; the progress bar gives way
// to the summary (what was imported, what was left out); the conversations appear in the
// sidebar under their original titles marked "ChatGPT"; the current branch is what opens and
// the abandoned one is nowhere; search finds imported text; importing again adds nothing; a zip
// archive is refused in plain words.
//
//   scripts/with-desktop-session.sh node --test tests/e2e/import.test.mjs
//
// No provider is needed: importing never touches the network. Screenshots go to
// tests/e2e/screenshots/.

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, afterEach, before, describe, test } from 'node:test';

import { ARTIFACT_DIR, DEFAULT_APP_BIN, REPO_ROOT, Session, startDriver, waitFor } from './lib/webdriver.mjs';

const APP_BIN = process.env.APP_BIN ?? DEFAULT_APP_BIN;
const EXPORT = resolve(REPO_ROOT, 'crates', 'lango-core', 'tests', 'fixtures', 'import', 'chatgpt.json');

describe('Lango desktop: importing conversations', () => {
  let tmpRoot;
  let langoHome;
  let driver;
  let session;

  before(async () => {
    assert.ok(existsSync(APP_BIN), `app binary not found: ${APP_BIN}`);
    tmpRoot = mkdtempSync(join(tmpdir(), 'lango-e2e-import-'));
    langoHome = join(tmpRoot, 'lango-home');
    mkdirSync(langoHome, { recursive: true });
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
      logFile: join(ARTIFACT_DIR, 'webkitwebdriver-import.log'),
    });
    session = await Session.create(driver.url, { binary: APP_BIN });
    await session.waitForElement('#app-shell', 20_000);
  });

  afterEach(async (t) => {
    if (session?.id) await session.screenshot(`import ${t.name}`);
  });

  after(async () => {
    await session?.delete().catch(() => {});
    await driver?.stop();
    if (tmpRoot) rmSync(tmpRoot, { recursive: true, force: true });
  });

  // The path is pasted (set and announced with an input event, as a paste does): typing a long
  // path key by key takes WebKitWebDriver ~0.3 s a character on a loaded machine.
  const importPath = async (path) => {
    await session.clickCss('#nav-settings');
    await session.waitForElement('#import-path');
    await session.execute(
      `const field = document.querySelector('#import-path');
       field.value = arguments[0];
       field.dispatchEvent(new Event('input', { bubbles: true }));`,
      [path],
    );
    await waitFor(async () => !(await session.attribute(await session.find('#import-start'), 'disabled')), {
      what: 'Import enabled',
    });
    await session.clickCss('#import-start');
  };

  test('a ChatGPT export is imported with a summary of what was left out', async () => {
    await importPath(EXPORT);
    const summary = await session.waitForText('#import-summary', (t) => t.includes('Imported from'), 30_000);
    assert.match(summary, /Imported from ChatGPT: 2 new conversations — 10 messages\./);
    assert.match(summary, /1 × empty conversation: “Nothing said”/);
    assert.match(summary, /2 × hidden system message/);
    assert.match(summary, /1 image or file kept as a note/);
    // The memory can be built afterwards (its cost is shown first).
    await session.waitForElement('#import-memory-estimate');
  });

  test('imported conversations show in the sidebar under their titles, marked and searchable', async () => {
    const sourdough = '.session-item[data-key="chatgpt-11111111-aaaa-4bbb-8ccc-000000000001"]';
    await session.waitForElement(sourdough, 10_000);
    assert.equal(await session.attribute(await session.find(`${sourdough} button.session-main`), 'title'), 'Sourdough starter');
    const mark = await session.find(`${sourdough} .origin`);
    assert.equal(await session.attribute(mark, 'title'), 'Imported from ChatGPT');
    await session.waitForText('#sidebar', (t) => t.includes('Compute the squares of 0 to 3'));
    // Open it: the current branch, in order, with the RTL and emoji text intact.
    await session.clickCss(`${sourdough} button.session-main`);
    const chat = await session.waitForText('#view-chat', (t) => t.includes('Once a day'), 15_000);
    assert.match(chat, /How often should I feed a sourdough starter\? 🍞/);
    assert.match(chat, /شكرا جزيلا — and in Hebrew: תודה רבה, in Chinese: 非常感谢你的帮助, in Thai: ขอบคุณมากครับ, in Hindi: बहुत धन्यवाद/);
    assert.doesNotMatch(chat, /ABANDONED/);
    // Each message reads in its own direction: the one that begins in Arabic right to left.
    const directions = await session.execute(
      `return [...document.querySelectorAll('#view-chat .message .bubble, #view-chat .message .md p')]
         .map((el) => el.textContent.slice(0, 12) + ' ' + getComputedStyle(el).direction);`,
    );
    assert.ok(directions.some((d) => d.startsWith('شكرا') && d.endsWith(' rtl')), directions.join(' | '));
    assert.ok(directions.some((d) => d.startsWith('How often') && d.endsWith(' ltr')), directions.join(' | '));
    await session.fill('#session-search', 'flour');
    // Hits are grouped under their conversation's title.
    await session.waitForText('#sidebar .group', (t) => t.includes('Sourdough starter') && t.includes('flour'), 10_000);
    // Chinese, written without spaces, is found inside a run of characters and marked there.
    await session.fill('#session-search', '帮助');
    await session.waitForText('#sidebar .group', (t) => t.includes('Sourdough starter') && t.includes('感谢你的帮助'), 10_000);
    const marked = await session.execute(
      `return [...document.querySelectorAll('#sidebar .group mark')].map((m) => m.textContent);`,
    );
    assert.deepEqual(marked, ['帮助']);
    // Thai too; and a Hindi word is whole, its vowel signs and virama with it.
    for (const [query, shown] of [
      ['คุณมาก', 'ขอบคุณมากครับ'],
      ['धन्यवाद', 'बहुत धन्यवाद'],
    ]) {
      await session.fill('#session-search', query);
      await session.waitForText('#sidebar .group', (t) => t.includes('Sourdough starter') && t.includes(shown), 10_000);
      const marks = await session.execute(
        `return [...document.querySelectorAll('#sidebar .group mark')].map((m) => m.textContent);`,
      );
      assert.deepEqual(marks, [query]);
    }
    await session.fill('#session-search', '');
  });

  test('importing the same file again adds nothing', async () => {
    await importPath(EXPORT);
    const summary = await session.waitForText('#import-summary', (t) => t.includes('already imported'), 30_000);
    assert.match(summary, /0 new conversations, 2 already imported — 0 messages\./);
    await waitFor(async () => (await session.findAll('.session-item')).length === 2, {
      what: 'still two conversations',
    });
    // Imported before, memory wanted now: the same file again offers to build it.
    await session.waitForElement('#import-memory-estimate');
  });

  test('a zip archive is refused in plain words', async () => {
    const zip = join(tmpRoot, 'chatgpt-export.zip');
    writeFileSync(zip, Buffer.from('PK\u0003\u0004not really', 'latin1'));
    await importPath(zip);
    const error = await session.waitForText('#import-error', (t) => t.includes('zip'), 15_000);
    assert.match(error, /Unzip it and import the conversations\.json inside it\. Nothing was imported\./);
  });
});
