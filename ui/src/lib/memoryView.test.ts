import { describe, expect, it } from 'vitest';
import type { MemoryEvent, MemoryOverview, MemoryStatus, Observation, Reflection } from './api/types';
import {
  applyStatusEvent,
  compactTokens,
  editProblem,
  eventConcerns,
  eventEffect,
  eventSessionKey,
  editorRows,
  formatRange,
  isoTime,
  formatTimestamp,
  formatTokens,
  formatUsage,
  formatWhen,
  groupDigits,
  groupReflections,
  isBusy,
  isEmptyOverview,
  isLongText,
  messageText,
  normalPhase,
  observationsNewestFirst,
  overBudget,
  percent,
  phaseLabel,
  previewText,
  progress,
  rangeSize,
  roleKind,
  roleLabel,
  sectionLabel,
  splitPromptHeadings,
  summaryNotRepeatedNote,
  tokensSaved,
  totalTokensSaved,
} from './memoryView';

const KEY = 'session-a';

function obs(id: string, seqStart: number, seqEnd: number, createdAt = 1000, sessionKey = KEY): Observation {
  return { id, sessionKey, content: `note ${id}`, tokenCount: 50, seqStart, seqEnd, createdAt };
}

function refl(
  id: string,
  generation: number,
  seqEnd: number,
  tokenCount = 100,
  sourceTokenCount = 400,
  createdAt = 1000,
): Reflection {
  return {
    id,
    sessionKey: KEY,
    content: `reflection ${id}`,
    tokenCount,
    generation,
    seqStart: 1,
    seqEnd,
    sourceTokenCount,
    createdAt,
  };
}

function status(over: Partial<MemoryStatus> = {}): MemoryStatus {
  return {
    sessionKey: KEY,
    phase: 'idle',
    unobservedTokens: 100,
    messageTokenThreshold: 1000,
    observationTokens: 50,
    observationTokenThreshold: 2000,
    observations: 1,
    reflections: 0,
    ...over,
  };
}

function overview(over: Partial<MemoryOverview> = {}): MemoryOverview {
  return { title: '', enabled: true, status: status(), observations: [obs('o1', 1, 10)], reflections: [], ...over };
}

function statusEvent(over: Partial<MemoryStatus> = {}): MemoryEvent {
  return { type: 'status', ...status(over) };
}

describe('percent and progress', () => {
  it('computes a rounded percentage', () => {
    expect(percent(250, 1000)).toBe(25);
    expect(percent(1, 3)).toBe(33);
    expect(percent(2, 3)).toBe(67);
  });

  it('clamps to 0..100', () => {
    expect(percent(5000, 1000)).toBe(100);
    expect(percent(-20, 1000)).toBe(0);
  });

  it('is 0 without a usable maximum', () => {
    expect(percent(10, 0)).toBe(0);
    expect(percent(10, -5)).toBe(0);
    expect(percent(10, null)).toBe(0);
    expect(percent(10, undefined)).toBe(0);
    expect(percent(Number.NaN, 100)).toBe(0);
    expect(percent(10, Number.POSITIVE_INFINITY)).toBe(0);
  });

  it('reports whether the threshold is reached and what remains', () => {
    expect(progress(400, 1000)).toEqual({ value: 400, max: 1000, percent: 40, reached: false, remaining: 600 });
    expect(progress(1200, 1000)).toEqual({ value: 1200, max: 1000, percent: 100, reached: true, remaining: 0 });
    expect(progress(0, 0).reached).toBe(false);
    expect(progress(-3, 10).value).toBe(0);
  });
});

