// Mounted (npm run test:dom): the memory view of a conversation whose memory is off but which
// kept notes from before — what its notice says, as a user reads it.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { flushSync, mount, unmount } from 'svelte';
import { settle } from '../settle.testing';
import type { AppStatus, MemoryOverview } from '../../lib/api/types';
import { observation } from './notes.testing';

const commands = vi.hoisted(() => ({
  memoryOverview: vi.fn(),
  inspect: vi.fn(),
  memorySources: vi.fn(),
  updateMemoryItem: vi.fn(),
  deleteMemoryItem: vi.fn(),
}));
vi.mock('../../lib/api/commands', () => commands);
vi.mock('../../lib/api/events', () => ({ onMemoryEvent: vi.fn(() => Promise.resolve(() => {})) }));

const { default: MemoryView } = await import('../MemoryView.svelte');

const keptNotes: MemoryOverview = {
  title: 'Trip to Lisbon',
  enabled: false,
  status: null,
  observations: [observation],
  reflections: [],
};

let view: ReturnType<typeof mount> | null = null;
afterEach(() => {
  if (view) unmount(view);
  view = null;
  document.body.innerHTML = '';
});

describe('the memory view with memory off', () => {
  it('says where to turn it on and that the notes kept stay, as two sentences', async () => {
    commands.memoryOverview.mockResolvedValue(keptNotes);
    const target = document.createElement('div');
    document.body.append(target);
    const status = { ready: true, memoryEnabled: false } as AppStatus;
    view = mount(MemoryView, { target, props: { status, sessionKey: 's1', onOpenSettings: () => {} } });
    flushSync();
    await settle();
    const notice = target.querySelector('#memory-disabled')?.textContent?.replace(/\s+/g, ' ');
    expect(notice).toContain('Turn it on in Settings → Memory. What was remembered before stays below');
  });
});
