import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { platformOf } from './platform';

describe('platformOf', () => {
  it('tells the three desktops apart by their webviews’ user agents', () => {
    expect(platformOf('Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/605.1.15 (KHTML, like Gecko)')).toBe('linux');
    expect(platformOf('Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko)')).toBe(
      'macos',
    );
    expect(
      platformOf(
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Edg/120.0.0.0',
      ),
    ).toBe('windows');
  });

  it('falls back to the generic stacks on anything else', () => {
    expect(platformOf('')).toBe('other');
  });
});

describe('the Linux font stacks', () => {
  const css = readFileSync(new URL('../app.css', import.meta.url), 'utf8');
  const block = (selector: string) => {
    const start = css.indexOf(`${selector} {`);
    if (start < 0) throw new Error(`no block ${selector}`);
    return css.slice(start, css.indexOf('}', start));
  };

  it('name only fontconfig aliases, which WebKitGTK resolves without a lookup per name', () => {
    const linux = block(":root[data-platform='linux']");
    expect(linux).toMatch(/--font-sans:\s*sans-serif;/);
    expect(linux).toMatch(/--font-mono:\s*monospace;/);
  });

  it('leave macOS and Windows their system fonts', () => {
    expect(block(':root')).toMatch(/--font-sans:\s*system-ui/);
    expect(block(':root')).toMatch(/--font-mono:\s*ui-monospace/);
  });
});