describe('token formatting', () => {
  it('groups digits the same in every locale', () => {
    expect(groupDigits(0)).toBe('0');
    expect(groupDigits(999)).toBe('999');
    expect(groupDigits(1000)).toBe('1,000');
    expect(groupDigits(1234567)).toBe('1,234,567');
    expect(groupDigits(-4200)).toBe('-4,200');
    expect(groupDigits(12.6)).toBe('13');
  });

  it('formats token counts with a singular', () => {
    expect(formatTokens(1)).toBe('1 token');
    expect(formatTokens(0)).toBe('0 tokens');
    expect(formatTokens(12345)).toBe('12,345 tokens');
    expect(formatTokens(-5)).toBe('0 tokens');
  });

  it('formats compact counts', () => {
    expect(compactTokens(950)).toBe('950');
    expect(compactTokens(1000)).toBe('1k');
    expect(compactTokens(1234)).toBe('1.2k');
    expect(compactTokens(12_345)).toBe('12k');
    expect(compactTokens(1_500_000)).toBe('1.5M');
  });

  it('formats usage against a budget', () => {
    expect(formatUsage(1234, 3000)).toBe('1,234 / 3,000');
    expect(formatUsage(1234, null)).toBe('1,234');
  });

  it('knows when a budget is exceeded', () => {
    expect(overBudget(11, 10)).toBe(true);
    expect(overBudget(10, 10)).toBe(false);
    expect(overBudget(10, null)).toBe(false);
    expect(overBudget(10, 0)).toBe(false);
  });
});

describe('tokens saved', () => {
  it('is the source tokens minus the tokens now', () => {
    expect(tokensSaved({ sourceTokenCount: 400, tokenCount: 100 })).toBe(300);
  });

  it('is never negative', () => {
    expect(tokensSaved({ sourceTokenCount: 50, tokenCount: 100 })).toBe(0);
  });

  it('sums over reflections', () => {
    expect(totalTokensSaved([refl('a', 1, 5, 100, 400), refl('b', 2, 9, 80, 60)])).toBe(300);
    expect(totalTokensSaved([])).toBe(0);
  });
});

describe('ranges', () => {
  it('formats a covered range with an en dash', () => {
    expect(formatRange(12, 40)).toBe('messages 12–40');
  });

  it('formats a single message and an empty range', () => {
    expect(formatRange(7, 7)).toBe('message 7');
    expect(formatRange(9, 3)).toBe('no messages');
  });

  it('counts the messages of a range', () => {
    expect(rangeSize(12, 40)).toBe(29);
    expect(rangeSize(5, 5)).toBe(1);
    expect(rangeSize(5, 4)).toBe(0);
  });
});

describe('time', () => {
  const now = new Date(2025, 2, 20, 12, 0, 0).getTime();

  it('is relative while recent', () => {
    expect(formatWhen(now - 10_000, now)).toBe('just now');
    expect(formatWhen(now + 60_000, now)).toBe('just now');
    expect(formatWhen(now - 5 * 60_000, now)).toBe('5 min ago');
    expect(formatWhen(now - 3 * 3600_000, now)).toBe('3 h ago');
    expect(formatWhen(now - 2 * 86400_000, now)).toBe('2 d ago');
  });

  it('is a local date when older than a week', () => {
    expect(formatWhen(new Date(2025, 0, 4, 9, 30).getTime(), now)).toBe('2025-01-04');
    expect(formatTimestamp(new Date(2025, 0, 4, 9, 5).getTime())).toBe('2025-01-04 09:05');
  });

  it('gives an ISO time for <time datetime>', () => {
    expect(isoTime(Date.UTC(2025, 0, 4, 9, 5))).toBe('2025-01-04T09:05:00.000Z');
    expect(isoTime(Number.NaN)).toBe('');
    expect(isoTime(8.64e16)).toBe('');
  });

  it('is empty for a missing time', () => {
    expect(formatWhen(0, now)).toBe('');
    expect(formatTimestamp(Number.NaN)).toBe('');
  });
});

