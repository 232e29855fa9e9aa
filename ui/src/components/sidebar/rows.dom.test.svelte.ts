// Mounted (npm run test:dom): the sidebar with hundreds of conversations renders a page of
// rows first and the next page as the user scrolls near the end of the list, asking the
// backend for the next page of conversations when the loaded ones are all shown; a row's time
// gets its full-date tooltip when the pointer comes over it, not as the list renders; the
// pointer coming over the list starts loading what shows a conversation's messages; and a
// search or the list refused because the database is damaged is said in plain words, the
// engine's technical text folded under "Details".
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mount, unmount } from 'svelte';
import { settle } from '../settle.testing';
import type { SessionCursor, SessionSummary } from '../../lib/api/types';
import { ROW_PAGE } from '../../lib/rowWindow';
import { fullTime } from '../../lib/sessions';
import { markdownRenderer } from '../../lib/markdownLoader';
import { conversationParts } from '../chat/messageView';

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

/** A stand-in for the engine's IntersectionObserver: the test says when a marker is seen. */
class Observer {
  static all: Observer[] = [];
  nodes: Element[] = [];
  disconnected = false;
  constructor(private readonly callback: (entries: { isIntersecting: boolean }[]) => void) {
    Observer.all.push(this);
  }
  observe(node: Element) {
    this.nodes.push(node);
  }
  disconnect() {
    this.disconnected = true;
  }
  /** The marker came into view. */
  see() {
    this.callback([{ isIntersecting: true }]);
  }
}
vi.stubGlobal('IntersectionObserver', Observer);

const { default: Sidebar } = await import('../Sidebar.svelte');

const conversations = (n: number): SessionSummary[] =>
  Array.from({ length: n }, (_, i) => ({
    key: `s${i}`,
    title: `Conversation ${i}`,
    model: '',
    pinned: i === n - 1,
    createdAt: 1_700_000_000_000 - i * 60_000,
    updatedAt: 1_700_000_000_000 - i * 60_000,
  }));

let app: ReturnType<typeof mount> | null = null;

/** Mounts the sidebar over `sessions` and lets their rows render. */
async function showSidebar(sessions: SessionSummary[]) {
  commands.listSessions.mockResolvedValue({ sessions, next: null });
  app = mount(Sidebar, {
    target: document.body,
    props: {
      status: null,
      currentKey: null,
      sessionsVersion: 0,
      onSelect: () => {},
      onNewChat: () => {},
      onDeleted: () => {},
    },
  });
  await settle();
}
afterEach(() => {
  commands.listSessions.mockReset();
  commands.search.mockReset();
  if (app) unmount(app);
  app = null;
  document.body.innerHTML = '';
  Observer.all = [];
});

describe('the sidebar with many conversations', () => {
  it('renders a page of rows first, every pinned one, and the next page when the end comes into view', async () => {
    await showSidebar(conversations(120));
    const rows = () => document.querySelectorAll('.session-item').length;
    const pinned = () => document.querySelectorAll('section[aria-labelledby="pinned-heading"] .session-item').length;
    expect(pinned()).toBe(1);
    expect(rows()).toBe(ROW_PAGE + 1);

    Observer.all.at(-1)!.see();
    await settle();
    expect(rows()).toBe(2 * ROW_PAGE + 1);

    Observer.all.at(-1)!.see();
    await settle();
    expect(rows()).toBe(120);
    expect(document.querySelector('.more-rows'), 'no marker once everything is shown').toBeNull();
  });
});

describe('the sidebar with more conversations than one page of the backend', () => {
  it('asks for the next page once the loaded rows are all shown, until the oldest conversation is listed', async () => {
    // The backend's order, 620 conversations, 500 a page, each page after the cursor.
    const all = conversations(620).map((s) => ({ ...s, pinned: false }));
    commands.listSessions.mockImplementation(async (limit: number, after: SessionCursor | null) => {
      const start = after ? after.id + 1 : 0;
      const sessions = all.slice(start, start + limit);
      const last = start + sessions.length - 1;
      const next = sessions.length === limit ? { pinned: false, updatedAt: all[last].updatedAt, id: last } : null;
      return { sessions, next };
    });
    app = mount(Sidebar, {
      target: document.body,
      props: { status: null, currentKey: null, sessionsVersion: 0, onSelect: () => {}, onNewChat: () => {}, onDeleted: () => {} },
    });
    await settle();
    const rows = () => document.querySelectorAll('.session-item').length;
    expect(commands.listSessions).toHaveBeenCalledTimes(1);
    for (let shown = ROW_PAGE; shown < 500; shown += ROW_PAGE) {
      Observer.all.at(-1)!.see();
      await settle();
    }
    expect(rows()).toBe(500);
    expect(commands.listSessions).toHaveBeenCalledTimes(1);

    // The end of the loaded ones comes into view: the next page, after the 500th.
    Observer.all.at(-1)!.see();
    await settle();
    expect(commands.listSessions).toHaveBeenCalledTimes(2);
    expect(commands.listSessions.mock.calls[1][1]).toEqual({ pinned: false, updatedAt: all[499].updatedAt, id: 499 });
    for (let i = 0; i < 3 && document.querySelector('.more-rows'); i++) {
      Observer.all.at(-1)!.see();
      await settle();
    }
    expect(rows()).toBe(620);
    expect(document.querySelector(`.session-item[data-key="s619"]`), 'the oldest conversation').not.toBeNull();
    expect(document.querySelector('.more-rows'), 'no marker once every conversation is shown').toBeNull();
    expect(commands.listSessions).toHaveBeenCalledTimes(2);
  });
});

describe("a conversation's time in the sidebar", () => {
  it('shows the full date as a tooltip once the pointer is over it, formatting none before', async () => {
    const [first] = conversations(3);
    await showSidebar(conversations(3));
    const times = [...document.querySelectorAll<HTMLElement>('.session-item time')];
    expect(times).toHaveLength(3);
    expect(times.filter((t) => t.hasAttribute('title'))).toHaveLength(0);

    const time = document.querySelector<HTMLElement>(`.session-item[data-key="${first.key}"] time`)!;
    time.dispatchEvent(new Event('pointerenter'));
    expect(time.title).toBe(fullTime(first.updatedAt));
  });
});

describe('about to open a conversation', () => {
  it('loads what shows messages once the pointer comes over the list, before any click', async () => {
    await showSidebar(conversations(3));
    expect(conversationParts.current).toBeNull();
    document.querySelector('.sessions-scroll')!.dispatchEvent(new Event('pointerenter'));
    // Generous: the first import of the chunk compiles its Svelte components in the test.
    await vi.waitFor(() => expect(conversationParts.current).not.toBeNull(), { timeout: 15_000 });
    expect(markdownRenderer()).not.toBeNull();
  }, 20_000);
});

const damaged = {
  code: 'database_corrupt',
  message: "Lango's database file is damaged, so this could not be done. Nothing was changed.",
  detail: 'the database at /home/me/lango.db is corrupt (fts5: corruption found reading blob 549755813889)',
};

/** Mounts the sidebar without waiting for its first answers. */
function mountSidebar() {
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
    mountSidebar();
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
    mountSidebar();
    await settle();
    expect(text('.list-error p')).toBe(`Could not load conversations: ${damaged.message}`);
    expect(document.querySelector('#sessions-error-details')?.textContent).toContain('/home/me/lango.db');
    expect(document.querySelector('.list-error .retry')).not.toBeNull();
  });
});
