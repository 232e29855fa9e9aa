import { describe, expect, it } from 'vitest';
import { render } from 'svelte/server';
import SessionRow from './SessionRow.svelte';
import type { SessionSummary } from '../../lib/api/types';

const session = (key: string, title: string): SessionSummary => ({
  key,
  title,
  model: '',
  pinned: false,
  createdAt: 0,
  updatedAt: 0,
});

const noop = () => {};
const row = (s: SessionSummary, streaming = false) =>
  render(SessionRow, {
    props: {
      session: s,
      streaming,
      selected: false,
      now: 0,
      renaming: false,
      onSelect: noop,
      onStartRename: noop,
      onRename: noop,
      onCancelRename: noop,
      onTogglePin: noop,
      onExport: noop,
      onDelete: noop,
    },
  }).body;

const menuLabel = (html: string) => html.match(/<button[^>]*class="menu-button[^"]*"[^>]*aria-label="([^"]*)"/)?.[1] ??
  html.match(/<button[^>]*aria-label="([^"]*)"[^>]*class="menu-button/)?.[1];

describe('the “…” button of a conversation', () => {
  it('names the conversation it acts on, so each one is told apart', () => {
    const a = menuLabel(row(session('a', 'Trip to Lisbon')));
    const b = menuLabel(row(session('b', 'Tax return')));
    expect(a).toBe('More actions for “Trip to Lisbon”');
    expect(b).toBe('More actions for “Tax return”');
  });
});

describe('a conversation in the sidebar', () => {
  it('is marked while its reply is still being written', () => {
    expect(row(session('a', 'Trip'), true)).toContain('Lango is replying');
    expect(row(session('a', 'Trip'), false)).not.toContain('Lango is replying');
  });
});

describe('an imported conversation in the sidebar', () => {
  it('is marked with the app it came from, also for screen readers', () => {
    const html = row({ ...session('chatgpt-1', 'Sourdough'), origin: 'chatgpt' });
    expect(html).toMatch(/<span class="origin[^"]*" title="Imported from ChatGPT">/);
    expect(html).toContain(', imported from ChatGPT</span>');
    expect(html).toMatch(/class="origin[^>]*>.*<svg/);
    expect(row(session('a', 'Own chat'))).not.toContain('class="origin');
  });
});
