import { describe, expect, it } from 'vitest';
import type { MessageRow, Role } from './chatStream';
import { buildItems, hideFromSeqFor, memorySessionOf, rowActions, seekTarget, turnEndAnnouncement, turnFailure, visibleRows } from './chatItems';

function row(seq: number, role: Role, merged = false): MessageRow {
  return {
    key: `m${seq}`,
    seq,
    role,
    content: 'x',
    status: 'complete',
    archived: false,
    createdAt: 1000 + seq,
    author: '',
    tools: [],
    merged,
    reply: null,
  };
}

const failure = { error: { code: 'x', message: 'boom' }, retry: true };

describe('chat items', () => {
  it('starts with the conversation start only once the oldest page is loaded', () => {
    const rows = [row(1, 'user'), row(2, 'assistant')];
    expect(buildItems(rows, false, null, null).map((i) => i.key)).toEqual(['start', 'm1', 'm2']);
    expect(buildItems(rows, true, null, null).map((i) => i.key)).toEqual(['m1', 'm2']);
    expect(buildItems([], false, null, null)).toEqual([]);
  });

  it('ends with the pending message and the live reply while a turn runs, hiding an old failure', () => {
    const rows = [row(1, 'user')];
    expect(buildItems(rows, true, { userText: 'hi' }, failure).map((i) => i.kind)).toEqual([
      'message',
      'pending',
      'live',
    ]);
    expect(buildItems(rows, true, { userText: null }, null).map((i) => i.kind)).toEqual(['message', 'live']);
  });

  it('shows the files sent with the pending message, and a message of files only', () => {
    const photo = { hash: 'h1', name: 'photo.png', kind: 'image' as const, mime: 'image/png', size: 10, tokenCount: 5 };
    expect(buildItems([], true, { userText: '', attachments: [photo] }, null)[0]).toEqual({
      key: 'pending-user',
      kind: 'pending',
      text: '',
      attachments: [photo],
    });
    expect(buildItems([], true, { userText: 'hi' }, null)[0]).toMatchObject({ attachments: [] });
  });

  it('ends with the failed turn when no turn runs', () => {
    const items = buildItems([row(1, 'user')], true, null, failure);
    expect(items[items.length - 1]).toEqual({ key: 'turn-error', kind: 'error', failure });
  });
});

describe('turn replacement', () => {
  it('an edit hides the last user message on, a regenerate only what follows it', () => {
    expect(hideFromSeqFor('edit', 5, 6)).toBe(5);
    expect(hideFromSeqFor('regenerate', 5, 6)).toBe(6);
    expect(hideFromSeqFor('edit', null, null)).toBeNull();
    const rows = [row(4, 'assistant'), row(5, 'user'), row(6, 'assistant')];
    expect(visibleRows(rows, 6).map((r) => r.seq)).toEqual([4, 5]);
    expect(visibleRows(rows, null)).toBe(rows);
  });

  it('a send shows its message once when the list reloads while the reply streams', () => {
    // Sent after row 6: the user's message is stored as seq 7 as the turn starts.
    const hide = hideFromSeqFor('send', 5, 6);
    const reloaded = [row(5, 'user'), row(6, 'assistant'), row(7, 'user')];
    const items = buildItems(visibleRows(reloaded, hide), true, { userText: 'hi' }, null);
    expect(items.filter((i) => i.kind === 'message' || i.kind === 'pending').map((i) => i.key)).toEqual([
      reloaded[0].key,
      reloaded[1].key,
      'pending-user',
    ]);
    // The first message of a new conversation: nothing was shown before it.
    expect(visibleRows([row(1, 'user')], hideFromSeqFor('send', null, null))).toEqual([]);
  });
});

describe('row actions', () => {
  it('regenerate goes on the last reply, or on an unanswered last user message', () => {
    expect(rowActions([row(1, 'user'), row(2, 'assistant')])).toEqual({ lastUserSeq: 1, regenerateSeq: 2 });
    expect(rowActions([row(1, 'assistant'), row(2, 'user')])).toEqual({ lastUserSeq: 2, regenerateSeq: 2 });
    expect(rowActions([])).toEqual({ lastUserSeq: null, regenerateSeq: null });
  });
});

describe('seek target', () => {
  it('scrolls to the hit, else the nearest shown row before it, skipping merged rows', () => {
    const rows = [row(1, 'user'), row(2, 'assistant'), row(3, 'tool', true), row(5, 'user')];
    expect(seekTarget(rows, 2)?.seq).toBe(2);
    expect(seekTarget(rows, 3)?.seq).toBe(2);
    expect(seekTarget(rows, 4)?.seq).toBe(2);
    expect(seekTarget(rows, 0)?.seq).toBe(1);
    expect(seekTarget(rows, 9)?.seq).toBe(5);
  });
});

describe('the end of a turn', () => {
  it('leaves a failure with its reason, or nothing, and says how it ended', () => {
    const failed = { status: 'failed' as const, error: { code: 'network', message: 'Nothing answered.' }, retry: true };
    expect(turnFailure(failed)).toEqual({ error: failed.error, retry: true });
    expect(turnEndAnnouncement(failed)).toBe('The reply failed: Nothing answered.');
    expect(turnFailure({ status: 'failed', error: null, retry: false })?.error.message).toBe('The reply could not be written.');
    expect(turnFailure({ status: 'complete', error: null, retry: true })).toBeNull();
    expect(turnEndAnnouncement({ status: 'stopped', error: null, retry: true })).toBe('Reply stopped.');
    expect(turnEndAnnouncement({ status: 'complete', error: null, retry: true, truncated: true })).toMatch(/output limit/);
    expect(turnEndAnnouncement({ status: 'complete', error: null, retry: true })).toBe('Reply finished.');
  });
});

describe('memorySessionOf', () => {
  it('names the conversation a new memory note belongs to', () => {
    const obs = { id: 'o', sessionKey: 's1', content: '', tokenCount: 1, seqStart: 1, seqEnd: 2, createdAt: 0 };
    expect(memorySessionOf({ type: 'observationAdded', ...obs })).toBe('s1');
    const reflection = { ...obs, sessionKey: 's2', generation: 1, sourceTokenCount: 2 };
    expect(memorySessionOf({ type: 'reflectionAdded', reflection, condensed: 1 })).toBe('s2');
  });
});
