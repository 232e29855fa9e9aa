import { describe, expect, it } from 'vitest';
import type { ChatEvent, StoredMessage } from './api/types';
import {
  applyChatEvent,
  decideApproval,
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
    expect(r.parts).toMatchObject([
      { kind: 'text', text: 'Let me check. ' },
      { kind: 'tool', id: 'c1', name: 'search', args: '{\n  "q": "rust"\n}', result: '{\n  "hits": 3\n}', status: 'done' },
      { kind: 'tool', id: 'c2', name: 'clock', args: '{}', result: '{\n  "now": "12:00"\n}', status: 'done' },
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
    expect(r.parts.length).toBe(1);
    expect(r.parts[0]).toMatchObject({ kind: 'tool', id: 'c', name: 'x', args: '{\n  "full": true\n}', result: null, status: 'running' });
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
  it('carries the files of a user message, and none on rows without', () => {
    const attachments = [
      { hash: 'h1', name: 'a.pdf', kind: 'pdf' as const, mime: 'application/pdf', size: 100, tokenCount: 50 },
    ];
    const rows = buildRows([msg(1, 'user', '', { attachments }), msg(2, 'assistant', 'ok'), msg(3, 'user', 'x', { attachments: [] })]);
    expect(rows[0].attachments).toEqual(attachments);
    expect(rows[1]).not.toHaveProperty('attachments');
    expect(rows[2]).not.toHaveProperty('attachments');
  });

  it('folds tool results into the assistant call cards and hides the tool row', () => {
    const rows = buildRows([
      msg(1, 'user', 'weather?'),
      msg(2, 'assistant', '', { toolCalls: [{ id: 't1', name: 'weather', input: '{"city":"Oslo"}' }] }),
      msg(3, 'tool', '', { toolCalls: [{ id: 't1', name: 'weather', output: '{"temp":3}' }] }),
      msg(4, 'assistant', 'It is 3°C.'),
    ]);
    expect(rows.map((r) => r.key)).toEqual(['m1', 'm2', 'm3', 'm4']);
    expect(rows[1].tools).toMatchObject([{ id: 't1', name: 'weather', args: '{\n  "city": "Oslo"\n}', result: '{\n  "temp": 3\n}' }]);
    expect(rows[2].merged).toBe(true);
    expect(rows[3].merged).toBe(false);
  });

  it('keeps who wrote a reply and its usage on assistant rows only', () => {
    const reply = { provider: 'openai', model: 'gpt-4o', inputTokens: 10, outputTokens: 2, cost: null };
    const rows = buildRows([msg(1, 'user', 'hi', { reply }), msg(2, 'assistant', 'hello', { reply }), msg(3, 'assistant', 'old')]);
    expect(rows.map((r) => r.reply)).toEqual([null, reply, null]);
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

// The shapes the store really has (agent/session/convert.rs): a tool row carries each
// result in `toolCalls[].output` AND the same JSON as its `content`.
describe('buildRows with stored history', () => {
  const call = (id: string, name: string, input: string, extra: Record<string, unknown> = {}) => ({ id, name, input, ...extra });
  const out = (id: string, name: string, output: string, extra: Record<string, unknown> = {}) => ({ id, name, output, ...extra });

  it("a tool result row folds into its call's card", () => {
    const rows = buildRows([
      msg(1, 'user', 'weather?'),
      msg(2, 'assistant', '', { toolCalls: [call('t1', 'weather', '{"city":"Oslo"}')] }),
      msg(3, 'tool', '{"temp":3}', { toolCalls: [out('t1', 'weather', '{"temp":3}')] }),
      msg(4, 'assistant', 'It is 3°C.'),
    ]);
    expect(rows[1].tools).toHaveLength(1);
    expect(rows[1].tools[0]).toMatchObject({ id: 't1', result: '{\n  "temp": 3\n}', status: 'done' });
    expect(rows[2].merged).toBe(true);
    expect(rows[2].tools).toEqual([]);
    // Every call is drawn exactly once.
    expect(rows.filter((r) => !r.merged).flatMap((r) => r.tools)).toHaveLength(1);
  });

  it("a stored result's meta gives the card its status, cost and the whole result", () => {
    const meta = {
      status: 'done',
      durationMs: 42,
      promptTokens: 8000,
      omittedTokens: 120000,
      server: 'files',
      tool: 'read_file',
      fullOutput: '{"content":"the whole file"}',
      images: [{ mimeType: 'image/png', data: 'iVBORw0KGgo=' }],
    };
    const rows = buildRows([
      msg(1, 'assistant', '', { toolCalls: [call('r', 'files__read_file', '{"path":"a"}')] }),
      msg(2, 'tool', '{"result":"the wh","truncated":"truncated"}', {
        toolCalls: [out('r', 'files__read_file', '{"result":"the wh","truncated":"truncated"}', { meta })],
      }),
    ]);
    expect(rows[0].tools[0]).toMatchObject({
      status: 'done',
      durationMs: 42,
      promptTokens: 8000,
      omittedTokens: 120000,
      server: 'files',
      tool: 'read_file',
      result: '{\n  "content": "the whole file"\n}',
    });
    expect(rows[0].tools[0].images).toEqual([{ mimeType: 'image/png', data: 'iVBORw0KGgo=' }]);
    const denied = buildRows([
      msg(1, 'assistant', '', { toolCalls: [call('d', 'x', '{}')] }),
      msg(2, 'tool', '{"error":"no"}', { toolCalls: [out('d', 'x', '{"error":"no"}', { meta: { status: 'denied' } })] }),
    ]);
    expect(denied[0].tools[0].status).toBe('denied');
  });

  it("a large result's start is shown as it is, with where the whole one is and its size", () => {
    const meta = { status: 'done', fullOutput: '{"content":"the start of a long fi', fullOutputBytes: 5_000_000 };
    const rows = buildRows(
      [
        msg(1, 'assistant', '', { toolCalls: [call('r', 'files__read_file', '{"path":"a"}')] }),
        msg(2, 'tool', '{"result":"cut"}', { toolCalls: [out('r', 'files__read_file', '{"result":"cut"}', { meta })] }),
      ],
      'chat-1',
    );
    expect(rows[0].tools[0].result).toBe('{"content":"the start of a long fi');
    expect(rows[0].tools[0].resultRest).toEqual({ sessionKey: 'chat-1', seq: 2, callId: 'r', bytes: 5_000_000 });
    const whole = buildRows([msg(2, 'tool', '{"r":1}', { toolCalls: [out('w', 'x', '{"r":1}')] })], 'chat-1');
    expect(whole[0].tools[0].resultRest).toBeNull();
  });

  it('two calls answered in one tool row (or in one row each) are one card each', () => {
    const one = buildRows([
      msg(1, 'assistant', '', { toolCalls: [call('a', 'x', '{}'), call('b', 'y', '{}')] }),
      msg(2, 'tool', '{"r":1}{"r":2}', { toolCalls: [out('a', 'x', '{"r":1}'), out('b', 'y', '{"r":2}')] }),
    ]);
    expect(one[0].tools.map((t) => t.result)).toEqual(['{\n  "r": 1\n}', '{\n  "r": 2\n}']);
    expect(one[1].merged).toBe(true);

    const each = buildRows([
      msg(1, 'assistant', '', { toolCalls: [call('a', 'x', '{}'), call('b', 'y', '{}')] }),
      msg(2, 'tool', '{"r":1}', { toolCalls: [out('a', 'x', '{"r":1}')] }),
      msg(3, 'tool', '{"r":2}', { toolCalls: [out('b', 'y', '{"r":2}')] }),
    ]);
    expect(each[0].tools.map((t) => t.status)).toEqual(['done', 'done']);
    expect(each[1].merged && each[2].merged).toBe(true);
  });

  it('a result whose call is on an older page is a card of its own, with no raw JSON beside it', () => {
    const rows = buildRows([
      msg(10, 'tool', '{"v":2}', { toolCalls: [out('x', 'calc', '{"v":2}')] }),
      msg(11, 'assistant', 'two'),
    ]);
    expect(rows[0]).toMatchObject({ role: 'tool', merged: false, content: '' });
    expect(rows[0].tools).toHaveLength(1);
    expect(rows[0].tools[0]).toMatchObject({ name: 'calc', args: '', result: '{\n  "v": 2\n}' });
  });

  it('a tool row keeps only the results no call card took', () => {
    const rows = buildRows([
      msg(1, 'assistant', '', { toolCalls: [call('a', 'x', '{}')] }),
      msg(2, 'tool', '{"r":1}{"r":9}', { toolCalls: [out('a', 'x', '{"r":1}'), out('zz', 'lost', '{"r":9}')] }),
    ]);
    expect(rows[0].tools[0].result).toBe('{\n  "r": 1\n}');
    expect(rows[1].merged).toBe(false);
    expect(rows[1].tools.map((t) => t.id)).toEqual(['zz']);
    expect(rows[1].content).toBe('');
  });

  it('repeated ids (providers without ids) pair each call with the next result', () => {
    const rows = buildRows([
      msg(1, 'assistant', '', { toolCalls: [call('call_x', 'x', '{"i":1}')] }),
      msg(2, 'tool', '{"r":1}', { toolCalls: [out('call_x', 'x', '{"r":1}')] }),
      msg(3, 'assistant', '', { toolCalls: [call('call_x', 'x', '{"i":2}')] }),
      msg(4, 'tool', '{"r":2}', { toolCalls: [out('call_x', 'x', '{"r":2}')] }),
    ]);
    expect(rows[0].tools[0].result).toBe('{\n  "r": 1\n}');
    expect(rows[2].tools[0].result).toBe('{\n  "r": 2\n}');
    expect(rows[1].merged && rows[3].merged).toBe(true);
  });

  it("a call's stored status, duration, token cost and server reach its card", () => {
    const rows = buildRows([
      msg(1, 'assistant', '', { toolCalls: [call('a', 'files__read', '{}', { server: 'files', tool: 'read' })] }),
      msg(2, 'tool', '{"error":"denied"}', {
        toolCalls: [out('a', 'files__read', '{"error":"denied"}', { status: 'denied', durationMs: 12, promptTokens: 40, omittedTokens: 0 })],
      }),
      msg(3, 'assistant', '', { toolCalls: [call('b', 'big', '{}')] }),
      msg(4, 'tool', '{}', { toolCalls: [out('b', 'big', '{}', { status: 'timedOut', promptTokens: 8000, omittedTokens: 250000 })] }),
    ]);
    expect(rows[0].tools[0]).toMatchObject({ server: 'files', tool: 'read', status: 'denied', durationMs: 12, promptTokens: 40 });
    expect(rows[2].tools[0]).toMatchObject({ status: 'timedOut', promptTokens: 8000, omittedTokens: 250000 });
  });

  it('a call with no stored result says so', () => {
    const rows = buildRows([msg(1, 'assistant', 'trying', { toolCalls: [call('q', 'slow', '{}')] })]);
    expect(rows[0].tools[0]).toMatchObject({ result: null, status: 'noResult' });
  });

  it('images a tool returned come back from its stored result', () => {
    const output = JSON.stringify({ content: [{ type: 'text', text: 'hi' }, { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }] });
    const rows = buildRows([
      msg(1, 'assistant', '', { toolCalls: [call('i', 'img', '{}')] }),
      msg(2, 'tool', output, { toolCalls: [out('i', 'img', output)] }),
    ]);
    expect(rows[0].tools[0].images).toEqual([{ mimeType: 'image/png', data: 'iVBORw0KGgo=' }]);
  });
});

describe('live tool cards', () => {
  const approval: ChatEvent = {
    type: 'toolApproval',
    id: 'c1',
    name: 'files__write',
    server: 'files',
    tool: 'write',
    description: 'Writes a file',
    annotations: { destructive: true },
    args: { path: '/tmp/a' },
  };

  it('an approval request shows a waiting card, also when its call came first', () => {
    for (const events of [[approval], [{ type: 'toolCall', id: 'c1', name: 'files__write', args: { path: '/tmp/a' } } as ChatEvent, approval]]) {
      const r = play(events);
      expect(r.parts).toHaveLength(1);
      expect(r.parts[0]).toMatchObject({
        status: 'approval',
        server: 'files',
        tool: 'write',
        args: '{\n  "path": "/tmp/a"\n}',
        approval: { description: 'Writes a file', annotations: { destructive: true } },
      });
    }
  });

  it('a call re-sent while it waits for approval keeps waiting', () => {
    const r = play([approval, { type: 'toolCall', id: 'c1', name: 'files__write', args: { path: '/tmp/b' } }]);
    expect(r.parts[0]).toMatchObject({ status: 'approval', args: '{\n  "path": "/tmp/b"\n}' });
  });

  it('answering the approval turns the card into a running card', () => {
    const r = decideApproval(play([approval]), 'c1', 'once');
    expect(r.parts[0]).toMatchObject({ status: 'running', decision: 'once' });
    expect(decideApproval(r, 'c1', 'deny')).toBe(r);
  });

  it('progress shows on the running card, and the result ends it with its status and cost', () => {
    let r = play([
      { type: 'toolCall', id: 'p', name: 'long', args: {}, server: 'every', tool: 'long' },
      { type: 'toolProgress', id: 'p', progress: 2, total: 5, message: 'step 2' },
    ]);
    expect(r.parts[0]).toMatchObject({ status: 'running', progress: { progress: 2, total: 5, message: 'step 2' }, server: 'every' });
    r = applyChatEvent(r, {
      type: 'toolResult',
      id: 'p',
      name: 'long',
      result: { ok: true },
      status: 'cancelled',
      durationMs: 1500,
      promptTokens: 12,
      omittedTokens: 3,
      images: [{ mimeType: 'image/png', data: 'AAAA' }],
    });
    expect(r.parts[0]).toMatchObject({
      status: 'cancelled',
      progress: null,
      durationMs: 1500,
      promptTokens: 12,
      omittedTokens: 3,
      images: [{ mimeType: 'image/png', data: 'AAAA' }],
    });
  });

  it('progress for a call not open is ignored', () => {
    const r = play([{ type: 'delta', text: 'x' }]);
    expect(applyChatEvent(r, { type: 'toolProgress', id: 'nope', progress: 1, total: null, message: null })).toBe(r);
  });
});
