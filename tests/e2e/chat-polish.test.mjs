// Everyday chat polish in the real window: a reply's task list and math, the user's message
// shown once when coming back to a conversation that is still streaming, the End key in a
// 10,000-message conversation, search results counted, grouped and paged, the right-click
// menu on a conversation and "Show in folder"
// after an export, and the sidebar resized, hidden and shown again (remembered across a
// restart).
//
//   scripts/with-desktop-session.sh node --test tests/e2e/chat-polish.test.mjs
//
// The long conversation is written by the `seed_session` example (the same store code the
// app uses); the replies come from `lango-fake-provider` on loopback, a keyless local server.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, afterEach, before, describe, test } from 'node:test';

import { ARTIFACT_DIR, DEFAULT_APP_BIN, REPO_ROOT, Session, startDriver, waitFor } from './lib/webdriver.mjs';
import { startFakeProvider } from './lib/fakeProvider.mjs';

const APP_BIN = process.env.APP_BIN ?? DEFAULT_APP_BIN;
const SEED_BIN = process.env.SEED_SESSION_BIN ?? resolve(REPO_ROOT, 'target', 'debug', 'examples', 'seed_session');
const LONG = 'long-10k';
const LONG_COUNT = 10_000;

const KEY_END = '\uE010';
const KEY_CONTROL = '\uE009';
const KEY_ENTER = '\uE007';
const KEY_HOME = '\uE011';

const SCRIPT = {
  turns: [
    {
      type: 'text',
      chunks: [
        'Plan:\n\n- [x] write the parser\n- [ ] test it\n\n',
        'Euler: $e^{i\\pi} + 1 = 0$\n\n$$\\int_0^1 x\\,dx = \\frac{1}{2}$$\n\n',
        'Then run `cargo test`:\n\n```sh\ncargo test --workspace\n```\n',
      ],
    },
    // Slow enough to leave the conversation and come back while it streams.
    { type: 'text', chunks: Array.from({ length: 30 }, (_, i) => `part ${i} `), delay_ms: 200 },
    { type: 'text', chunks: ['A short answer.'] },
  ],
  models: ['fake-model'],
};

