import { describe, expect, it } from 'vitest';
import type { ChatEvent, StoredMessage } from './api/types';
import {
  applyChatEvent,
  buildRows,
  contextMeterText,
  emptyReply,
  isReplyEmpty,
  lastIndexOfRole,
  mergeNewest,
  mergeOlder,
  normaliseRole,
  prettyJson,
  replyText,
  statusLabel,
  offersContinue,
  CONTINUE_TEXT,
  type LiveReply,
  type MessageRow,
} from './chatStream';

const play = (events: ChatEvent[], from: LiveReply = emptyReply()) => events.reduce(applyChatEvent, from);

function msg(seq: number, role: string, content = '', extra: Partial<StoredMessage> = {}): StoredMessage {
  return {
    id: seq,
    seq,
    role,
    author: role === 'user' ? 'user' : 'lango',
    content,
    toolCalls: [],
    status: 'complete',
    kind: 'message',
    tokenCount: 1,
    createdAt: 1_700_000_000_000 + seq,
    archived: false,
    ...extra,
  };
}

describe('live reply', () => {
  it('appends deltas in order', () => {
    const r = play([
      { type: 'delta', text: 'Hel' },
      { type: 'delta', text: 'lo, ' },
      { type: 'delta', text: '' },
      { type: 'delta', text: 'world' },
    ]);
    expect(r.parts).toEqual([{ kind: 'text', text: 'Hello, world' }]);
    expect(replyText(r)).toBe('Hello, world');
  });

  it('does not mutate the previous reply', () => {
    const a = play([{ type: 'delta', text: 'a' }]);
    const b = applyChatEvent(a, { type: 'delta', text: 'b' });
    expect(replyText(a)).toBe('a');
    expect(replyText(b)).toBe('ab');
  });

  it('pairs tool calls with their results by id, keeping text order around them', () => {
    const r = play([
      { type: 'delta', text: 'Let me check. ' },
      { type: 'toolCall', id: 'c1', name: 'search', args: { q: 'rust' } },
      { type: 'toolCall', id: 'c2', name: 'clock', args: {} },
      { type: 'toolResult', id: 'c2', name: 'clock', result: { now: '12:00' } },
      { type: 'toolResult', id: 'c1', name: 'search', result: { hits: 3 } },
      { type: 'delta', text: 'Found 3.' },
    ]);
    expect(r.parts).toEqual([
      { kind: 'text', text: 'Let me check. ' },
      { kind: 'tool', id: 'c1', name: 'search', args: '{\n  "q": "rust"\n}', result: '{\n  "hits": 3\n}' },
      { kind: 'tool', id: 'c2', name: 'clock', args: '{}', result: '{\n  "now": "12:00"\n}' },
      { kind: 'text', text: 'Found 3.' },
    ]);
    expect(replyText(r)).toBe('Let me check. Found 3.');
  });

  it('shows a running tool with no result yet, and a result whose call never came', () => {
    const r = play([
      { type: 'toolCall', id: 'a', name: 'slow', args: { n: 1 } },
      { type: 'toolResult', id: 'zzz', name: 'orphan', result: 'ok' },
    ]);
    expect(r.parts[0]).toMatchObject({ kind: 'tool', id: 'a', result: null });
    expect(r.parts[1]).toMatchObject({ kind: 'tool', id: 'zzz', name: 'orphan', args: '', result: 'ok' });
  });

  it('pairs repeated ids (providers without ids) oldest first', () => {
    const r = play([
      { type: 'toolCall', id: 'call_x', name: 'x', args: { i: 1 } },
      { type: 'toolResult', id: 'call_x', name: 'x', result: { r: 1 } },
      { type: 'toolCall', id: 'call_x', name: 'x', args: { i: 2 } },
      { type: 'toolResult', id: 'call_x', name: 'x', result: { r: 2 } },
    ]);
    const tools = r.parts.filter((p) => p.kind === 'tool');
    expect(tools.length).toBe(2);
    expect(tools[0]).toMatchObject({ args: '{\n  "i": 1\n}', result: '{\n  "r": 1\n}' });
    expect(tools[1]).toMatchObject({ args: '{\n  "i": 2\n}', result: '{\n  "r": 2\n}' });
  });

  it('updates a call sent again before its result', () => {
    const r = play([
      { type: 'toolCall', id: 'c', name: 'x', args: { partial: true } },
      { type: 'toolCall', id: 'c', name: 'x', args: { full: true } },
    ]);
    expect(r.parts).toEqual([{ kind: 'tool', id: 'c', name: 'x', args: '{\n  "full": true\n}', result: null }]);
  });

  it('knows when nothing has arrived yet', () => {
    expect(isReplyEmpty(emptyReply())).toBe(true);
    expect(isReplyEmpty(play([{ type: 'delta', text: 'x' }]))).toBe(false);
    expect(isReplyEmpty(play([{ type: 'toolCall', id: '1', name: 't', args: {} }]))).toBe(false);
  });
});

describe('prettyJson', () => {
  it('indents JSON text and values, and leaves other text alone', () => {
    expect(prettyJson('{"a":1}')).toBe('{\n  "a": 1\n}');
    expect(prettyJson({ a: [1] })).toBe('{\n  "a": [\n    1\n  ]\n}');
    expect(prettyJson('not json')).toBe('not json');
    expect(prettyJson('')).toBe('');
    expect(prettyJson(null)).toBe('');
    expect(prettyJson(42)).toBe('42');
  });
});

