import { describe, expect, it } from 'vitest';
import { formatCost, formatTokens, replyDescription, replyLine, usageLine, usageSummary } from './usage';
import type { ReplyInfo } from './api/types';

const reply = (over: Partial<ReplyInfo> = {}): ReplyInfo => ({
  provider: 'openai',
  model: 'gpt-4o-mini',
  inputTokens: 1234,
  outputTokens: 56,
  cost: 0.0012,
  ...over,
});

describe('formatCost', () => {
  it('shows small amounts with two significant digits, never as zero', () => {
    expect(formatCost(0.0012)).toBe('$0.0012');
    expect(formatCost(0.00123456)).toBe('$0.0012');
    expect(formatCost(0.00015)).toBe('$0.00015');
    expect(formatCost(0.001)).toBe('$0.001');
    expect(formatCost(0.0123)).toBe('$0.012');
    expect(formatCost(0.00000004)).toBe('<$0.0001');
  });

  it('shows cents from a dime up', () => {
    expect(formatCost(0.5)).toBe('$0.50');
    expect(formatCost(0.00999)).toBe('$0.01');
    expect(formatCost(0.999)).toBe('$1.00');
    expect(formatCost(1.234)).toBe('$1.23');
    expect(formatCost(1234.5)).toBe('$1,234.50');
    expect(formatCost(0)).toBe('$0.00');
  });

  it('shows nothing for a nonsense amount', () => {
    expect(formatCost(Number.NaN)).toBe('');
    expect(formatCost(-1)).toBe('');
  });
});

describe('replyLine', () => {
  it('names the model, the tokens in and out, and the cost', () => {
    expect(replyLine(reply())).toBe('gpt-4o-mini · 1,234 in · 56 out · $0.0012');
  });

  it('leaves out what the provider or the price table did not give', () => {
    expect(replyLine(reply({ cost: null }))).toBe('gpt-4o-mini · 1,234 in · 56 out');
    expect(replyLine(reply({ inputTokens: null, outputTokens: null, cost: null }))).toBe('gpt-4o-mini');
    expect(replyLine(reply({ inputTokens: null, cost: null }))).toBe('gpt-4o-mini · 56 out');
  });

  it('names the provider when the model id is unknown', () => {
    expect(replyLine(reply({ model: '', cost: null, inputTokens: null, outputTokens: null }))).toBe('openai');
  });

  it('describes a reply in words, saying when the cost is unknown', () => {
    expect(replyDescription(reply({ cost: null }))).toBe(
      'Written by gpt-4o-mini (openai), 1,234 tokens in, 56 tokens out, cost unknown',
    );
  });
});

describe('usageSummary', () => {
  it('totals a conversation, and says how many replies had no price', () => {
    const s = usageSummary({ inputTokens: 12000, outputTokens: 800, replies: 3, cost: 0.0345, unpricedReplies: 1 });
    expect(s).toEqual({
      tokensIn: '12,000',
      tokensOut: '800',
      replies: '3 replies',
      cost: '$0.035',
      unpriced: '1 reply without a price',
    });
    expect(formatTokens(1)).toBe('1');
  });

  it('shows a dash, not $0, when no reply had a price', () => {
    const s = usageSummary({ inputTokens: 0, outputTokens: 0, replies: 1, cost: null, unpricedReplies: 1 });
    expect(s.cost).toBe('—');
    expect(s.replies).toBe('1 reply');
    expect(usageSummary({ inputTokens: 0, outputTokens: 0, replies: 0, cost: null, unpricedReplies: 0 }).unpriced).toBeNull();
  });
});

describe('usageLine', () => {
  it("sums up a conversation's tokens and cost on one line, nothing before the first reply", () => {
    const usage = { inputTokens: 12000, outputTokens: 800, replies: 3, cost: 0.0345, unpricedReplies: 0 };
    expect(usageLine(usage)).toBe('12,000 in · 800 out · $0.035');
    expect(usageLine({ ...usage, cost: null })).toBe('12,000 in · 800 out');
    expect(usageLine({ ...usage, replies: 0 })).toBe('');
  });
});
