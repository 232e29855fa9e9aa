// The installed Lango (from the .deb) on first start, as a new user meets it: started by the
// command of its desktop entry, with a HOME that has never seen Lango and no LANGO_HOME, so
// the app picks its platform folders itself.
//
// Run by tests/package/test-deb.sh (after `apt-get install ./Lango_*.deb`) inside
// scripts/with-desktop-session.sh, which gives it Xvfb, a D-Bus session with an unlocked
// keyring and a fresh HOME. Needs xwininfo/xprop (x11-utils) and ImageMagick's `import`.
//
//   DESKTOP_FILE  the installed desktop entry (default /usr/share/applications/Lango.desktop)

import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';

import { ARTIFACT_DIR, SCREENSHOT_DIR, Session, startDriver, waitFor } from '../e2e/lib/webdriver.mjs';

const DESKTOP_FILE = process.env.DESKTOP_FILE ?? '/usr/share/applications/Lango.desktop';
const HOME = process.env.HOME;

/** The `[Desktop Entry]` keys of a desktop file. */
function desktopEntry(file) {
  const entry = {};
  let inMain = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('[')) inMain = line.trim() === '[Desktop Entry]';
    const m = inMain && line.match(/^([A-Za-z0-9-]+)=(.*)$/);
    if (m) entry[m[1]] = m[2];
  }
  return entry;
}

/** The Exec line as argv, without field codes (%U, %f …), resolved on PATH like a launcher does. */
function launcherCommand(exec) {
  const argv = exec.split(/\s+/).filter((a) => a && !/^%[a-zA-Z]$/.test(a));
  const found = (process.env.PATH ?? '').split(':').map((d) => join(d, argv[0])).find((p) => existsSync(p));
  assert.ok(argv[0].startsWith('/') || found, `${argv[0]} (the desktop entry's Exec) is not on PATH`);
  return [argv[0].startsWith('/') ? argv[0] : found, ...argv.slice(1)];
}

/** The X window ids whose title is exactly `title`. */
function windowsTitled(title) {
  const tree = execFileSync('xwininfo', ['-root', '-tree'], { encoding: 'utf8' });
  return [...tree.matchAll(/^\s*(0x[0-9a-f]+) "(.*?)":/gm)].filter((m) => m[2] === title).map((m) => m[1]);
}

function wmClass(id) {
  // WM_CLASS(STRING) = "instance", "class"
  const out = execFileSync('xprop', ['-id', id, 'WM_CLASS'], { encoding: 'utf8' });
  return [...out.matchAll(/"([^"]*)"/g)].map((m) => m[1]);
}

/** Width and height of the viewable window `id`, or null while it is not mapped. */
function viewableSize(id) {
  const info = execFileSync('xwininfo', ['-id', id], { encoding: 'utf8' });
  if (!/Map State: IsViewable/.test(info)) return null;
  return [Number(info.match(/Width: (\d+)/)[1]), Number(info.match(/Height: (\d+)/)[1])];
}

/** How much a PNG's pixels vary (0 = one flat colour, e.g. a blank or black window). */
function pixelSpread(png) {
  return Number(execFileSync('convert', [png, '-format', '%[fx:standard_deviation]', 'info:'], { encoding: 'utf8' }));
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

describe('the installed package on first start', () => {
  let entry;
  let env;
  let dataDir;
  let configDir;

  before(() => {
    assert.ok(existsSync(DESKTOP_FILE), `${DESKTOP_FILE} is not installed`);
    entry = desktopEntry(DESKTOP_FILE);
    env = { ...process.env };
    for (const name of ['LANGO_HOME', 'XDG_DATA_HOME', 'XDG_CONFIG_HOME', 'XDG_CACHE_HOME', 'XDG_STATE_HOME']) {
      delete env[name];
    }
    dataDir = join(HOME, '.local', 'share', 'lango');
    configDir = join(HOME, '.config', 'lango');
    // A user who has never run Lango.
    assert.ok(!existsSync(dataDir) && !existsSync(configDir), `${HOME} already has Lango's folders`);
  });

  test('the launcher command opens the Lango window, which stays up and shows the app', async () => {
    const argv = launcherCommand(entry.Exec);
    const app = spawn(argv[0], argv.slice(1), { env, stdio: 'ignore', detached: true });
    let exited = null;
    app.on('exit', (code, signal) => {
      exited = { code, signal };
    });
    try {
      const id = await waitFor(
        () => {
          if (exited) throw new Error(`the app exited at start: ${JSON.stringify(exited)}`);
          return windowsTitled(entry.Name).find((w) => viewableSize(w));
        },
        { timeout: 30_000, what: `a viewable window titled "${entry.Name}"` },
      );
      const [width, height] = viewableSize(id);
      assert.ok(width >= 800 && height >= 560, `window is ${width}x${height}, smaller than its minimum size`);
      // Docks match windows to launchers by WM_CLASS: it must be the entry's StartupWMClass.
      assert.ok(wmClass(id).includes(entry.StartupWMClass), `WM_CLASS ${wmClass(id)} lacks ${entry.StartupWMClass}`);

      // The engine opened its database in the platform data folder (no LANGO_HOME set).
      await waitFor(() => existsSync(join(dataDir, 'lango.db')), { timeout: 15_000, what: `${dataDir}/lango.db` });
      await sleep(3_000); // let the page paint
      const shot = resolve(SCREENSHOT_DIR, 'package-first-run-launcher.png');
      execFileSync('mkdir', ['-p', SCREENSHOT_DIR]);
      execFileSync('import', ['-window', 'root', shot]);
      assert.ok(pixelSpread(shot) > 0.05, `the screen is (nearly) one flat colour: see ${shot}`);
      assert.equal(exited, null, 'the app died after opening its window');
    } finally {
      if (!exited) {
        const done = new Promise((r) => app.once('exit', r));
        process.kill(app.pid, 'SIGTERM');
        await Promise.race([done, sleep(10_000)]);
      }
      try {
        process.kill(-app.pid, 'SIGKILL'); // the WebKit processes, if anything is left
      } catch {}
    }
    assert.deepEqual(exited, { code: 0, signal: null }, 'SIGTERM (a session logging out) should end the app cleanly');
  });

  describe('the first-run screen', () => {
    let driver;
    let session;

    before(async () => {
      driver = await startDriver({ env, logFile: join(ARTIFACT_DIR, 'package-webkitwebdriver.log') });
      session = await Session.create(driver.url, { binary: launcherCommand(entry.Exec)[0] });
      await session.waitForElement('#app-shell', 30_000);
    });

    after(async () => {
      if (session?.id) await session.screenshot('package-first-run-settings').catch(() => {});
      await session?.delete().catch(() => {});
      await driver?.stop();
    });

    test('asks for a provider before the first chat', async () => {
      assert.equal(await session.title(), 'Lango');
      const chat = await session.waitForText('#view-chat', (t) => /Add a provider/.test(t), 15_000);
      assert.match(chat, /Add a provider to start chatting/);
      await session.screenshot('package-first-run');
    });

    test('keeps its data in the platform folders of a new user', async () => {
      await session.clickCss('#nav-settings');
      assert.equal(await session.waitForText('#data-dir'), dataDir);
      assert.equal(await session.waitForText('#config-file'), join(configDir, 'settings.json'));
    });
  });
});