describe('Lango desktop: everyday chat polish', () => {
  let tmpRoot;
  let langoHome;
  let driver;
  let session;
  let fake;
  let exportDir;
  let openedLog;
  let appLauncher;

  async function openApp() {
    session = await Session.create(driver.url, { binary: appLauncher });
    await session.waitForElement('#app-shell', 20_000);
  }

  async function send(text) {
    // The composer is enabled once the backend's status says a provider is ready.
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

  /** Pointer actions (W3C WebDriver): what a mouse does, not synthetic DOM events. */
  function pointer(actions) {
    return session.cmd('POST', '/actions', {
      actions: [{ type: 'pointer', id: 'mouse', parameters: { pointerType: 'mouse' }, actions }],
    });
  }

  async function centerOf(css) {
    await session.waitForElement(css);
    return session.execute(
      `const r = document.querySelector(arguments[0]).getBoundingClientRect();
       return { x: Math.round(r.left + r.width / 2), y: Math.round(r.top + r.height / 2) };`,
      [css],
    );
  }

  before(async () => {
    assert.ok(existsSync(APP_BIN), `app binary not found: ${APP_BIN}`);
    assert.ok(existsSync(SEED_BIN), `seed_session not found: ${SEED_BIN} (cargo build -p lango-core --example seed_session)`);
    tmpRoot = mkdtempSync(join(tmpdir(), 'lango-e2e-polish-'));
    langoHome = join(tmpRoot, 'lango-home');
    mkdirSync(langoHome, { recursive: true });
    fake = await startFakeProvider(SCRIPT, tmpRoot);
    writeFileSync(
      join(langoHome, 'settings.json'),
      JSON.stringify({
        providers: { local: { type: 'openai-compatible', baseUrl: `${fake.url}/v1`, defaultModel: 'fake-model' } },
        agent: { provider: 'local' },
      }),
    );
    execFileSync(SEED_BIN, [langoHome, LONG, String(LONG_COUNT)], { stdio: 'ignore' });
    const xdg = (name) => {
      const dir = join(tmpRoot, name);
      mkdirSync(dir, { recursive: true });
      return dir;
    };
    exportDir = xdg('exports');
    // The desktop's opener, standing in for the file manager: it writes down what it was asked to open.
    const bin = xdg('bin');
    openedLog = join(tmpRoot, 'opened.txt');
    writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$@" >> '${openedLog}'\n`);
    chmodSync(join(bin, 'xdg-open'), 0o755);
    // WebKitWebDriver starts the app with its own PATH, so the app is started through a
    // launcher that puts the stand-in first.
    appLauncher = join(bin, 'lango-desktop');
    writeFileSync(appLauncher, `#!/bin/sh\nPATH='${bin}':"$PATH" exec '${APP_BIN}' "$@"\n`);
    chmodSync(appLauncher, 0o755);
    driver = await startDriver({
      env: {
        LANGO_HOME: langoHome,
        LANGO_EXPORT_DIR: exportDir,
        XDG_DATA_HOME: xdg('data'),
        XDG_CACHE_HOME: xdg('cache'),
        XDG_CONFIG_HOME: xdg('config'),
      },
      logFile: join(ARTIFACT_DIR, 'webkitwebdriver-polish.log'),
    });
    await openApp();
  });

  afterEach(async (t) => {
    if (session?.id) await session.screenshot(`polish ${t.name}`);
  });

  after(async () => {
    await session?.delete().catch(() => {});
    driver?.stop();
    fake?.stop();
    if (tmpRoot) rmSync(tmpRoot, { recursive: true, force: true });
  });

  test('the first screen sets its text in at most nine fonts', async () => {
    // Each distinct face, size and weight is a font look-up and set-up that WebKitGTK does
    // while resolving the shell's first style, before the window's load event: ~1.5 ms each
    // at a cold start (docs/performance-history.md, stop 43). Fourteen became nine.
    await session.waitForElement('#chat-welcome-title');
    const fonts = await session.execute(`
      const seen = new Set();
      const add = (el, text) => {
        if (!el || !text.trim()) return;
        const cs = getComputedStyle(el);
        if (cs.display === 'none' || cs.visibility === 'hidden') return;
        seen.add([cs.fontFamily, cs.fontSize, cs.fontWeight, cs.fontStyle, cs.fontVariantNumeric, cs.fontFeatureSettings].join(' '));
      };
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      for (let n; (n = walker.nextNode()); ) add(n.parentElement, n.textContent);
      for (const field of document.querySelectorAll('[placeholder]')) add(field, field.placeholder);
      return [...seen].sort();`);
    assert.ok(fonts.length <= 9, `the first screen uses ${fonts.length} fonts:\n${fonts.join('\n')}`);
  });

  test('the start-up style comes inline with the page, and styles made at run time still apply', async () => {
    // ui/vite-plugins/inlineEntryCss.ts: one round trip fewer before the first paint. With a
    // nonce for that <style> in the policy, WebKit would drop 'unsafe-inline' and refuse the
    // style attributes and elements the UI makes later (KaTeX's math, Svelte's transitions):
    // tauri.conf.json keeps Tauri from adding one.
    const page = await session.execute(`
      const violations = [];
      document.addEventListener('securitypolicyviolation', (e) => violations.push(e.violatedDirective));
      const holder = document.createElement('div');
      holder.innerHTML = '<span style="color: rgb(1, 2, 3)">attribute</span>';
      document.body.append(holder);
      const sheet = document.createElement('style');
      sheet.textContent = '#e2e-made-style { color: rgb(4, 5, 6) }';
      document.head.append(sheet);
      const target = document.createElement('i');
      target.id = 'e2e-made-style';
      document.body.append(target);
      return new Promise((done) => setTimeout(() => {
        const result = {
          linked: [...document.querySelectorAll('link[rel="stylesheet"]')].map((l) => l.getAttribute('href')).filter((h) => h.includes('/index-')),
          inline: [...document.head.querySelectorAll('style')].some((s) => s.textContent.includes('--font-sans')),
          attribute: getComputedStyle(holder.firstChild).color,
          element: getComputedStyle(target).color,
          violations,
        };
        holder.remove(); sheet.remove(); target.remove();
        done(result);
      }, 100));`);
    assert.deepEqual(page.linked, [], 'the start-up stylesheet is not a file of its own');
    assert.equal(page.inline, true, 'the start-up stylesheet is in the page');
    assert.equal(page.attribute, 'rgb(1, 2, 3)', 'a style attribute applies');
    assert.equal(page.element, 'rgb(4, 5, 6)', 'a style element applies');
    assert.deepEqual(page.violations, []);
  });

  test('a reply shows its task list as checkboxes and its math typeset', async () => {
    await session.clickCss('#new-chat');
    await send('Plan and a formula, please');
    await waitIdle();
    await session.waitForElement('.message[data-role="assistant"] .katex', 10_000);
    const view = await session.execute(
      `const m = Array.from(document.querySelectorAll('.message[data-role="assistant"]')).at(-1);
       return {
         boxes: Array.from(m.querySelectorAll('li > input[type=checkbox]')).map((b) => [b.checked, b.disabled]),
         inline: m.querySelectorAll('span.lango-math .katex').length,
         display: m.querySelectorAll('.lango-math-block .katex-display').length,
         raw: m.textContent.includes('$$') || m.textContent.includes('[x]'),
       };`,
    );
    assert.deepEqual(view.boxes, [
      [true, true],
      [false, true],
    ]);
    assert.equal(view.inline, 1);
    assert.equal(view.display, 1);
    assert.equal(view.raw, false, 'no raw Markdown or TeX delimiters left');
  });

  test('code in a reply reads as code, not as a link: no underline, regular weight, selectable', async () => {
    // The reply of the test before: `cargo test` inline and a fenced block.
    await session.waitForElement('.message[data-role="assistant"] pre code', 10_000);
    const looks = await session.execute(
      `const m = Array.from(document.querySelectorAll('.message[data-role="assistant"]')).at(-1);
       const look = (el) => {
         const cs = getComputedStyle(el);
         return { underline: cs.textDecorationLine, weight: cs.fontWeight, select: cs.webkitUserSelect || cs.userSelect };
       };
       return { inline: look(m.querySelector(':not(pre) > code')), block: look(m.querySelector('pre code')) };`,
    );
    for (const [where, look] of Object.entries(looks)) {
      assert.equal(look.underline, 'none', `${where} code is not underlined like a link`);
      assert.equal(look.weight, '400', `${where} code is not bold`);
      assert.equal(look.select, 'text', `${where} code can be selected`);
    }
  });

  test('coming back to a conversation still streaming shows the message once', async () => {
    await session.clickCss('#new-chat');
    const text = 'Count this message once';
    await send(text);
    await session.waitForElement('#stop-button', 10_000);
    await session.waitForText('.message.live', (t) => t.includes('part 2'), 10_000);
    // Away to another conversation and back while the reply is still being written.
    await session.clickCss(`.session-item[data-key="${LONG}"] .session-main`);
    await session.waitForElement('.message[data-role="assistant"]', 10_000);
    const row = await session.execute(
      `return Array.from(document.querySelectorAll('.session-item')).find((li) => li.querySelector('.streaming'))?.dataset.key ?? null;`,
    );
    assert.ok(row, 'the sidebar marks the conversation that is still streaming');
    await session.clickCss(`.session-item[data-key="${row}"] .session-main`);
    await session.waitForElement('.message.live', 10_000);
    const count = () =>
      session.execute(
        `return Array.from(document.querySelectorAll('.message[data-role="user"]')).filter((m) => m.textContent.includes(arguments[0])).length;`,
        [text],
      );
    // Give the reopened list time to load its page: the stored copy must stay hidden.
    await new Promise((r) => setTimeout(r, 800));
    assert.equal(await count(), 1, 'while streaming');
    await waitIdle();
    await waitFor(async () => (await count()) === 1, { what: 'one user message after the reply' });
  });

  test('End reaches the newest message of a 10,000-message conversation', async () => {
    await session.clickCss(`.session-item[data-key="${LONG}"] .session-main`);
    const newestShown = () =>
      session.execute(
        `return Array.from(document.querySelectorAll('#message-list .message')).some((m) => m.textContent.includes(arguments[0]));`,
        [`Answer ${LONG_COUNT - 1}`],
      );
    await waitFor(newestShown, { what: 'the newest message when the conversation opens' });
    const list = await session.waitForElement('#message-list');
    // Far up: Home several times, older pages loading in between.
    for (let i = 0; i < 6; i++) {
      await session.type(list, KEY_HOME);
      await new Promise((r) => setTimeout(r, 400));
    }
    const loadedUp = await session.execute(
      `const shown = Array.from(document.querySelectorAll('#message-list .message'));
       return shown.length > 0 && !shown.some((m) => m.textContent.includes(arguments[0]));`,
      [`Answer ${LONG_COUNT - 1}`],
    );
    assert.ok(loadedUp, 'the newest message is out of the DOM after going up');
    await session.type(list, KEY_END);
    await waitFor(
      () =>
        session.execute(
          `const list = document.getElementById('message-list');
           const last = Array.from(list.querySelectorAll('.message')).at(-1);
           if (!last || !last.textContent.includes(arguments[0])) return false;
           const a = last.getBoundingClientRect(), b = list.getBoundingClientRect();
           return a.bottom <= b.bottom + 2 && a.bottom > b.top;`,
          [`Answer ${LONG_COUNT - 1}`],
        ),
      { what: 'the newest message in view after End', timeout: 5_000 },
    );
  });

  test('Ctrl+F finds, counts and steps through matches across all 10,000 messages', async () => {
    await session.clickCss(`.session-item[data-key="${LONG}"] .session-main`);
    const list = await session.waitForElement('#message-list');
    await session.type(list, `${KEY_CONTROL}f`);
    const input = await session.waitForElement('#find-input');
    // Even messages are questions: "Question 12", "Question 120"…"128", "Question 1200"…"1298".
    await session.type(input, 'question 12');
    await session.waitForText('#find-count', (t) => t === '56 of 56', 10_000);
    const current = () =>
      session.execute(
        `const hl = CSS.highlights.get('lango-find-current');
         const texts = hl ? Array.from(hl).map((r) => r.startContainer.parentElement.closest('.message').textContent) : [];
         return { count: hl ? hl.size : 0, text: texts[0] ?? '' };`,
      );
    await waitFor(async () => (await current()).text.includes('Question 1298:'), { what: 'the newest match highlighted' });
    await session.type(input, KEY_ENTER);
    await session.waitForText('#find-count', (t) => t === '55 of 56');
    await waitFor(async () => (await current()).text.includes('Question 1296:'), { what: 'the older match, loaded and highlighted' });
    await session.screenshot('polish find bar on a match');
    // The oldest one is thousands of messages up: its pages load on the way.
    for (let i = 0; i < 54; i++) await session.type(input, KEY_ENTER);
    await session.waitForText('#find-count', (t) => t === '1 of 56', 10_000);
    await waitFor(async () => (await current()).text.includes('Question 12:'), { what: 'the oldest match', timeout: 20_000 });
    await session.type(input, '\uE00C'); // Escape
    await session.waitForAbsent('#find-bar');
    assert.equal(await session.execute(`return CSS.highlights.has('lango-find');`), false, 'highlights removed');
  });

  test('search counts its hits, groups them by conversation, shows more, and shows no raw Markdown', async () => {
    await session.fill('#session-search', 'rust workspace');
    await session.waitForText('#search-count', (t) => /results/i.test(t), 15_000);
    const view = () =>
      session.execute(
        `return {
           hits: document.querySelectorAll('#sidebar .search-hit').length,
           groups: Array.from(document.querySelectorAll('#sidebar .group .group-title')).map((g) => g.textContent.trim()),
           raw: Array.from(document.querySelectorAll('#sidebar .hit-snippet')).some((s) => s.textContent.includes('**')),
           dated: Array.from(document.querySelectorAll('#sidebar .search-hit time')).every((t) => t.getAttribute('datetime')),
           count: document.getElementById('search-count').textContent,
         };`,
      );
    const first = await view();
    assert.equal(first.hits, 50, 'the first page');
    assert.deepEqual(first.groups, ['10000 messages'], 'one conversation, one group');
    assert.equal(first.raw, false, 'snippets are plain text');
    assert.ok(first.dated, 'every hit has its date');
    assert.match(first.count, /^[\d,]+\+? results/i);
    await session.clickCss('#search-more');
    await waitFor(async () => (await view()).hits === 100, { what: 'the second page appended' });
    await session.clickCss('#search-clear');
    await session.waitForAbsent('#search-count');
  });

  test('a right-click on a conversation opens its menu at the pointer', async () => {
    const at = await centerOf(`.session-item[data-key="${LONG}"] .session-main`);
    await pointer([
      { type: 'pointerMove', x: at.x, y: at.y },
      { type: 'pointerDown', button: 2 },
      { type: 'pointerUp', button: 2 },
    ]);
    const menu = await session.waitForElement('.session-item .menu[role="menu"]', 5_000);
    const box = await session.execute(
      `const r = document.querySelector('.session-item .menu[role="menu"]').getBoundingClientRect(); return { left: r.left, top: r.top };`,
    );
    assert.ok(Math.abs(box.left - at.x) <= 2 && Math.abs(box.top - at.y) <= 2, `menu at the pointer: ${JSON.stringify(box)} vs ${JSON.stringify(at)}`);
    assert.match(await session.text(menu), /Rename/);
    await session.execute(`document.querySelector('.session-item .menu [role=menuitem]').dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));`);
    await session.waitForAbsent('.session-item .menu[role="menu"]', 5_000);
  });

  test('after an export, "Show in folder" opens the folder holding the file', async () => {
    const at = await centerOf(`.session-item[data-key="${LONG}"] .session-main`);
    await pointer([
      { type: 'pointerMove', x: at.x, y: at.y },
      { type: 'pointerDown', button: 2 },
      { type: 'pointerUp', button: 2 },
    ]);
    await session.clickCss('.session-item .menu .action-export-markdown');
    await session.waitForText('#toast', (t) => t.includes('Exported to'), 30_000);
    await session.clickCss('#toast-action');
    await waitFor(() => existsSync(openedLog), { what: 'the file manager to be asked' });
    assert.deepEqual(readFileSync(openedLog, 'utf8').trim().split('\n'), [exportDir]);
    await session.waitForAbsent('#toast');
  });

  test('the sidebar can be resized, hidden and shown again, and keeps its width after a restart', async () => {
    const width = () => session.execute(`return Math.round(document.getElementById('sidebar').getBoundingClientRect().width);`);
    const before = await width();
    const handle = await centerOf('#sidebar-splitter');
    await pointer([
      { type: 'pointerMove', x: handle.x, y: handle.y },
      { type: 'pointerDown', button: 0 },
      { type: 'pointerMove', x: handle.x + 120, y: handle.y, duration: 100 },
      { type: 'pointerUp', button: 0 },
    ]);
    await waitFor(async () => Math.abs((await width()) - (before + 120)) <= 4, { what: 'the sidebar 120 px wider' });
    const dragged = await width();

    await session.clickCss('#hide-sidebar');
    await session.waitForElement('#show-sidebar');
    assert.equal(await session.execute(`return document.getElementById('sidebar').getBoundingClientRect().width;`), 0);
    const chatWidth = await session.execute(`return document.querySelector('.content').getBoundingClientRect().width;`);
    assert.ok(chatWidth >= (await session.execute('return window.innerWidth;')) - 2, 'the chat takes the whole window');
    await session.clickCss('#show-sidebar');
    await session.waitForElement('#hide-sidebar');
    assert.equal(await width(), dragged);

    await session.delete();
    await openApp();
    await session.waitForElement('#sidebar');
    assert.equal(await width(), dragged, 'the width is remembered');
  });
});
