/**
 * Running turns, kept at module level so a reply keeps streaming (and is picked up again)
 * when the user switches tabs or conversations and comes back. Owns the turn's lifecycle
 * against the backend (send / regenerate / edit, stop); the chat view owns what is shown.
 */

import { approveToolCall, editLast, regenerate, sendMessage, stopTurn } from '../../lib/api/commands';
import type { AppError, ApprovalDecision, AttachmentInfo, ChatEvent, ModelChoice, TurnStatus } from '../../lib/api/types';
import { applyChatEvent, decideApproval, emptyReply, type LiveReply } from '../../lib/chatStream';
import type { TurnFailure, TurnMode } from '../../lib/chatItems';
import { toAppError } from '../../lib/errors';
import { attachmentDraft } from './attachments.svelte';

export interface TurnEnd {
  status: TurnStatus;
  error: AppError | null;
  /** Whether regenerating makes sense (false when the message never reached the store). */
  retry: boolean;
  /** The reply ended at the model's output limit. */
  truncated?: boolean;
}

export interface Turn {
  key: string;
  mode: TurnMode;
  /** The user's text shown while the turn runs (null for regenerate: the stored row stays). */
  userText: string | null;
  /** The files sent with the user's text (send only). */
  attachments: AttachmentInfo[];
  /** Stored rows from this seq on are replaced by the turn, so hidden while it runs. */
  hideFromSeq: number | null;
  reply: LiveReply;
  stopping: boolean;
  /** Set when the backend call returned; the view then reloads and drops the turn. */
  done: TurnEnd | null;
}

/** Running (or finished, not yet reloaded) turns by session key. */
export const turns: Record<string, Turn> = $state({});
/** The last failed turn of each session, until the next turn there. */
export const turnErrors: Record<string, TurnFailure> = $state({});
/** Unsent text by session key ('' = a new chat). */
export const drafts = new Map<string, string>();

/**
 * Runs a turn of session `key` to its end, streaming its reply into `turns[key]`, and marks
 * it done. A refused send (busy, not ready, too many files, a model that cannot see
 * images…) never reached the store: `onRefused` gets the text back for the composer, and
 * the files go back to the conversation's attachments.
 */
export async function runTurn(
  key: string,
  mode: TurnMode,
  text: string | null,
  hideFromSeq: number | null,
  onRefused: (text: string) => void,
  /** Regenerate only: this reply's provider and model (null = the conversation's). */
  model: ModelChoice | null = null,
  /** Send only: the prepared files going with the text, in order. */
  attachments: AttachmentInfo[] = [],
): Promise<TurnEnd> {
  delete turnErrors[key];
  turns[key] = {
    key,
    mode,
    userText: mode === 'regenerate' ? null : text,
    attachments: mode === 'send' ? attachments : [],
    hideFromSeq,
    reply: emptyReply(),
    stopping: false,
    done: null,
  };

  const onEvent = (event: ChatEvent) => {
    const t = turns[key];
    if (t && !t.done) t.reply = applyChatEvent(t.reply, event);
  };

  let end: TurnEnd;
  try {
    const outcome =
      mode === 'send'
        ? await sendMessage(key, text ?? '', onEvent, attachments.map((a) => a.hash))
        : mode === 'regenerate'
          ? await regenerate(key, onEvent, model)
          : await editLast(key, text ?? '', onEvent);
    end = { status: outcome.status, error: outcome.error, retry: true, truncated: outcome.truncated };
  } catch (e) {
    // The backend refused the turn: a sent message goes back into the composer rather than
    // offering a retry.
    end = { status: 'failed', error: toAppError(e), retry: mode !== 'send' };
    if (mode === 'send' && text) onRefused(text);
    if (mode === 'send') attachmentDraft(key).restore(attachments);
  }
  const t = turns[key];
  if (t) t.done = end;
  return end;
}

/** Asks the backend to stop the turn of `key`; rejects with the reason it could not. */
export async function stopRunningTurn(key: string): Promise<void> {
  const t = turns[key];
  if (!t || t.done) return;
  t.stopping = true;
  try {
    await stopTurn(key);
  } catch (e) {
    t.stopping = false;
    throw toAppError(e);
  }
}

/**
 * Answers the approval of tool call `id` in the turn of `key`; the card then runs (a denied
 * call gets its `denied` result from the backend). Rejects with the reason when the answer
 * did not reach a waiting call.
 */
export async function decideToolCall(key: string, id: string, decision: ApprovalDecision): Promise<void> {
  let waiting: boolean;
  try {
    waiting = await approveToolCall(key, id, decision);
  } catch (e) {
    throw toAppError(e);
  }
  if (!waiting) throw { code: 'not_waiting', message: 'This call no longer waits for an answer.' } satisfies AppError;
  const t = turns[key];
  if (t && !t.done) t.reply = decideApproval(t.reply, id, decision);
}
