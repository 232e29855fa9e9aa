import { describe, expect, it } from 'vitest';
import {
  annotationBadges,
  displayName,
  formatDuration,
  hideShownImageData,
  imageSrc,
  imagesInResult,
  omittedText,
  parseStatus,
  previewText,
  progressFraction,
  progressText,
  promptCostText,
  statusText,
} from './toolCards';

describe('tool card text', () => {
  it('names every status in plain words', () => {
    expect(statusText('approval')).toBe('waiting for approval');
    expect(statusText('timedOut')).toBe('timed out');
    expect(statusText('noResult')).toBe('no result');
    expect(parseStatus('denied')).toBe('denied');
    expect(parseStatus(undefined)).toBe('done');
    expect(parseStatus('<script>')).toBe('done');
  });

  it('formats durations for people', () => {
    expect(formatDuration(850)).toBe('850 ms');
    expect(formatDuration(2400)).toBe('2.4 s');
    expect(formatDuration(42_000)).toBe('42 s');
    expect(formatDuration(65_000)).toBe('1 min 5 s');
    expect(formatDuration(null)).toBe('');
    expect(formatDuration(-1)).toBe('');
  });

  it('shows the prompt cost and what truncation left out', () => {
    expect(promptCostText(1234)).toBe('≈ 1,234 tokens in the prompt');
    expect(promptCostText(1)).toBe('≈ 1 token in the prompt');
    expect(promptCostText(null)).toBe('');
    expect(omittedText(12000)).toBe('truncated — 12,000 tokens omitted');
    expect(omittedText(0)).toBe('');
    expect(omittedText(null)).toBe('');
  });

  it('shows progress as a share of the total, or a count without one', () => {
    expect(progressText({ progress: 2, total: 8, message: null })).toBe('25%');
    expect(progressFraction({ progress: 2, total: 8, message: null })).toBe(0.25);
    expect(progressFraction({ progress: 20, total: 8, message: null })).toBe(1);
    expect(progressText({ progress: 3, total: null, message: null })).toBe('3');
    expect(progressFraction({ progress: 3, total: null, message: null })).toBeNull();
    expect(progressText(null)).toBe('');
  });

  it('names an MCP tool by server and tool, a built-in by its name', () => {
    expect(displayName({ name: 'files__read', server: 'files', tool: 'read' })).toBe('files · read');
    expect(displayName({ name: 'clock', server: null, tool: null })).toBe('clock');
    expect(displayName({ name: '', server: null, tool: null })).toBe('tool');
  });

  it('shows only the annotation hints a server set', () => {
    expect(annotationBadges({ readOnly: true, destructive: false, openWorld: null, idempotent: true })).toEqual([
      { key: 'readOnly', label: 'read-only' },
      { key: 'idempotent', label: 'idempotent' },
    ]);
    expect(annotationBadges({ destructive: true, openWorld: true }).map((b) => b.label)).toEqual(['destructive', 'open-world']);
    expect(annotationBadges(null)).toEqual([]);
  });
});

describe('result preview', () => {
  it('shows a short result whole', () => {
    expect(previewText('abc')).toEqual({ text: 'abc', hidden: 0 });
  });

  it('cuts a long result at a character limit and says how much is hidden', () => {
    const p = previewText('x'.repeat(5000), 4000);
    expect(p.text.length).toBe(4000);
    expect(p.hidden).toBe(1000);
  });

  it('cuts a result with many lines at a line limit', () => {
    const text = Array.from({ length: 100 }, (_, i) => `line ${i}`).join('\n');
    const p = previewText(text, 100_000, 10);
    expect(p.text.split('\n')).toHaveLength(10);
    expect(p.hidden).toBe(text.length - p.text.length);
  });
});

describe('tool images', () => {
  it('makes a data: URL of an allowed raster image', () => {
    expect(imageSrc({ mimeType: 'image/png', data: 'iVBORw0KGgo=' })).toBe('data:image/png;base64,iVBORw0KGgo=');
    expect(imageSrc({ mimeType: 'IMAGE/JPEG', data: 'AA AA\nBB==' })).toBe('data:image/jpeg;base64,AAAABB==');
  });

  it('never shows SVG, HTML or data that is not base64', () => {
    expect(imageSrc({ mimeType: 'image/svg+xml', data: 'PHN2Zz4=' })).toBeNull();
    expect(imageSrc({ mimeType: 'text/html', data: 'AAAA' })).toBeNull();
    expect(imageSrc({ mimeType: 'image/png;x=y', data: 'AAAA' })).toBeNull();
    expect(imageSrc({ mimeType: 'image/png', data: 'AAAA";onerror="alert(1)' })).toBeNull();
    expect(imageSrc({ mimeType: 'image/png', data: '' })).toBeNull();
  });

  it('finds images in a stored MCP result, and none in anything else', () => {
    const img = { type: 'image', data: 'AAAA', mimeType: 'image/gif' };
    expect(imagesInResult(JSON.stringify({ content: [{ type: 'text', text: 'x' }, img] }))).toEqual([
      { mimeType: 'image/gif', data: 'AAAA' },
    ]);
    expect(imagesInResult([img])).toEqual([{ mimeType: 'image/gif', data: 'AAAA' }]);
    expect(imagesInResult('{"type":"image"')).toEqual([]);
    expect(imagesInResult('{"result":"fine"}')).toEqual([]);
    expect(imagesInResult(null)).toEqual([]);
  });
});

describe('result text beside images', () => {
  it('replaces the base64 of an image shown in the card by a note, keeping everything else', () => {
    const data = 'A'.repeat(4096);
    const r = hideShownImageData(JSON.stringify({ content: [{ type: 'text', text: 'hi' }, { type: 'image', mimeType: 'image/png', data }] }));
    expect(r).toEqual({ content: [{ type: 'text', text: 'hi' }, { type: 'image', mimeType: 'image/png', data: '(3.0 kB, shown below)' }] });
  });

  it('keeps the data of an image the card does not show, and leaves other results alone', () => {
    const svg = { type: 'image', mimeType: 'image/svg+xml', data: 'PHN2Zz4=' };
    expect(hideShownImageData([svg])).toEqual([svg]);
    expect(hideShownImageData('{"a":1}')).toBe('{"a":1}');
    expect(hideShownImageData('not json "image"')).toBe('not json "image"');
  });
});
