/**
 * How tokens and costs read on screen: the footer of a reply ("gpt-4o-mini · 1,234 in ·
 * 56 out · $0.0012") and the usage of a conversation. Parts the provider or the price table
 * did not give are left out (never shown as 0). Pure functions.
 */

import type { ConversationUsage, ReplyInfo } from './api/types';
import { formatCount } from './numbers';

/** A token count with thousands separators. */
export function formatTokens(n: number): string {
  return formatCount(Math.round(n));
}

/**
 * A cost in USD: cents for a dollar or more ($1.23), two significant digits below
 * ($0.50, $0.012, $0.0012), and "<$0.0001" for what would round to nothing.
 */
export function formatCost(usd: number): string {
  if (!Number.isFinite(usd) || usd < 0) return '';
  if (usd === 0) return '$0.00';
  if (usd < 0.0001) return '<$0.0001';
  if (usd >= 1) {
    return `$${usd.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
  }
  const rounded = Number(usd.toPrecision(2));
  if (rounded >= 1) return '$1.00';
  let text = rounded.toFixed(10).replace(/0+$/, '');
  const decimals = text.length - text.indexOf('.') - 1;
  if (decimals < 2) text += '0'.repeat(2 - decimals);
  return `$${text}`;
}

/** The model a reply names: its model id, or its provider when the id is unknown. */
export function replyModel(reply: ReplyInfo): string {
  return reply.model || reply.provider;
}

/** The muted line under a reply: model · tokens in · tokens out · cost (unknown parts left out). */
export function replyLine(reply: ReplyInfo): string {
  const parts = [replyModel(reply)];
  if (reply.inputTokens !== null && reply.inputTokens !== undefined) parts.push(`${formatTokens(reply.inputTokens)} in`);
  if (reply.outputTokens !== null && reply.outputTokens !== undefined) parts.push(`${formatTokens(reply.outputTokens)} out`);
  if (reply.cost !== null && reply.cost !== undefined) parts.push(formatCost(reply.cost));
  return parts.filter(Boolean).join(' · ');
}

/** The same, in words for a tooltip and screen readers. */
export function replyDescription(reply: ReplyInfo): string {
  const who = reply.model ? `${reply.model} (${reply.provider})` : reply.provider;
  const parts = [`Written by ${who}`];
  if (reply.inputTokens != null) parts.push(`${formatTokens(reply.inputTokens)} tokens in`);
  if (reply.outputTokens != null) parts.push(`${formatTokens(reply.outputTokens)} tokens out`);
  parts.push(reply.cost != null ? `cost ${formatCost(reply.cost)}` : 'cost unknown');
  return parts.join(', ');
}

export interface UsageSummary {
  tokensIn: string;
  tokensOut: string;
  replies: string;
  /** "—" when no reply had a price. */
  cost: string;
  /** "2 replies without a price", or null. */
  unpriced: string | null;
}

const plural = (n: number, one: string, many: string) => `${formatTokens(n)} ${n === 1 ? one : many}`;

/** A conversation's usage, as the Conversation settings panel shows it. */
export function usageSummary(usage: ConversationUsage): UsageSummary {
  return {
    tokensIn: formatTokens(usage.inputTokens),
    tokensOut: formatTokens(usage.outputTokens),
    replies: plural(usage.replies, 'reply', 'replies'),
    cost: usage.cost === null || usage.cost === undefined ? '—' : formatCost(usage.cost),
    unpriced: usage.unpricedReplies > 0 ? `${plural(usage.unpricedReplies, 'reply', 'replies')} without a price` : null,
  };
}

/** A conversation's totals on one line ("12,000 in · 800 out · $0.035"), "" before any reply. */
export function usageLine(usage: ConversationUsage): string {
  if (usage.replies === 0) return '';
  const parts = [`${formatTokens(usage.inputTokens)} in`, `${formatTokens(usage.outputTokens)} out`];
  if (usage.cost !== null && usage.cost !== undefined) parts.push(formatCost(usage.cost));
  return parts.join(' · ');
}
