// Mounted (npm run test:dom): what the sidebar says when the database fails under it — a
// search or the conversation list refused because the file is damaged: the engine's plain
// headline, and its technical text (SQLite's words, the path) folded under "Details".
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mount, unmount } from 'svelte';
import { settle } from '../settle.testing';

const commands = vi.hoisted(() => ({
  deleteSession: vi.fn(),
  exportSession: vi.fn(),
  listSessions: vi.fn(),
  pinSession: vi.fn(),
  renameSession: vi.fn(),
  showExport: vi.fn(),
  search: vi.fn(),
}));
vi.mock('../../lib/api/commands', () => commands);

const { default: Sidebar } = await import('../Sidebar.svelte');

const damaged = {
  code: 'database_corrupt',
  message: "Lango's database file is damaged, so this could not be done. Nothing was changed.",
  detail: 'the database at /home/me/lango.db is corrupt (fts5: corruption found reading blob 549755813889)',
};

let app: ReturnType<typeof mount> | null = null;
afterEach(() => {
  vi.clearAllMocks();
  if (app) unmount(app);
  app = null;
  document.body.innerHTML = '';
});

function showSidebar() {
  app = mount(Sidebar, {
    target: document.body,
    props: { status: null, currentKey: null, sessionsVersion: 0, onSelect: () => {}, onNewChat: () => {}, onDeleted: () => {} },
  });
}

const text = (css: string) => document.querySelector(css)?.textContent?.replace(/\s+/g, ' ').trim() ?? '';

describe('the sidebar when the database is damaged', () => {
  it('says a search failed in plain words, with SQLite’s text folded away', async () => {
    commands.listSessions.mockResolvedValue({ sessions: [], next: null });
    commands.search.mockRejectedValue(damaged);
    showSidebar();
    await settle();
    const box = document.querySelector<HTMLInputElement>('#session-search')!;
    box.value = 'project';
    box.dispatchEvent(new Event('input', { bubbles: true }));
    await new Promise((r) => setTimeout(r, 400)); // the search box's debounce
    await settle();
    const alert = text('.search-error p');
    expect(alert).toBe(`Search failed: ${damaged.message}`);
    expect(alert).not.toContain('fts5');
    const details = document.querySelector('#search-error-details');
    expect(details?.tagName).toBe('DETAILS');
    expect(details?.hasAttribute('open')).toBe(false);
    expect(details?.textContent).toContain('fts5: corruption found');
  });

  it('says the list could not be loaded the same way, with Retry', async () => {
    commands.listSessions.mockRejectedValue(damaged);
    showSidebar();
    await settle();
    expect(text('.list-error p')).toBe(`Could not load conversations: ${damaged.message}`);
    expect(document.querySelector('#sessions-error-details')?.textContent).toContain('/home/me/lango.db');
    expect(document.querySelector('.list-error .retry')).not.toBeNull();
  });
});
