import { describe, expect, it } from 'vitest';
import { render } from 'svelte/server';
import DataSection from './DataSection.svelte';
import type { ImportSummary } from '../../lib/api/types';

const summary = (over: Partial<ImportSummary> = {}): ImportSummary => ({
  source: 'claude',
  conversations: 3,
  created: 2,
  updated: 0,
  unchanged: 1,
  messagesImported: 9,
  skippedConversations: [
    { reason: 'emptyConversation', description: 'empty conversation', count: 1, titles: ['<b>Empty</b>'] },
  ],
  skippedMessages: [{ reason: 'reasoning', description: "the model's hidden reasoning", count: 2, titles: [] }],
  notes: 1,
  sessions: ['claude-1', 'claude-2'],
  cancelled: false,
  ...over,
});

describe('Settings → Data → Import', () => {
  it('asks for the export file, with Import disabled until there is one', () => {
    const { body } = render(DataSection, { props: {} });
    expect(body).toContain('conversations.json');
    expect(body).toMatch(/<input[^>]*id="import-path"/);
    expect(body).toMatch(/<button[^>]*id="import-start"[^>]*disabled/);
    expect(body).not.toContain('id="import-progress"');
  });

  it('shows a progress bar with a Stop button while importing', () => {
    const { body } = render(DataSection, {
      props: { initialProgress: { type: 'writing', done: 3, total: 12 } },
    });
    expect(body).toMatch(/<progress[^>]*id="import-progress"[^>]*max="12"[^>]*value="3"/);
    expect(body).toContain('Saving conversations: 3 of 12');
    expect(body).toContain('id="import-cancel"');
    expect(body).toMatch(/<input[^>]*id="import-path"[^>]*disabled/);
  });

  it('summarises what was imported and left out, titles as text only', () => {
    const { body } = render(DataSection, { props: { initialSummary: summary() } });
    expect(body).toContain('Imported from Claude: 2 new conversations, 1 already imported — 9 messages.');
    expect(body).toContain('1 × empty conversation: “&lt;b>Empty&lt;/b>”');
    expect(body).not.toContain('<b>Empty</b>');
    expect(body).toContain("2 × the model's hidden reasoning");
    expect(body).toContain('1 image or file kept as a note');
    expect(body).toContain('id="import-memory-estimate"');
  });

  it('shows the memory cost before offering to build it', () => {
    const { body } = render(DataSection, {
      props: {
        initialSummary: summary(),
        initialEstimate: { sessions: 2, observerCalls: 2, observerTokens: 5000, reflectorTokensAtMost: 2048, tokens: 7048 },
      },
    });
    expect(body).toContain('This sends about 7,048 tokens to the memory model');
    expect(body).toContain('id="import-memory-build"');
    expect(body).not.toContain('id="import-memory-estimate"');
  });

  it('says plainly why a file could not be imported, the detail folded', () => {
    const { body } = render(DataSection, {
      props: {
        initialError: {
          code: 'import_zip',
          message: 'export.zip is a zip archive. Unzip it and import the conversations.json inside it. Nothing was imported.',
          detail: null,
        },
      },
    });
    expect(body).toMatch(/id="import-error"[^>]*role="alert"/);
    expect(body).toContain('Unzip it and import the conversations.json inside it.');
    expect(body).not.toContain('id="import-summary"');
  });
});
