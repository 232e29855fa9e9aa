// Minimal W3C WebDriver client for driving the real Lango window through WebKitWebDriver,
// with no npm dependencies (Node 20's global fetch). See BUILD-NOTES §5 "Without tauri-driver":
// we start /usr/bin/WebKitWebDriver ourselves with TAURI_WEBVIEW_AUTOMATION=true, which is all
// tauri-driver does on Linux.

import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const E2E_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const REPO_ROOT = resolve(E2E_DIR, '..', '..');
export const SCREENSHOT_DIR = resolve(E2E_DIR, 'screenshots');
export const ARTIFACT_DIR = resolve(E2E_DIR, 'artifacts');

/** The W3C key under which an element reference is returned. */
export const ELEMENT_KEY = 'element-6066-11e4-a52e-4f735466cecf';

export const DEFAULT_APP_BIN = resolve(REPO_ROOT, 'target', 'debug', 'lango-desktop');
export const WEBKIT_WEBDRIVER = process.env.WEBKIT_WEBDRIVER ?? '/usr/bin/WebKitWebDriver';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Asks the OS for a free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolvePort(port));
    });
  });
}

/** Polls `fn` until it returns a truthy value; throws with `what` after `timeout` ms. */
export async function waitFor(fn, { timeout = 10_000, interval = 100, what = 'condition' } = {}) {
  const deadline = Date.now() + timeout;
  let lastError;
  for (;;) {
    try {
      const value = await fn();
      if (value) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      const suffix = lastError ? ` (last error: ${lastError.message})` : '';
      throw new Error(`timed out after ${timeout} ms waiting for ${what}${suffix}`);
    }
    await sleep(interval);
  }
}

export class WebDriverError extends Error {
  constructor(method, path, status, value) {
    super(`${method} ${path} -> ${status} ${value?.error ?? ''}: ${value?.message ?? JSON.stringify(value)}`);
    this.status = status;
    this.code = value?.error;
  }
}

/**
 * Starts WebKitWebDriver on a free port. `env` is added to the driver's environment, which
 * it passes on to the app it launches (use it for LANGO_HOME and friends).
 */
export async function startDriver({ env = {}, logFile } = {}) {
  const port = await freePort();
  // The driver's output (and the app's, which inherits it) goes straight to a file, so no pipe
  // keeps this process alive if the app outlives the driver.
  let out = 'ignore';
  if (logFile) {
    mkdirSync(dirname(logFile), { recursive: true });
    out = openSync(logFile, 'w');
  }
  const child = spawn(WEBKIT_WEBDRIVER, [`--port=${port}`], {
    env: { ...process.env, TAURI_WEBVIEW_AUTOMATION: 'true', ...env },
    stdio: ['ignore', out, out],
    // Own process group: the app it launches joins it, so stop() can end both by group id.
    detached: true,
  });
  if (typeof out === 'number') closeSync(out);
  let exited = null;
  child.on('exit', (code, signal) => {
    exited = { code, signal };
  });

  const url = `http://127.0.0.1:${port}`;
  await waitFor(
    async () => {
      if (exited) throw new Error(`WebKitWebDriver exited early (${JSON.stringify(exited)})`);
      const res = await fetch(`${url}/status`);
      return res.ok && (await res.json()).value?.ready;
    },
    { timeout: 15_000, what: `WebKitWebDriver on port ${port}` },
  );

  return {
    url,
    port,
    child,
    /**
     * Stops the driver and anything it launched. The app does not always exit when its
     * session is deleted, so the whole process group (the driver's own) is signalled.
     */
    async stop() {
      const group = -child.pid;
      const signalGroup = (sig) => {
        try {
          process.kill(group, sig);
        } catch {
          // already gone
        }
      };
      const done = exited ? Promise.resolve() : new Promise((r) => child.once('exit', r));
      signalGroup('SIGTERM');
      const timer = setTimeout(() => signalGroup('SIGKILL'), 5_000);
      await done;
      clearTimeout(timer);
      // Give the app a moment to exit on SIGTERM, then make sure it is gone.
      await sleep(300);
      signalGroup('SIGKILL');
    },
  };
}

/** A WebDriver session: one running instance of the app. */
export class Session {
  constructor(driverUrl, id) {
    this.driverUrl = driverUrl;
    this.id = id;
  }

  /** Launches `binary` through the driver and returns the session. */
  static async create(driverUrl, { binary, args = [], timeout = 60_000 }) {
    const value = await request(
      driverUrl,
      'POST',
      '/session',
      { capabilities: { alwaysMatch: { 'webkitgtk:browserOptions': { binary, args } } } },
      timeout,
    );
    return new Session(driverUrl, value.sessionId);
  }

  cmd(method, path, body) {
    return request(this.driverUrl, method, `/session/${this.id}${path}`, body);
  }

  async delete() {
    if (!this.id) return;
    const id = this.id;
    this.id = null;
    await request(this.driverUrl, 'DELETE', `/session/${id}`);
  }

  title() {
    return this.cmd('GET', '/title');
  }

  /** Finds one element by CSS selector; throws WebDriverError (code "no such element") if absent. */
  async find(css) {
    const value = await this.cmd('POST', '/element', { using: 'css selector', value: css });
    return value[ELEMENT_KEY];
  }

