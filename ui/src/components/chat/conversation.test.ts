import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ConversationView } from '../../lib/api/types';

const view = (model: string): ConversationView => ({
  settings: { provider: 'openai', model },
  effective: { provider: 'openai', model, temperature: 0.7, maxTokens: 4096, systemPrompt: '' },
  providers: [{ id: 'openai', kind: 'openai', defaultModel: '' }],
  usage: { inputTokens: 0, outputTokens: 0, replies: 0, cost: null, unpricedReplies: 0 },
});

const commands = vi.hoisted(() => ({
  conversationSettings: vi.fn(),
  setConversationSettings: vi.fn(),
  listModelsOf: vi.fn(),
  getSettingsDocument: vi.fn(),
}));
vi.mock('../../lib/api/commands', () => commands);

const state = await import('./conversation.svelte');

beforeEach(() => {
  for (const f of Object.values(commands)) f.mockReset();
});

describe('a conversation’s settings', () => {
  it('saves a choice and shows what the backend kept', async () => {
    commands.setConversationSettings.mockResolvedValue(view('gpt-4o'));
    await state.saveConversation('s1', { provider: 'openai', model: 'gpt-4o' });
    expect(commands.setConversationSettings).toHaveBeenCalledWith('s1', { provider: 'openai', model: 'gpt-4o' });
    expect(state.conversationViews.s1.effective.model).toBe('gpt-4o');
  });

  it('passes a refusal on as an AppError, keeping the last good view', async () => {
    commands.setConversationSettings.mockRejectedValue({
      code: 'invalid_conversation_settings',
      message: 'Temperature must be from 0 to 2.',
    });
    await expect(state.saveConversation('s1', { temperature: 5 })).rejects.toMatchObject({
      code: 'invalid_conversation_settings',
      message: 'Temperature must be from 0 to 2.',
    });
    expect(state.conversationViews.s1.effective.model).toBe('gpt-4o');
  });

  it('reads a new chat’s defaults from the settings document, without creating a conversation or asking where keys are', async () => {
    commands.getSettingsDocument.mockResolvedValue({
      agent: { provider: 'openai', model: 'o3', systemPrompt: '', temperature: 1, maxTokens: 100 },
      providers: { openai: { type: 'openai' } },
    });
    expect(await state.loadConversation(null)).toBeNull();
    expect(state.newChat.view?.effective).toMatchObject({ provider: 'openai', model: 'o3' });
    expect(commands.conversationSettings).not.toHaveBeenCalled();
    expect(commands.setConversationSettings).not.toHaveBeenCalled();
  });

  it('keeps a saved choice when a read that began before the save answers after it', async () => {
    // A new chat's first pick: the conversation is created, its settings read, and the pick
    // saved at once; the read, begun first, can answer last with the defaults.
    let answerRead: (v: ConversationView) => void = () => {};
    commands.conversationSettings.mockReturnValue(new Promise((r) => (answerRead = r)));
    commands.setConversationSettings.mockResolvedValue(view('picked-model'));
    const read = state.loadConversation('s3');
    await state.saveConversation('s3', { provider: 'openai', model: 'picked-model' });
    answerRead(view('default-model'));
    expect(await read).toBeNull();
    expect(state.conversationViews.s3.effective.model).toBe('picked-model');
    // A read begun after the save shows what the backend has.
    commands.conversationSettings.mockResolvedValue(view('changed-elsewhere'));
    await state.loadConversation('s3');
    expect(state.conversationViews.s3.effective.model).toBe('changed-elsewhere');
  });

  it('says why a conversation’s settings could not be read', async () => {
    commands.conversationSettings.mockRejectedValue({ code: 'db', message: 'busy' });
    expect(await state.loadConversation('s2')).toEqual({ code: 'db', message: 'busy' });
  });
});

describe('models of a provider', () => {
  it('lists them once, and again after a failure', async () => {
    commands.listModelsOf.mockRejectedValueOnce({ code: 'offline', message: 'No connection.' });
    await state.ensureModelsOf('p1');
    expect(state.providerModelErrors.p1?.message).toBe('No connection.');
    commands.listModelsOf.mockResolvedValue([{ id: 'm1', displayName: 'M1' }]);
    await Promise.all([state.ensureModelsOf('p1'), state.ensureModelsOf('p1')]);
    await state.ensureModelsOf('p1');
    expect(commands.listModelsOf).toHaveBeenCalledTimes(2);
    expect(state.providerModels.p1).toEqual([{ id: 'm1', displayName: 'M1' }]);
    expect(state.providerModelErrors.p1).toBeUndefined();
  });
});
