import { describe, expect, it } from 'vitest';
import { COLLAPSED_CHARS, EXPANDED_CHARS, showMoreLabel, shownText } from './longText';

describe('long messages', () => {
  it('a message within the limit is drawn whole', () => {
    expect(shownText('short', false)).toEqual({ text: 'short', hidden: 0 });
    const edge = 'x'.repeat(COLLAPSED_CHARS);
    expect(shownText(edge, false)).toEqual({ text: edge, hidden: 0 });
  });

  it('a long one shows its start, cut at a line end near the limit', () => {
    const log = 'a log line of forty characters, or so..\n'.repeat(2_000);
    const shown = shownText(log, false);
    expect(shown.text.length).toBeLessThanOrEqual(COLLAPSED_CHARS);
    expect(shown.text.length).toBeGreaterThan(COLLAPSED_CHARS * 0.8);
    expect(log.startsWith(shown.text)).toBe(true);
    expect(log[shown.text.length]).toBe('\n');
    expect(shown.hidden).toBe(log.length - shown.text.length);
  });

  it('expanded, even a huge one is drawn up to its cap, never splitting a character', () => {
    const huge = `${'x'.repeat(EXPANDED_CHARS - 1)}😀${'y'.repeat(1_000_000)}`;
    const shown = shownText(huge, true);
    expect(shown.text.length).toBe(EXPANDED_CHARS - 1);
    expect(shown.hidden).toBe(huge.length - EXPANDED_CHARS + 1);
    expect(showMoreLabel(2_800_000)).toBe('Show more (2.7 MB more)');
  });
});