describe('timeline order', () => {
  it('puts the newest observation first', () => {
    const list = [obs('a', 1, 10), obs('c', 21, 30), obs('b', 11, 20)];
    expect(observationsNewestFirst(list).map((o) => o.id)).toEqual(['c', 'b', 'a']);
    // The input is left alone.
    expect(list.map((o) => o.id)).toEqual(['a', 'c', 'b']);
  });

  it('breaks ties by creation time', () => {
    const list = [obs('a', 1, 10, 100), obs('b', 1, 10, 200)];
    expect(observationsNewestFirst(list).map((o) => o.id)).toEqual(['b', 'a']);
  });

  it('groups reflections by generation, highest first, each newest first', () => {
    const groups = groupReflections([
      refl('g1-old', 1, 10, 100, 400),
      refl('g3', 3, 5, 50, 500),
      refl('g1-new', 1, 30, 100, 300),
      refl('g2', 2, 20, 90, 200),
    ]);
    expect(groups.map((g) => g.generation)).toEqual([3, 2, 1]);
    expect(groups[2].reflections.map((r) => r.id)).toEqual(['g1-new', 'g1-old']);
    expect(groups[2].tokens).toBe(200);
    expect(groups[2].saved).toBe(500);
    expect(groups[0].saved).toBe(450);
  });

  it('treats a missing or invalid generation as generation 1', () => {
    const groups = groupReflections([refl('x', 0, 1), refl('y', Number.NaN, 2)]);
    expect(groups).toHaveLength(1);
    expect(groups[0].generation).toBe(1);
  });

  it('returns no groups without reflections', () => {
    expect(groupReflections([])).toEqual([]);
  });

  it('knows when nothing has been observed', () => {
    expect(isEmptyOverview(null)).toBe(true);
    expect(isEmptyOverview(overview({ observations: [] }))).toBe(true);
    expect(isEmptyOverview(overview())).toBe(false);
    expect(isEmptyOverview(overview({ observations: [], reflections: [refl('r', 1, 3)] }))).toBe(false);
  });
});

describe('phases', () => {
  it('labels and normalises phases', () => {
    expect(phaseLabel('observing')).toBe('Observing');
    expect(phaseLabel('reflecting')).toBe('Reflecting');
    expect(phaseLabel(null)).toBe('Idle');
    expect(phaseLabel('weird')).toBe('Idle');
    expect(normalPhase('weird')).toBe('idle');
    expect(isBusy('observing')).toBe(true);
    expect(isBusy('idle')).toBe(false);
    expect(isBusy(undefined)).toBe(false);
  });
});

describe('memory events', () => {
  const added: MemoryEvent = { type: 'observationAdded', ...obs('o2', 11, 20) };
  const reflected: MemoryEvent = { type: 'reflectionAdded', reflection: refl('r1', 1, 20), condensed: 3 };

  it('finds the session of every event type', () => {
    expect(eventSessionKey(statusEvent())).toBe(KEY);
    expect(eventSessionKey(added)).toBe(KEY);
    expect(eventSessionKey(reflected)).toBe(KEY);
  });

  it('concerns only the session shown', () => {
    expect(eventConcerns(added, KEY)).toBe(true);
    expect(eventConcerns(added, 'other')).toBe(false);
    expect(eventConcerns(added, null)).toBe(false);
    expect(eventConcerns({ type: 'observationAdded', ...obs('o3', 1, 2, 1, 'other') }, KEY)).toBe(false);
  });

  it('ignores other sessions', () => {
    expect(eventEffect(statusEvent({ sessionKey: 'other' }), KEY, overview())).toBe('ignore');
    expect(eventEffect(added, null, overview())).toBe('ignore');
  });

  it('refreshes when an item was added', () => {
    expect(eventEffect(added, KEY, overview())).toBe('refresh');
    expect(eventEffect(reflected, KEY, overview())).toBe('refresh');
  });

  it('only updates the header for a status with matching counts', () => {
    expect(eventEffect(statusEvent({ phase: 'observing' }), KEY, overview())).toBe('status');
    expect(eventEffect(statusEvent({ unobservedTokens: 900 }), KEY, overview())).toBe('status');
  });

  it('refreshes when the counts no longer match or a cycle ended', () => {
    expect(eventEffect(statusEvent({ observations: 2 }), KEY, overview())).toBe('refresh');
    expect(eventEffect(statusEvent({ reflections: 1 }), KEY, overview())).toBe('refresh');
    const busy = overview({ status: status({ phase: 'reflecting' }) });
    expect(eventEffect(statusEvent({ phase: 'idle' }), KEY, busy)).toBe('refresh');
    expect(eventEffect(statusEvent(), KEY, null)).toBe('refresh');
  });

  it('applies a status event to the header without the type tag', () => {
    const next = applyStatusEvent(overview(), statusEvent({ phase: 'observing', unobservedTokens: 777 }) as never);
    expect(next.status).toEqual(status({ phase: 'observing', unobservedTokens: 777 }));
    expect(next.status).not.toHaveProperty('type');
    expect(next.observations).toHaveLength(1);
  });
});

