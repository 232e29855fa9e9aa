/**
 * A conversation's own provider, model and settings (and what its replies cost), kept at
 * module level by session key: the composer's model picker and settings panel and the
 * "Regenerate with…" menu read the same view. Also the models of each provider, listed once
 * (a failed listing is tried again the next time the picker opens).
 */

import { conversationSettings, getSettingsDocument, listModelsOf, setConversationSettings } from '../../lib/api/commands';
import type { ConversationSettings, ConversationView, ModelEntry } from '../../lib/api/types';
import { defaultView } from '../../lib/conversationSettings';
import { toAppError, type AppError } from '../../lib/errors';

/** The view of each conversation loaded, by session key. */
export const conversationViews: Record<string, ConversationView> = $state({});
/** A new chat's view (no conversation yet): the defaults of Settings. */
export const newChat: { view: ConversationView | null } = $state({ view: null });

/** Listed models by provider id, and why a listing failed. */
export const providerModels: Record<string, ModelEntry[]> = $state({});
export const providerModelErrors: Record<string, AppError> = $state({});
/** Providers whose models are being listed. */
export const providerModelsLoading: Record<string, boolean> = $state({});

/**
 * Saves answered per conversation. A read that began before a save answered may hold what
 * was there before the save (a new chat's first pick creates the conversation, whose
 * settings are then read and saved at once): it must not replace the saved view.
 */
const savesAnswered: Record<string, number> = {};

/** The view of `key` (null = a new chat) from the backend; the error when it could not be read. */
export async function loadConversation(key: string | null): Promise<AppError | null> {
  try {
    if (key) {
      const savesBefore = savesAnswered[key] ?? 0;
      const view = await conversationSettings(key);
      if ((savesAnswered[key] ?? 0) === savesBefore) conversationViews[key] = view;
    } else newChat.view = defaultView(await getSettingsDocument());
    return null;
  } catch (e) {
    return toAppError(e);
  }
}

/** Saves the settings of `key`; rejects with the backend's AppError (e.g. a bad value). */
export async function saveConversation(key: string, settings: ConversationSettings): Promise<ConversationView> {
  try {
    const view = await setConversationSettings(key, settings);
    savesAnswered[key] = (savesAnswered[key] ?? 0) + 1;
    conversationViews[key] = view;
    return view;
  } catch (e) {
    throw toAppError(e);
  }
}

/** Lists the models of `provider` unless they are listed (or being listed) already. */
export async function ensureModelsOf(provider: string): Promise<void> {
  if (!provider || providerModels[provider] || providerModelsLoading[provider]) return;
  providerModelsLoading[provider] = true;
  try {
    providerModels[provider] = await listModelsOf(provider);
    delete providerModelErrors[provider];
  } catch (e) {
    providerModelErrors[provider] = toAppError(e);
  } finally {
    delete providerModelsLoading[provider];
  }
}
