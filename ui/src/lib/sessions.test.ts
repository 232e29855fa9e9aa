import { describe, expect, it } from 'vitest';
import type { SessionSummary } from './api/types';
import {
  displayTitle,
  groupSessions,
  hitKey,
  hitKindLabel,
  relativeTime,
  removeLocal,
  renameLocal,
  setPinnedLocal,
  UNTITLED,
} from './sessions';

function session(key: string, updatedAt: number, extra: Partial<SessionSummary> = {}): SessionSummary {
  return { key, title: key, model: '', pinned: false, createdAt: 0, updatedAt, ...extra };
}

describe('groupSessions', () => {
  it('puts pinned sessions first, each group most recent first', () => {
    const groups = groupSessions([
      session('a', 10),
      session('b', 30, { pinned: true }),
      session('c', 20),
      session('d', 5, { pinned: true }),
    ]);
    expect(groups.pinned.map((s) => s.key)).toEqual(['b', 'd']);
    expect(groups.recent.map((s) => s.key)).toEqual(['c', 'a']);
  });

  it('breaks ties by creation time, then key', () => {
    const groups = groupSessions([
      session('z', 10, { createdAt: 1 }),
      session('y', 10, { createdAt: 2 }),
      session('b', 10, { createdAt: 1 }),
    ]);
    expect(groups.recent.map((s) => s.key)).toEqual(['y', 'b', 'z']);
  });

  it('does not modify its input and handles an empty list', () => {
    const input = [session('a', 1), session('b', 2)];
    groupSessions(input);
    expect(input.map((s) => s.key)).toEqual(['a', 'b']);
    expect(groupSessions([])).toEqual({ pinned: [], recent: [] });
  });
});

describe('displayTitle', () => {
  it('uses the title, or "New conversation" when it is empty', () => {
    expect(displayTitle('Trip plans')).toBe('Trip plans');
    expect(displayTitle('  Trip plans ')).toBe('Trip plans');
    expect(displayTitle('')).toBe(UNTITLED);
    expect(displayTitle('   ')).toBe('New conversation');
    expect(displayTitle(null)).toBe('New conversation');
  });
});

describe('local edits', () => {
  const list = [session('a', 1), session('b', 2)];

  it('renames one session (trimmed) and leaves the others', () => {
    const next = renameLocal(list, 'b', '  Hello ');
    expect(next.map((s) => s.title)).toEqual(['a', 'Hello']);
    expect(list[1].title).toBe('b');
  });

  it('pins and unpins', () => {
    expect(setPinnedLocal(list, 'a', true)[0].pinned).toBe(true);
    expect(setPinnedLocal(setPinnedLocal(list, 'a', true), 'a', false)[0].pinned).toBe(false);
  });

  it('removes a session; an unknown key changes nothing', () => {
    expect(removeLocal(list, 'a').map((s) => s.key)).toEqual(['b']);
    expect(removeLocal(list, 'zzz')).toHaveLength(2);
  });
});

describe('relativeTime', () => {
  // Local-time dates so the calendar rules hold in any time zone.
  const now = new Date(2025, 5, 18, 15, 30).getTime(); // Wed 18 Jun 2025, 15:30

  it('says "Just now" under a minute, and for future times', () => {
    expect(relativeTime(now - 10_000, now)).toBe('Just now');
    expect(relativeTime(now + 60_000, now)).toBe('Just now');
  });

  it('counts minutes, then hours within the same day', () => {
    expect(relativeTime(now - 5 * 60_000, now)).toBe('5m ago');
    expect(relativeTime(now - 59 * 60_000, now)).toBe('59m ago');
    expect(relativeTime(new Date(2025, 5, 18, 12, 0).getTime(), now)).toBe('3h ago');
    expect(relativeTime(new Date(2025, 5, 18, 0, 5).getTime(), now)).toBe('15h ago');
  });

  it('says "Yesterday" for the previous calendar day, even under 24 hours ago', () => {
    expect(relativeTime(new Date(2025, 5, 17, 23, 0).getTime(), now)).toBe('Yesterday');
    expect(relativeTime(new Date(2025, 5, 17, 1, 0).getTime(), now)).toBe('Yesterday');
  });

  it('shows the weekday within the last week', () => {
    expect(relativeTime(new Date(2025, 5, 16, 9, 0).getTime(), now)).toBe('Mon');
    expect(relativeTime(new Date(2025, 5, 12, 9, 0).getTime(), now)).toBe('Thu');
  });

  it('shows the date after a week, with the year when it differs', () => {
    expect(relativeTime(new Date(2025, 5, 11, 9, 0).getTime(), now)).toBe('Jun 11');
    expect(relativeTime(new Date(2025, 0, 2, 9, 0).getTime(), now)).toBe('Jan 2');
    expect(relativeTime(new Date(2024, 11, 31, 9, 0).getTime(), now)).toBe('Dec 31, 2024');
  });
});

describe('search hits', () => {
  it('labels the kind, noting archived messages', () => {
    expect(hitKindLabel({ kind: 'message', archived: false })).toBe('Message');
    expect(hitKindLabel({ kind: 'message', archived: true })).toBe('Message (archived)');
    expect(hitKindLabel({ kind: 'observation', archived: false })).toBe('Observation');
    expect(hitKindLabel({ kind: 'reflection', archived: false })).toBe('Reflection');
  });

  it('builds distinct keys per kind and session', () => {
    const a = hitKey({ kind: 'message', itemId: '1', sessionKey: 's' });
    const b = hitKey({ kind: 'observation', itemId: '1', sessionKey: 's' });
    expect(a).not.toBe(b);
  });
});
