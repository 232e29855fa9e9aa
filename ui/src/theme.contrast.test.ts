/**
 * WCAG contrast of the theme's text colours (muted and faint), read from app.css itself so a colour change
 * cannot quietly make muted text unreadable: at least 4.5:1 (AA, normal text) on every
 * background it sits on, in the light theme, the chosen dark theme and the system dark theme.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const css = readFileSync(new URL('./app.css', import.meta.url), 'utf8');

/** The custom properties declared directly in the first block that starts at `selector`. */
function variables(selector: string): Record<string, string> {
  const start = css.indexOf(`${selector} {`);
  if (start < 0) throw new Error(`no block ${selector}`);
  const body = css.slice(start + selector.length + 2, css.indexOf('}', start));
  const vars: Record<string, string> = {};
  for (const m of body.matchAll(/--([\w-]+):\s*([^;]+);/g)) vars[m[1]] = m[2].trim();
  return vars;
}

function rgb(hex: string): [number, number, number] {
  const m = /^#([0-9a-f]{6})$/i.exec(hex);
  if (!m) throw new Error(`not a #rrggbb colour: ${hex}`);
  const n = parseInt(m[1], 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

function luminance(hex: string): number {
  const [r, g, b] = rgb(hex).map((c) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

const THEMES = {
  light: variables(':root'),
  'dark (chosen)': variables(":root[data-theme='dark']"),
  'dark (system)': variables('  :root:not([data-theme])'),
};
/** Where muted text appears: the page, the sidebar, cards, code blocks, the segmented controls. */
const BACKGROUNDS = ['bg', 'sidebar-bg', 'surface', 'code-bg', 'segmented-bg', 'tab-active-bg'];

describe('theme contrast', () => {
  it('computes the WCAG ratio', () => {
    expect(contrast('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrast('#767676', '#ffffff')).toBeGreaterThanOrEqual(4.5);
  });

  for (const [theme, vars] of Object.entries(THEMES)) {
    it(`muted text is at least 4.5:1 on every background in the ${theme} theme`, () => {
      for (const bg of BACKGROUNDS) {
        const ratio = contrast(vars['text-muted'], vars[bg]);
        expect(ratio, `--text-muted on --${bg}: ${ratio.toFixed(2)}`).toBeGreaterThanOrEqual(4.5);
      }
    });

    it(`faint text (timestamps, hints, counters) is at least 4.5:1 too in the ${theme} theme`, () => {
      for (const bg of BACKGROUNDS.filter((b) => b !== 'tab-active-bg')) {
        const ratio = contrast(vars['text-faint'], vars[bg]);
        expect(ratio, `--text-faint on --${bg}: ${ratio.toFixed(2)}`).toBeGreaterThanOrEqual(4.5);
      }
    });

    it(`body text is at least 7:1 in the ${theme} theme`, () => {
      for (const bg of BACKGROUNDS) {
        expect(contrast(vars.text, vars[bg])).toBeGreaterThanOrEqual(7);
      }
    });
  }
});
