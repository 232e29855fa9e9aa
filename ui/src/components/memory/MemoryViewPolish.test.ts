import { describe, expect, it } from 'vitest';
import { render } from 'svelte/server';
import MemoryView from '../MemoryView.svelte';
import { conversationName, editedTokenEstimate } from '../../lib/memoryView';
import type { AppStatus } from '../../lib/api/types';

const off = { ready: true, memoryEnabled: false } as AppStatus;

describe('the memory view', () => {
  it('points to Settings → Memory with a link that opens it', () => {
    const { body } = render(MemoryView, { props: { status: off, sessionKey: 's1', onOpenSettings: () => {} } });
    expect(body).toMatch(/<a[^>]*id="memory-settings-link"[^>]*href="#settings-memory"[^>]*>Settings → Memory<\/a>/);
  });

  it('names its conversation', () => {
    expect(conversationName({ title: 'Trip to Lisbon' })).toBe('“Trip to Lisbon”');
    expect(conversationName({ title: '  ' })).toBe('this conversation');
    expect(conversationName(null)).toBe('this conversation');
    const { body } = render(MemoryView, { props: { status: off, sessionKey: 's1' } });
    expect(body).toContain('What Lango remembers of <span');
  });
});

describe("an edited note's token count", () => {
  it('follows the text as it is edited', () => {
    const original = 'The user likes seafood.';
    expect(editedTokenEstimate(original, 6, original)).toBe(6);
    const longer = editedTokenEstimate(original, 6, `${original} They are planning a trip to Lisbon in May.`);
    expect(longer).toBeGreaterThan(6);
    expect(editedTokenEstimate(original, 6, 'Seafood.')).toBeLessThan(6);
    expect(editedTokenEstimate(original, 6, '   ')).toBe(0);
    expect(editedTokenEstimate('', 0, 'twelve chars')).toBe(3);
  });
});

describe("the memory's last failure", () => {
  it('is said plainly, with the provider error folded under Details', async () => {
    const { default: MemoryHeader } = await import('./MemoryHeader.svelte');
    const raw = 'network error: tcp connect error: Connection refused (os error 111)';
    const status = {
      phase: 'idle',
      unobservedTokens: 0,
      messageTokenThreshold: 1000,
      observationTokens: 0,
      observationTokenThreshold: 2000,
      lastError: { error: raw, failedAt: 0 },
    };
    const { body } = render(MemoryHeader, { props: { status: status as never, observations: 0, reflections: 0, saved: 0 } });
    const headline = body.replace(/<details[\s\S]*?<\/details>/g, '');
    expect(headline).toContain('could not write its note');
    expect(headline).not.toContain('os error 111');
    expect(body).toMatch(/<details[\s\S]*os error 111[\s\S]*<\/details>/);
  });
});
