import { describe, expect, it } from 'vitest';
import { snippetText, splitSnippet } from './snippet';

describe('splitSnippet', () => {
  it('splits plain text and bracketed matches, without the brackets', () => {
    expect(splitSnippet('…the [quick] brown [fox] jumps…')).toEqual([
      { text: '…the ', match: false },
      { text: 'quick', match: true },
      { text: ' brown ', match: false },
      { text: 'fox', match: true },
      { text: ' jumps…', match: false },
    ]);
  });

  it('handles matches at the start and the end', () => {
    expect(splitSnippet('[Rust] is [fast]')).toEqual([
      { text: 'Rust', match: true },
      { text: ' is ', match: false },
      { text: 'fast', match: true },
    ]);
  });

  it('merges adjacent matches into one highlighted part', () => {
    expect(splitSnippet('[new][york] city')).toEqual([
      { text: 'newyork', match: true },
      { text: ' city', match: false },
    ]);
  });

  it('returns one plain part when nothing matches', () => {
    expect(splitSnippet('no markers here')).toEqual([{ text: 'no markers here', match: false }]);
  });

  it('returns nothing for an empty snippet', () => {
    expect(splitSnippet('')).toEqual([]);
  });

  it('keeps brackets that do not enclose a match as text', () => {
    expect(splitSnippet('a[b')).toEqual([{ text: 'a[b', match: false }]);
    expect(splitSnippet('a]b')).toEqual([{ text: 'a]b', match: false }]);
    expect(splitSnippet('list[] ok')).toEqual([{ text: 'list[] ok', match: false }]);
    expect(splitSnippet('x[[y]]z')).toEqual([
      { text: 'x[', match: false },
      { text: 'y', match: true },
      { text: ']z', match: false },
    ]);
  });

  it('never interprets HTML: tags stay literal text', () => {
    const parts = splitSnippet('<img src=x onerror=alert(1)> [<b>]');
    expect(parts).toEqual([
      { text: '<img src=x onerror=alert(1)> ', match: false },
      { text: '<b>', match: true },
    ]);
  });

  it('keeps unicode and whitespace intact', () => {
    expect(splitSnippet('  [café]\n日本')).toEqual([
      { text: '  ', match: false },
      { text: 'café', match: true },
      { text: '\n日本', match: false },
    ]);
  });
});

describe('snippetText', () => {
  it('removes the match markers only', () => {
    expect(snippetText('…the [quick] fox [x')).toBe('…the quick fox [x');
  });
});
