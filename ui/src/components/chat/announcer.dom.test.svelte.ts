// Mounted (npm run test:dom): what the chat says to screen readers — a tool call waiting for
// approval is announced once per call, and the same words can be said twice in a row.
import { afterEach, describe, expect, it } from 'vitest';
import { flushSync, mount, unmount } from 'svelte';
import { newToolCard } from '../../lib/toolCards';
import type { LivePart } from '../../lib/chatStream';
import type { Turn } from './turns.svelte';
import Announcer from './Announcer.svelte';

const settle = async () => {
  flushSync();
  await Promise.resolve();
  flushSync();
};

const waiting = (id: string, name: string): LivePart => ({
  kind: 'tool',
  ...newToolCard(id, name, { status: 'approval', server: 'files', tool: 'write_file' }),
});

const turnWith = (parts: LivePart[]): Turn => ({
  key: 's1',
  mode: 'send',
  userText: 'hi',
  attachments: [],
  hideFromSeq: null,
  reply: { parts },
  stopping: false,
  done: null,
});

let cleanup: (() => void) | null = null;
afterEach(() => {
  cleanup?.();
  cleanup = null;
});

function mountAnnouncer() {
  const target = document.createElement('div');
  document.body.append(target);
  const props = $state({ turn: null as Turn | null });
  const announcer = mount(Announcer, { target, props });
  cleanup = () => {
    unmount(announcer);
    target.remove();
  };
  const region = () => target.querySelector('[aria-live="polite"]')?.textContent ?? null;
  return { props, announcer, region };
}

describe('what the chat tells screen readers', () => {
  it('says once that a tool call waits for approval, naming the tool', async () => {
    const { props, announcer, region } = mountAnnouncer();
    props.turn = turnWith([waiting('c1', 'files__write_file')]);
    await settle();
    expect(region()).toBe('Lango wants to use the tool write_file. Allow or deny it in the conversation.');

    announcer.announce('Message sent. Lango is replying.');
    await settle();
    // More of the same reply streams in: the waiting call is not announced again.
    props.turn = turnWith([waiting('c1', 'files__write_file'), { kind: 'text', text: 'and then' }]);
    await settle();
    expect(region()).toBe('Message sent. Lango is replying.');
  });

  it('announces a call id again in a later turn (providers without ids reuse call_<name>)', async () => {
    const { props, announcer, region } = mountAnnouncer();
    props.turn = turnWith([waiting('call_write', 'write')]);
    await settle();
    announcer.announce('Reply written.');
    props.turn = null;
    await settle();
    props.turn = turnWith([waiting('call_write', 'write')]);
    await settle();
    expect(region()).toContain('write_file');
  });

  it('says the same words again when asked twice', async () => {
    const { announcer, region } = mountAnnouncer();
    announcer.announce('Reply written.');
    await settle();
    announcer.announce('Reply written.');
    flushSync();
    // Emptied first, so a screen reader hears the repeat as a new announcement.
    expect(region()).toBe('');
    await settle();
    expect(region()).toBe('Reply written.');
  });
});
