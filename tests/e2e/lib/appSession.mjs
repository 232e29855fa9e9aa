// One app under test with its own data folder: a temporary root, `settings.json` written
// before the first start, private XDG folders, WebKitWebDriver and a session with the
// window shown. What every e2e file that needs a fresh app repeats, once.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { ARTIFACT_DIR, DEFAULT_APP_BIN, Session, startDriver } from './webdriver.mjs';

/**
 * Starts the app (APP_BIN, else the debug build) on a new data folder under a temporary
 * root named after `name`. `settings(root)` returns the settings.json object (the root is
 * there to start servers in first). Close with `close()`.
 */
export async function startAppSession(name, settings, { env = {} } = {}) {
  const root = mkdtempSync(join(tmpdir(), `lango-e2e-${name}-`));
  const langoHome = join(root, 'lango-home');
  mkdirSync(langoHome, { recursive: true });
  writeFileSync(join(langoHome, 'settings.json'), JSON.stringify(await settings(root)));
  const xdg = (dir) => {
    const path = join(root, dir);
    mkdirSync(path, { recursive: true });
    return path;
  };
  const driver = await startDriver({
    env: { LANGO_HOME: langoHome, XDG_DATA_HOME: xdg('data'), XDG_CACHE_HOME: xdg('cache'), XDG_CONFIG_HOME: xdg('config'), ...env },
    logFile: join(ARTIFACT_DIR, `webkitwebdriver-${name}.log`),
  });
  const session = await Session.create(driver.url, { binary: process.env.APP_BIN ?? DEFAULT_APP_BIN });
  await session.waitForElement('#app-shell', 20_000);
  return {
    root,
    langoHome,
    driver,
    session,
    async close() {
      await session.delete().catch(() => {});
      await driver.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