describe('buildRows', () => {
  it('folds tool results into the assistant call cards and hides the tool row', () => {
    const rows = buildRows([
      msg(1, 'user', 'weather?'),
      msg(2, 'assistant', '', { toolCalls: [{ id: 't1', name: 'weather', input: '{"city":"Oslo"}' }] }),
      msg(3, 'tool', '', { toolCalls: [{ id: 't1', name: 'weather', output: '{"temp":3}' }] }),
      msg(4, 'assistant', 'It is 3°C.'),
    ]);
    expect(rows.map((r) => r.key)).toEqual(['m1', 'm2', 'm3', 'm4']);
    expect(rows[1].tools).toEqual([{ id: 't1', name: 'weather', args: '{\n  "city": "Oslo"\n}', result: '{\n  "temp": 3\n}' }]);
    expect(rows[2].merged).toBe(true);
    expect(rows[3].merged).toBe(false);
  });

  it('shows a tool row on its own when its call is on an older page', () => {
    const rows = buildRows([
      msg(10, 'tool', '', { toolCalls: [{ id: 'x', name: 'calc', output: '{"v":2}' }] }),
      msg(11, 'assistant', 'two'),
    ]);
    expect(rows[0]).toMatchObject({ role: 'tool', merged: false });
    expect(rows[0].tools[0]).toMatchObject({ name: 'calc', result: '{\n  "v": 2\n}' });
  });

  it('leaves a call without a stored result open', () => {
    const rows = buildRows([
      msg(1, 'assistant', 'trying', { status: 'interrupted', toolCalls: [{ id: 'q', name: 'slow', input: '{}' }] }),
    ]);
    expect(rows[0].tools[0].result).toBeNull();
    expect(rows[0].status).toBe('interrupted');
  });

  it('maps legacy roles and keeps archived flags', () => {
    const rows = buildRows([msg(1, 'model', 'hi', { archived: true }), msg(2, 'function')]);
    expect(rows[0]).toMatchObject({ role: 'assistant', archived: true });
    expect(rows[1].role).toBe('tool');
    expect(normaliseRole('user')).toBe('user');
  });

  it('finds the last user and assistant rows', () => {
    const rows = buildRows([
      msg(1, 'user', 'a'),
      msg(2, 'assistant', '', { toolCalls: [{ id: 't', name: 'n', input: '{}' }] }),
      msg(3, 'tool', '', { toolCalls: [{ id: 't', name: 'n', output: '{}' }] }),
    ]);
    expect(lastIndexOfRole(rows, 'user')).toBe(0);
    expect(lastIndexOfRole(rows, 'assistant')).toBe(1);
    expect(lastIndexOfRole(rows, 'tool')).toBe(-1);
  });
});

describe('pages', () => {
  const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => msg(a + i, 'user', `${a + i}`));

  it('prepends older pages without duplicates', () => {
    const loaded = range(101, 200);
    const merged = mergeOlder(loaded, range(1, 101));
    expect(merged.length).toBe(200);
    expect(merged[0].seq).toBe(1);
    expect(merged[199].seq).toBe(200);
  });

  it('replaces the tail with the newest page, keeping older loaded rows', () => {
    const loaded = range(1, 200);
    const page = range(103, 202);
    const merged = mergeNewest(loaded, page, 100);
    expect(merged.length).toBe(202);
    expect(merged.map((m) => m.seq)).toEqual(range(1, 202).map((m) => m.seq));
  });

  it('drops rows a regenerate removed', () => {
    const loaded = [...range(1, 150), msg(151, 'assistant', 'old reply')];
    // Regenerate deleted 150–151 and stored the user message again as 152, reply 153.
    const page = [...range(53, 149), msg(152, 'user', '150'), msg(153, 'assistant', 'new')];
    const merged = mergeNewest(loaded, page, 99);
    expect(merged.map((m) => m.seq).slice(-3)).toEqual([149, 152, 153]);
    expect(merged.length).toBe(151);
  });

  it('takes a short newest page as the whole session', () => {
    expect(mergeNewest(range(1, 5), range(1, 3), 100).length).toBe(3);
    expect(mergeNewest(range(1, 5), [], 100)).toEqual([]);
  });
});

describe('labels', () => {
  it('labels stopped, partial and failed rows', () => {
    expect(statusLabel('interrupted')).toBe('stopped');
    expect(statusLabel('complete')).toBe('');
    expect(statusLabel('error')).toBe('failed');
  });

  it('labels a reply cut at the output limit and offers Continue on the last one only', () => {
    expect(statusLabel('truncated')).toBe('cut at the output limit');
    const row = (seq: number, status: MessageRow['status'], role: MessageRow['role'] = 'assistant') =>
      ({ seq, status, role }) as MessageRow;
    expect(offersContinue(row(4, 'truncated'), 4)).toBe(true);
    expect(offersContinue(row(2, 'truncated'), 4)).toBe(false);
    expect(offersContinue(row(4, 'complete'), 4)).toBe(false);
    expect(offersContinue(row(4, 'interrupted'), 4)).toBe(false);
    expect(CONTINUE_TEXT).toBe('continue');
  });

  it('formats the context meter', () => {
    expect(contextMeterText(1234, 8000, 320)).toBe('1,234 / 8,000 tokens · memory 320');
    expect(contextMeterText(0, 128000, null)).toBe('0 / 128,000 tokens');
  });
});
