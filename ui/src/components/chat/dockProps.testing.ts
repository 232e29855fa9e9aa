/**
 * The Dock's props for the DOM tests (npm run test:dom): a chat ready to send, nothing
 * running, every callback a no-op. Tests override what they look at.
 */

const noop = () => {};

export function dockProps(sessionKey: string | null, ensureKey: () => Promise<string> = async () => sessionKey ?? 'k1') {
  return {
    draft: '',
    ready: true,
    running: false,
    stopping: false,
    creating: false,
    sessionKey,
    ensureKey,
    context: null,
    memoryChip: false,
    notice: null,
    onSend: noop,
    onStop: noop,
    onInput: noop,
    onOpenMemory: noop,
    onOpenSettings: noop,
    onDismissChip: noop,
    onDismissNotice: noop,
  };
}
