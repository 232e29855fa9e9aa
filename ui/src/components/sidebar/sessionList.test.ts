import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { SessionCursor, SessionsPage, SessionSummary } from '../../lib/api/types';

type Call = { limit: number; after: SessionCursor | null; resolve: (p: SessionsPage) => void };
const calls: Call[] = [];
vi.mock('../../lib/api/commands', () => ({
  listSessions: (limit: number, after: SessionCursor | null) =>
    new Promise((resolve) => calls.push({ limit, after, resolve })),
}));

const { SessionList, SESSION_PAGE } = await import('./sessionList.svelte');

const session = (i: number): SessionSummary => ({
  key: `s${i}`,
  title: `Conversation ${i}`,
  model: '',
  pinned: false,
  createdAt: 0,
  updatedAt: 1_000_000 - i,
});
const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => session(from + i));
const cursor = (i: number): SessionCursor => ({ pinned: false, updatedAt: 1_000_000 - i, id: i });

describe("the sidebar's conversations", () => {
  beforeEach(() => {
    calls.length = 0;
  });

  it('reload asks for as many as were loaded, so the list does not shrink under the user', async () => {
    const list = new SessionList();
    void list.reload();
    expect(calls[0]).toMatchObject({ limit: SESSION_PAGE, after: null });
    calls[0].resolve({ sessions: range(0, SESSION_PAGE), next: cursor(SESSION_PAGE - 1) });
    await vi.waitFor(() => expect(list.sessions).toHaveLength(SESSION_PAGE));

    void list.loadMore();
    expect(calls[1]).toMatchObject({ limit: SESSION_PAGE, after: cursor(SESSION_PAGE - 1) });
    calls[1].resolve({ sessions: range(SESSION_PAGE, 120), next: null });
    await vi.waitFor(() => expect(list.sessions).toHaveLength(SESSION_PAGE + 120));
    expect(list.next).toBeNull();

    // A conversation changed: the list from the top, all 620 of it.
    void list.reload();
    expect(calls[2]).toMatchObject({ limit: SESSION_PAGE + 120, after: null });
  });

  it('drops a page asked for before a reload, and never lists a conversation twice', async () => {
    const list = new SessionList();
    void list.reload();
    calls[0].resolve({ sessions: range(0, SESSION_PAGE), next: cursor(SESSION_PAGE - 1) });
    await vi.waitFor(() => expect(list.sessions).toHaveLength(SESSION_PAGE));

    const more = list.loadMore();
    void list.loadMore(); // one page at a time
    expect(calls).toHaveLength(2);
    void list.reload();
    // The reload's answer: conversation 700 moved to the top.
    calls[2].resolve({ sessions: [session(700), ...range(0, SESSION_PAGE - 1)], next: cursor(SESSION_PAGE - 2) });
    await vi.waitFor(() => expect(list.sessions[0].key).toBe('s700'));
    // The page asked for before it comes late: dropped.
    calls[1].resolve({ sessions: range(SESSION_PAGE, 10), next: null });
    await more;
    expect(list.sessions).toHaveLength(SESSION_PAGE);
    expect(list.next).toEqual(cursor(SESSION_PAGE - 2));

    // The next page may hold a conversation already listed (it moved meanwhile): once only.
    void list.loadMore();
    calls[3].resolve({ sessions: [session(3), ...range(SESSION_PAGE - 1, 5)], next: null });
    await vi.waitFor(() => expect(list.next).toBeNull());
    const keys = list.sessions.map((s) => s.key);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys).toHaveLength(SESSION_PAGE + 5);
  });
});
