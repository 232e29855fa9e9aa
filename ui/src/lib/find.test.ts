// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { findLabel, startIndex, stepIndex, textRanges } from './find';

describe('stepping through matches', () => {
  it('starts at the newest match and goes older with Enter, wrapping', () => {
    expect(startIndex(5)).toBe(4);
    expect(stepIndex(4, 5, -1)).toBe(3);
    expect(stepIndex(0, 5, -1)).toBe(4);
    expect(stepIndex(4, 5, 1)).toBe(0);
    expect(stepIndex(-1, 5, -1)).toBe(4);
    expect(stepIndex(0, 0, 1)).toBe(-1);
  });

  it('counts as a person reads it', () => {
    expect(findLabel(2, 17, false)).toBe('3 of 17');
    expect(findLabel(0, 20000, true)).toBe('1 of 20,000+');
    expect(findLabel(-1, 0, false)).toBe('No matches');
  });
});

describe('highlight ranges', () => {
  it('covers every occurrence in the rendered text, whatever its case', () => {
    const root = document.createElement('div');
    root.innerHTML = '<p>Rust and <strong>rust</strong>: RUSTY</p><pre><code>let rust = 1;</code></pre>';
    const ranges = textRanges(root, 'rust');
    expect(ranges.map((r) => r.toString())).toEqual(['Rust', 'rust', 'RUST', 'rust']);
  });

  it('finds nothing for blank text', () => {
    const root = document.createElement('div');
    root.textContent = 'a b';
    expect(textRanges(root, '  ')).toEqual([]);
  });
});
