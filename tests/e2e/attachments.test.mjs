// Attachments in the real window: files picked with the attach button become chips with
// their size and token cost, go with the message to the provider (the text file framed with
// its name, the image as an image part), and stay with the sent message (its thumbnail
// comes back from the backend); a file Lango cannot take shows its reason and no chip.
//
//   scripts/with-desktop-session.sh node --test tests/e2e/attachments.test.mjs
//
// The replies come from `lango-fake-provider` on loopback; the image is a real PNG written
// by ImageMagick (installed for the tests, see scripts/lib.sh).

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { crc32, deflateSync } from 'node:zlib';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, afterEach, before, describe, test } from 'node:test';

import { startAppSession } from './lib/appSession.mjs';
import { DEFAULT_APP_BIN, waitFor } from './lib/webdriver.mjs';
import { startFakeProvider } from './lib/fakeProvider.mjs';

const APP_BIN = process.env.APP_BIN ?? DEFAULT_APP_BIN;
const SCRIPT = { turns: [{ type: 'text', chunks: ['I see a list and a picture.'] }], models: ['fake-vision'] };

/** A 12000×12000 grayscale PNG (one colour: ~140 KB on disk, 144 megapixels decoded). */
function hugePng(side) {
  const chunk = (type, data) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write(type, 4, 'ascii');
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
    return Buffer.concat([head, data, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(side, 0);
  ihdr.writeUInt32BE(side, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // grayscale
  const raw = Buffer.alloc((side + 1) * side, 0xc8);
  for (let y = 0; y < side; y++) raw[y * (side + 1)] = 0; // filter byte of each row
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

describe('Lango desktop: attachments', () => {
  let app;
  let files;
  let session;
  let fake;

  /** Picks `paths` with the attach button's file input (as the file dialog would). */
  async function attach(...paths) {
    await session.waitForElement('#attach-button');
    // The input is hidden behind the button; WebDriver types paths into a visible one.
    await session.execute(`document.getElementById('attach-input').hidden = false;`);
    const input = await session.find('#attach-input');
    await session.type(input, paths.join('\n'));
    await session.execute(`document.getElementById('attach-input').hidden = true;`);
  }

  async function waitIdle() {
    await session.waitForElement('#send-button', 30_000);
    await session.waitForAbsent('#stop-button', 30_000);
  }

  before(async () => {
    assert.ok(existsSync(APP_BIN), `app binary not found: ${APP_BIN}`);
    app = await startAppSession('attach', async (root) => {
      files = join(root, 'files');
      mkdirSync(files);
      writeFileSync(join(files, 'groceries.md'), '# Groceries\n\n- oat milk\n- lemons\n');
      execFileSync('convert', ['-size', '64x48', 'gradient:blue-yellow', join(files, 'sky.png')]);
      writeFileSync(join(files, 'tool.bin'), Buffer.from([0, 1, 2, 3, 0, 0, 255, 254]));
      writeFileSync(join(files, 'poster.png'), hugePng(12000));
      fake = await startFakeProvider(SCRIPT, root);
      return {
        providers: { local: { type: 'openai-compatible', baseUrl: `${fake.url}/v1`, defaultModel: 'fake-vision' } },
        agent: { provider: 'local' },
      };
    });
    session = app.session;
  });

  afterEach(async (t) => {
    if (session?.id) await session.screenshot(`attach ${t.name}`);
  });

  after(async () => {
    await app?.close();
    fake?.stop();
  });

  test('a file Lango cannot take shows its reason and no chip', async () => {
    await session.clickCss('#new-chat');
    await attach(join(files, 'tool.bin'));
    await session.waitForText('[aria-label="Files not attached"]', (t) => t.includes('"tool.bin" cannot be attached'), 15_000);
    assert.equal((await session.findAll('[data-testid="attachment-chip"]')).length, 0);
  });

  test('picked files become chips with size and tokens, then go with the message', async () => {
    await attach(join(files, 'groceries.md'), join(files, 'sky.png'));
    await waitFor(
      async () =>
        (await session.execute(
          `return Array.from(document.querySelectorAll('[data-testid="attachment-chip"]'))
             .filter((c) => c.getAttribute('aria-busy') !== 'true' && /tokens/.test(c.textContent)).length`,
        )) === 2,
      { what: 'two prepared chips', timeout: 20_000 },
    );
    const chips = await session.execute(
      `return Array.from(document.querySelectorAll('[data-testid="attachment-chip"]')).map((c) => c.textContent.replace(/\\s+/g, ' ').trim())`,
    );
    assert.match(chips[0], /groceries\.md/);
    assert.match(chips[1], /sky\.png/);
    await session.fill('#composer-input', 'What is in these?');
    await session.clickCss('#send-button');
    await waitIdle();
    await waitFor(() => fake.chatRequests().length === 1, { what: 'the request' });
    const parts = fake.chatRequests()[0].messages[1].content;
    assert.ok(Array.isArray(parts), 'a message with an image is a list of parts');
    assert.match(parts[0].text, /^What is in these\?/);
    assert.match(parts[0].text, /\[Attached file: groceries\.md \(text\/markdown/);
    assert.match(parts[0].text, /- oat milk/);
    assert.match(parts[1].image_url.url, /^data:image\/png;base64,/);
    // The sent message keeps its files: the image's thumbnail comes back from the backend.
    await waitFor(
      () =>
        session.execute(
          `const m = Array.from(document.querySelectorAll('.message[data-role="user"]')).at(-1);
           const img = m?.querySelector('[data-testid="message-attachments"] img');
           return !!img && img.getAttribute('src').startsWith('data:image/png;base64,') && img.naturalWidth > 0;`,
        ),
      { what: "the sent image's thumbnail", timeout: 15_000 },
    );
    const fileList = await session.execute(
      `const m = Array.from(document.querySelectorAll('.message[data-role="user"]')).at(-1);
       return m?.querySelector('[data-testid="message-attachments"] [aria-label="Attached files"]')?.textContent ?? '';`,
    );
    assert.match(fileList, /groceries\.md/);
    assert.equal((await session.findAll('[data-testid="attachment-chip"]')).length, 0, 'the chips are cleared');
  });

  test('a 12000×12000 image is prepared in the background: the window stays usable and the chip comes', async () => {
    await session.clickCss('#new-chat');
    await attach(join(files, 'poster.png'));
    // While the backend scales it down, typing still works.
    await session.fill('#composer-input', 'still typing');
    assert.equal(await session.execute(`return document.getElementById('composer-input').value`), 'still typing');
    await waitFor(
      () =>
        session.execute(
          `const c = document.querySelector('[data-testid="attachment-chip"]');
           return !!c && c.getAttribute('aria-busy') !== 'true' && /poster\.png/.test(c.textContent) && /tokens/.test(c.textContent);`,
        ),
      { what: 'the prepared chip of the huge image', timeout: 90_000 },
    );
    await session.clickCss('button[aria-label="Remove poster.png"]');
    await session.waitForAbsent('[data-testid="attachment-chip"]');
  });
});