  async findAll(css) {
    const values = await this.cmd('POST', '/elements', { using: 'css selector', value: css });
    return values.map((v) => v[ELEMENT_KEY]);
  }

  async exists(css) {
    return (await this.findAll(css)).length > 0;
  }

  /** Waits until `css` matches an element and returns it. */
  waitForElement(css, timeout = 10_000) {
    return waitFor(async () => (await this.findAll(css))[0], { timeout, what: `element ${css}` });
  }

  /** Waits until no element matches `css`. */
  waitForAbsent(css, timeout = 10_000) {
    return waitFor(async () => !(await this.exists(css)), { timeout, what: `${css} to disappear` });
  }

  /** Waits until the text of `css` satisfies `predicate` and returns that text. */
  async waitForText(css, predicate = (t) => t.length > 0, timeout = 10_000) {
    let last;
    try {
      return await waitFor(
        async () => {
          last = await this.text(await this.find(css));
          return predicate(last) ? last : null;
        },
        { timeout, what: `text of ${css}` },
      );
    } catch (err) {
      err.message += ` (last text: ${JSON.stringify(last)})`;
      throw err;
    }
  }

  click(el) {
    return this.cmd('POST', `/element/${el}/click`, {});
  }

  /** Waits for `css` to match (views render asynchronously, as a user would wait), then clicks it. */
  async clickCss(css, timeout = 10_000) {
    return this.click(await this.waitForElement(css, timeout));
  }

  text(el) {
    return this.cmd('GET', `/element/${el}/text`);
  }

  /** Types `text` into an input or textarea (real key events, so the UI's handlers run). */
  type(el, text) {
    return this.cmd('POST', `/element/${el}/value`, { text });
  }

  clear(el) {
    return this.cmd('POST', `/element/${el}/clear`, {});
  }

  /** Waits for the field found by `css`, clears it and types `text` into it. */
  async fill(css, text, timeout = 10_000) {
    const el = await this.waitForElement(css, timeout);
    await this.clear(el);
    // WebDriver rejects an empty "send keys"; clearing is all an empty value needs.
    if (text !== '') await this.type(el, text);
    return el;
  }

  /** Chooses `value` in the `<select>` found by `css`, as a user's pick would (input + change). */
  selectValue(css, value) {
    return this.execute(
      `const el = document.querySelector(arguments[0]);
       if (!el) throw new Error('no element ' + arguments[0]);
       el.value = arguments[1];
       el.dispatchEvent(new Event('input', { bubbles: true }));
       el.dispatchEvent(new Event('change', { bubbles: true }));`,
      [css, value],
    );
  }

  attribute(el, name) {
    return this.cmd('GET', `/element/${el}/attribute/${encodeURIComponent(name)}`);
  }

  displayed(el) {
    return this.cmd('GET', `/element/${el}/displayed`);
  }

  execute(script, args = []) {
    return this.cmd('POST', '/execute/sync', { script, args });
  }

  /**
   * Saves a PNG of the window to `screenshots/<name>.png` and returns the path.
   *
   * WebKitGTK answers a screenshot request only after its next rendering update. With
   * WEBKIT_DISABLE_DMABUF_RENDERER=1 (which the app sets by default on Linux) an idle page
   * never produces one, and the request hangs. So while the request is pending we repaint one
   * nearly transparent pixel in the bottom-right corner, then remove it.
   */
  async screenshot(name) {
    await sleep(SETTLE_MS); // let CSS transitions (tab highlight, hover) finish
    let pending = true;
    const shot = this.cmd('GET', '/screenshot').finally(() => {
      pending = false;
    });
    const nudge = (async () => {
      await sleep(100);
      while (pending) {
        await this.execute(REPAINT_PIXEL).catch(() => {});
        await sleep(200);
      }
    })();
    const base64 = await shot;
    await nudge;
    await this.execute(REMOVE_REPAINT_PIXEL).catch(() => {});
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    const file = resolve(SCREENSHOT_DIR, `${slug(name)}.png`);
    writeFileSync(file, Buffer.from(base64, 'base64'));
    return file;
  }
}

const SETTLE_MS = 250;

const REPAINT_PIXEL = `
  let el = document.getElementById('__e2e_repaint');
  if (!el) {
    el = document.createElement('div');
    el.id = '__e2e_repaint';
    el.setAttribute('aria-hidden', 'true');
    el.style.cssText = 'position:fixed;right:0;bottom:0;width:1px;height:1px;pointer-events:none;z-index:2147483647';
    document.body.appendChild(el);
  }
  el.dataset.tick = el.dataset.tick === '1' ? '0' : '1';
  el.style.background = el.dataset.tick === '1' ? 'rgba(128,128,128,0.02)' : 'rgba(128,128,128,0.01)';
`;
const REMOVE_REPAINT_PIXEL = "document.getElementById('__e2e_repaint')?.remove();";

/** "the window opens" -> "the-window-opens" (safe file name). */
export function slug(name) {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80);
}

async function request(baseUrl, method, path, body, timeout = 30_000) {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json; charset=utf-8' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeout),
  });
  const text = await res.text();
  let json;
  try {
    json = text ? JSON.parse(text) : {};
  } catch {
    throw new WebDriverError(method, path, res.status, { message: text });
  }
  if (!res.ok) throw new WebDriverError(method, path, res.status, json.value);
  return json.value;
}
