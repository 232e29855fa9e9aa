import { describe, expect, it } from 'vitest';
import type { SettingsDocument, UpdateCheck } from './api/types';
import { feedUrlOf, safeLink, updateView, withFeedUrl } from './updates';

const answer = (over: Partial<UpdateCheck>): UpdateCheck => ({
  current: '0.1.0',
  outcome: 'upToDate',
  latest: '0.1.0',
  url: null,
  notes: null,
  published: null,
  error: null,
  ...over,
});

describe('updateView', () => {
  it('says the user has the latest version', () => {
    expect(updateView(answer({})).headline).toBe('You have the latest version (0.1.0).');
  });

  it('names a newer version with its link and notes', () => {
    const v = updateView(
      answer({ outcome: 'available', latest: '0.2.0', url: 'https://example.com/r/v0.2.0', notes: ' Faster.\n' }),
    );
    expect(v.tone).toBe('new');
    expect(v.headline).toBe('Lango 0.2.0 is available — you have 0.1.0.');
    expect(v.link).toBe('https://example.com/r/v0.2.0');
    expect(v.notes).toBe('Faster.');
  });

  it('never offers a link that is not http(s), even if the backend sent one', () => {
    const v = updateView(answer({ outcome: 'available', latest: '9.0.0', url: 'javascript:alert(1)' }));
    expect(v.link).toBeNull();
    expect(safeLink('file:///etc/passwd')).toBeNull();
    expect(safeLink('not a url')).toBeNull();
  });

  it('puts the technical detail of a failure apart from the sentence', () => {
    const v = updateView(
      answer({
        outcome: 'failed',
        latest: null,
        error: { code: 'update_bad_json', message: 'The release feed is not a release feed (unreadable JSON).', detail: 'expected value at line 1' },
      }),
    );
    expect(v.tone).toBe('error');
    expect(v.headline).toContain('not a release feed');
    expect(v.detail).toBe('expected value at line 1');
  });
});

describe('feed URL edit', () => {
  it('sets and clears updates.feedUrl, keeping the rest of the document', () => {
    const doc = { appearance: { theme: 'dark' } } as unknown as SettingsDocument;
    const set = withFeedUrl(doc, '  https://example.com/latest.json ');
    expect(feedUrlOf(set)).toBe('https://example.com/latest.json');
    expect(set.appearance).toEqual({ theme: 'dark' });
    expect(feedUrlOf(withFeedUrl(set, ''))).toBe('');
    expect(feedUrlOf(doc)).toBe('');
  });
});