describe('editing', () => {
  it('refuses empty and unchanged drafts', () => {
    expect(editProblem('a', '   ')).toMatch(/cannot be empty/);
    expect(editProblem('a note', ' a note \n')).toMatch(/Nothing has changed/);
    expect(editProblem('a note', 'a better note')).toBeNull();
  });
});

describe('editor size', () => {
  it('grows with the text within bounds', () => {
    expect(editorRows('one line')).toBe(3);
    expect(editorRows('1\n2\n3\n4\n5')).toBe(5);
    expect(editorRows('x\n'.repeat(100))).toBe(14);
  });
});

describe('messages and the inspector', () => {
  it('labels roles, legacy names included', () => {
    expect(roleLabel('user')).toBe('User');
    expect(roleLabel('model')).toBe('Assistant');
    expect(roleLabel('function')).toBe('Tool');
    expect(roleLabel('critic')).toBe('Critic');
    expect(roleLabel('')).toBe('Unknown');
    expect(roleKind('assistant')).toBe('assistant');
    expect(roleKind('tool')).toBe('tool');
    expect(roleKind('system')).toBe('other');
  });

  it('renders a message with its tool calls as text', () => {
    expect(
      messageText({
        content: 'Let me check.',
        toolCalls: [
          { id: '1', name: 'search', input: '{"q":"x"}' },
          { id: '2', name: 'think', input: '{}', thought: true },
        ],
      }),
    ).toBe('Let me check.\n→ search({"q":"x"})');
    expect(messageText({ content: '', toolCalls: [{ id: '1', name: 'search', output: '{"hits":0}' }] })).toBe(
      '← search: {"hits":0}',
    );
  });

  it('collapses long texts', () => {
    expect(isLongText('short')).toBe(false);
    expect(isLongText('x'.repeat(481))).toBe(true);
    expect(isLongText('a\nb\nc', 480, 2)).toBe(true);
    expect(isLongText('a\nb', 480, 2)).toBe(false);
  });

  it('previews the start of a long text', () => {
    expect(previewText('short')).toBe('short');
    const words = 'word '.repeat(200);
    const preview = previewText(words, 50);
    expect(preview.endsWith('…')).toBe(true);
    expect(preview.length).toBeLessThanOrEqual(51);
    expect(previewText('1\n2\n3\n4', 480, 2)).toBe('1\n2…');
  });

  it('labels sections', () => {
    expect(sectionLabel('memory')).toBe('Conversation memory');
    expect(sectionLabel('base')).toBe('Base instructions');
    expect(sectionLabel('custom')).toBe('Custom');
  });

  it('splits a prompt at its headings without changing the text', () => {
    const prompt = 'You are Lango.\n\n## Conversation Memory\n- likes tea\n## Runtime\nnow';
    const parts = splitPromptHeadings(prompt);
    expect(parts.map((p) => p.text).join('')).toBe(prompt);
    expect(parts.filter((p) => p.heading).map((p) => p.text)).toEqual(['## Conversation Memory', '## Runtime']);
    expect(splitPromptHeadings('')).toEqual([]);
    expect(splitPromptHeadings('#hashtag, not a heading')).toEqual([{ text: '#hashtag, not a heading', heading: false }]);
  });
});

describe('summaryNotRepeatedNote', () => {
  it('says a summary already in memory was not repeated and what that saved', () => {
    expect(summaryNotRepeatedNote({ summariesNotRepeated: 1, summaryTokensSaved: 25 })).toBe(
      'Summary not repeated: already in memory (25 tokens saved)',
    );
    expect(summaryNotRepeatedNote({ summariesNotRepeated: 2, summaryTokensSaved: 1234 })).toBe(
      '2 summaries not repeated: already in memory (1,234 tokens saved)',
    );
  });

  it('says nothing when every summary was sent', () => {
    expect(summaryNotRepeatedNote({ summariesNotRepeated: 0, summaryTokensSaved: 0 })).toBeNull();
  });
});
