import { describe, expect, it } from 'vitest';
import { render } from 'svelte/server';
import MessageItem from './MessageItem.svelte';
import type { MessageRow } from '../../lib/chatStream';

const row = (over: Partial<MessageRow> = {}): MessageRow => ({
  key: 'm2',
  seq: 2,
  role: 'assistant',
  content: 'Hello.',
  status: 'complete',
  archived: false,
  createdAt: 1_700_000_000_000,
  author: 'lango',
  tools: [],
  merged: false,
  reply: null,
  ...over,
});

describe('MessageItem attachments', () => {
  const files = [
    { hash: 'h1', name: 'photo.png', kind: 'image' as const, mime: 'image/png', size: 2048, tokenCount: 1600 },
    { hash: 'h2', name: 'report.pdf', kind: 'pdf' as const, mime: 'application/pdf', size: 3 * 1024 * 1024, tokenCount: 9000 },
    { hash: 'h3', name: '<b>x</b>.txt', kind: 'text' as const, mime: 'text/plain', size: 10, tokenCount: 3 },
  ];

  it('shows a user message’s images and files (name, size), names as text', () => {
    const { body } = render(MessageItem, { props: { row: row({ role: 'user', content: 'Look', attachments: files }) } });
    expect(body).toContain('aria-label="photo.png"');
    expect(body).toContain('report.pdf');
    expect(body).toContain('PDF · 3.0 MB');
    expect(body).toContain('&lt;b>x&lt;/b>.txt');
    expect(body).not.toContain('<b>x</b>');
    expect(body).toContain('Look');
  });

  it('draws no empty bubble for a message of files only', () => {
    const { body } = render(MessageItem, { props: { row: row({ role: 'user', content: '', attachments: files }) } });
    expect(body).toContain('report.pdf');
    expect(body).not.toContain('class="bubble');
  });
});

describe('MessageItem reply footer', () => {
  it('says which model wrote a reply, its tokens and cost', () => {
    const { body } = render(MessageItem, {
      props: { row: row({ reply: { provider: 'openai', model: 'gpt-4o-mini', inputTokens: 1234, outputTokens: 56, cost: 0.0012 } }) },
    });
    expect(body).toContain('gpt-4o-mini · 1,234 in · 56 out · $0.0012');
  });

  it('renders a model name from the server as text, never as markup', () => {
    const { body } = render(MessageItem, {
      props: { row: row({ reply: { provider: 'x', model: '<img src=x onerror=alert(1)>', inputTokens: null, outputTokens: null, cost: null } }) },
    });
    expect(body).not.toContain('<img src=x');
    expect(body).toContain('&lt;img src=x onerror=alert(1)>');
  });

  it('shows no usage line on replies written before usage was kept', () => {
    const { body } = render(MessageItem, { props: { row: row() } });
    expect(body).not.toContain('data-testid="reply-info"');
  });
});

describe('MessageItem long messages', () => {
  const log = Array.from({ length: 5_000 }, (_, i) => `2026-11-29 line ${i} of a pasted log`).join('\n');

  it('a pasted log of 170 KB shows its start with "Show more", not all of it', () => {
    for (const role of ['user', 'assistant'] as const) {
      const { body } = render(MessageItem, { props: { row: row({ role, content: log }) } });
      expect(body).toContain('line 0 of a pasted log');
      expect(body).not.toContain('line 4999 of a pasted log');
      expect(body).toMatch(/Show more \(\d+\.\d KB more\)/);
    }
  });

  it('a short message has no "Show more"', () => {
    const { body } = render(MessageItem, { props: { row: row({ role: 'user', content: 'hi' }) } });
    expect(body).not.toContain('Show more');
    expect(body).not.toContain('data-testid="long-message"');
  });
});
