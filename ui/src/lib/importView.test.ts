import { describe, expect, it } from 'vitest';
import {
  buildProgressView,
  droppedExport,
  estimateText,
  importProgressView,
  notesLine,
  originLabel,
  skipLines,
  summaryHeadline,
} from './importView';
import type { ImportSummary } from './api/types';

const summary = (over: Partial<ImportSummary> = {}): ImportSummary => ({
  source: 'chatgpt',
  conversations: 3,
  created: 2,
  updated: 0,
  unchanged: 0,
  messagesImported: 10,
  skippedConversations: [],
  skippedMessages: [],
  notes: 0,
  sessions: ['a', 'b'],
  cancelled: false,
  ...over,
});

describe('the import progress bar', () => {
  it('follows the bytes read, then the conversations saved', () => {
    expect(importProgressView({ type: 'reading', bytesRead: 5_000_000, totalBytes: 100_000_000 })).toEqual({
      value: 5_000_000,
      max: 100_000_000,
      label: 'Reading the file: 5.0 of 100.0 MB',
    });
    expect(importProgressView({ type: 'writing', done: 3, total: 12 })).toEqual({
      value: 3,
      max: 12,
      label: 'Saving conversations: 3 of 12',
    });
    expect(importProgressView(null).value).toBeNull();
    expect(buildProgressView({ done: 1, total: 4, notes: 1 }).label).toBe(
      'Building memory: 1 of 4 conversations, 1 note',
    );
  });
});

describe('the import summary', () => {
  it('says what was imported, updated and already there', () => {
    expect(summaryHeadline(summary())).toBe('Imported from ChatGPT: 2 new conversations — 10 messages.');
    expect(summaryHeadline(summary({ source: 'claude', created: 0, updated: 1, unchanged: 2, messagesImported: 1 }))).toBe(
      'Imported from Claude: 0 new conversations, 1 updated, 2 already imported — 1 message.',
    );
    expect(summaryHeadline(summary({ cancelled: true }))).toContain('Stopped before the end');
    expect(summaryHeadline(summary({ created: 500, unchanged: 1200, messagesImported: 69_900 }))).toBe(
      'Imported from ChatGPT: 500 new conversations, 1,200 already imported — 69,900 messages.',
    );
  });

  it('lists what was skipped, with a few titles', () => {
    expect(
      skipLines([
        { reason: 'emptyConversation', description: 'empty conversation', count: 7, titles: ['A', 'B'] },
        { reason: 'hiddenSystemMessage', description: 'hidden system message', count: 2, titles: [] },
      ]),
    ).toEqual(['7 × empty conversation: “A”, “B”, …', '2 × hidden system message']);
    expect(notesLine(summary({ notes: 2 }))).toContain('2 images or files kept as a note');
    expect(notesLine(summary())).toBeNull();
  });

  it('states the memory cost before anything is sent', () => {
    expect(
      estimateText({ sessions: 2, observerCalls: 3, observerTokens: 12_345, reflectorTokensAtMost: 3072, tokens: 15_417 }),
    ).toBe(
      'This sends about 15,417 tokens to the memory model: 12,345 to the observer in 3 calls for 2 conversations, and at most 3,072 more for reflections.',
    );
    expect(estimateText({ sessions: 0, observerCalls: 0, observerTokens: 0, reflectorTokensAtMost: 0, tokens: 0 })).toContain(
      'Nothing to build',
    );
  });
});

describe('imported conversations and dropped files', () => {
  it('names the app a conversation came from', () => {
    expect(originLabel('chatgpt')).toBe('ChatGPT');
    expect(originLabel('claude')).toBe('Claude');
    expect(originLabel(null)).toBeNull();
    expect(originLabel('toString')).toBeNull();
  });

  it('takes the JSON file among dropped files', () => {
    expect(droppedExport(['/a/readme.txt', '/a/conversations.json'])).toBe('/a/conversations.json');
    expect(droppedExport(['/a/export.zip'])).toBe('/a/export.zip');
    expect(droppedExport([])).toBeNull();
  });
});
