// Mounted (npm run test:dom): the sidebar with hundreds of conversations renders a page of
// rows first and the next page as the user scrolls near the end of the list; a row's time
// gets its full-date tooltip when the pointer comes over it, not as the list renders; the
// pointer coming over the list starts loading what shows a conversation's messages.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mount, unmount } from 'svelte';
import { settle } from '../settle.testing';
import type { SessionSummary } from '../../lib/api/types';
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
  commands.listSessions.mockResolvedValue(sessions);
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
