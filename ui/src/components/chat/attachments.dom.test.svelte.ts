// Mounted and clicked (npm run test:dom): attaching files to a message — the attach button,
// a refused file, pasting a screenshot, sending with files, and a send the backend refuses
// because the model cannot see images — against mocked commands.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { flushSync, mount, unmount, type Component } from 'svelte';
import { settle } from '../settle.testing';
import type { AppStatus, AttachmentInfo, ConversationView, InspectView } from '../../lib/api/types';
import { inspectView } from '../../lib/api/inspectView.fixture';

const commands = vi.hoisted(() => ({
  conversationSettings: vi.fn(),
  setConversationSettings: vi.fn(),
  listModelsOf: vi.fn(),
  getSettingsDocument: vi.fn(),
  prepareAttachment: vi.fn(),
  prepareAttachmentPath: vi.fn(),
  attachmentImage: vi.fn(),
  sendMessage: vi.fn(),
  pageMessages: vi.fn(),
  inspect: vi.fn(),
  createSession: vi.fn(),
  regenerate: vi.fn(),
  editLast: vi.fn(),
  stopTurn: vi.fn(),
  approveToolCall: vi.fn(),
  findInSession: vi.fn(),
}));
vi.mock('../../lib/api/commands', () => commands);
/** The handler the drop overlay gave Tauri's drag and drop (the test plays the drags). */
let fileDrag: ((drag: import('../../lib/api/events').FileDrag) => void) | null = null;
vi.mock('../../lib/api/events', () => ({
  onMemoryEvent: vi.fn(async () => () => {}),
  onFileDrag: vi.fn(async (handler: (drag: import('../../lib/api/events').FileDrag) => void) => {
    fileDrag = handler;
    return () => {};
  }),
  // As the real one: starts the listener (the drop overlay's drag handler), returns the cleanup.
  whileMounted: (start: () => Promise<() => void>) => {
    void start();
    return () => {};
  },
}));

const { dockProps } = await import('./dockProps.testing');
const { default: Dock } = await import('./Dock.svelte');
const { default: ChatView } = await import('../ChatView.svelte');

const view: ConversationView = {
  settings: {},
  effective: { provider: 'fake', model: 'fake-model', temperature: 0.7, maxTokens: 4096, systemPrompt: '' },
  providers: [{ id: 'fake', kind: 'openai-compatible', defaultModel: '' }],
  usage: { inputTokens: 0, outputTokens: 0, replies: 0, cost: null, unpricedReplies: 0 },
};

const info = (name: string, hash: string, extra: Partial<AttachmentInfo> = {}): AttachmentInfo => ({
  hash,
  name,
  kind: 'text',
  mime: 'text/plain',
  size: 2048,
  tokenCount: 1234,
  ...extra,
});

let mounted: { component: ReturnType<typeof mount>; target: HTMLElement }[] = [];

function show<P extends Record<string, any>>(component: Component<P, any, any>, props: P): HTMLElement {
  const target = document.createElement('div');
  document.body.append(target);
  mounted.push({ component: mount(component, { target, props }), target });
  flushSync();
  return target;
}

afterEach(() => {
  for (const m of mounted) {
    unmount(m.component);
    m.target.remove();
  }
  mounted = [];
  for (const f of Object.values(commands)) f.mockReset();
});

/** The Dock of an open conversation (each test its own key: drafts live at module level). */
function showDock(sessionKey: string): HTMLElement {
  commands.conversationSettings.mockResolvedValue(view);
  return show(Dock, dockProps(sessionKey));
}

/** Picks `files` in the attach button's file dialog. */
function pick(target: HTMLElement, files: File[]) {
  const button = target.querySelector<HTMLButtonElement>('button[aria-label="Attach files"]')!;
  const input = target.querySelector<HTMLInputElement>('#attach-input')!;
  const opened = vi.fn();
  input.addEventListener('click', opened);
  button.click();
  expect(opened).toHaveBeenCalled();
  Object.defineProperty(input, 'files', { value: files, configurable: true });
  input.dispatchEvent(new Event('change', { bubbles: true }));
  flushSync();
}

const chips = (target: HTMLElement) =>
  Array.from(target.querySelectorAll<HTMLElement>('form[aria-label="Message composer"] [data-testid="attachment-chip"]'));

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('attaching a file with the button', () => {
  it('shows a chip preparing, then its name, size and tokens; Remove takes it away', async () => {
    const target = showDock('dock-button');
    await settle();
    const prepared = deferred<AttachmentInfo>();
    commands.prepareAttachment.mockReturnValue(prepared.promise);

    pick(target, [new File(['hello'], 'notes.md', { type: 'text/markdown' })]);
    await settle();
    expect(commands.prepareAttachment).toHaveBeenCalledTimes(1);
    const [name, bytes] = commands.prepareAttachment.mock.calls[0];
    expect(name).toBe('notes.md');
    expect(bytes).toBeInstanceOf(Uint8Array);
    expect(new TextDecoder().decode(bytes)).toBe('hello');

    expect(chips(target)).toHaveLength(1);
    expect(chips(target)[0].getAttribute('aria-busy')).toBe('true');
    expect(chips(target)[0].textContent).toContain('Preparing');
    expect(target.querySelector<HTMLButtonElement>('#send-button')!.disabled).toBe(true);

    prepared.resolve(info('notes.md', 'h-notes', { size: 2048, tokenCount: 1234 }));
    await settle();
    const chip = chips(target)[0];
    expect(chip.getAttribute('aria-busy')).toBe('false');
    expect(chip.textContent).toContain('notes.md');
    expect(chip.textContent).toContain('2.0 KB');
    expect(chip.textContent).toContain('~1,234 tokens');
    // Files alone can be sent.
    expect(target.querySelector<HTMLButtonElement>('#send-button')!.disabled).toBe(false);

    target.querySelector<HTMLButtonElement>('button[aria-label="Remove notes.md"]')!.click();
    flushSync();
    expect(chips(target)).toHaveLength(0);
    expect(target.querySelector<HTMLButtonElement>('#send-button')!.disabled).toBe(true);
  });

  it('shows the backend’s reason for a file it cannot take, and keeps no chip', async () => {
    const target = showDock('dock-refused');
    await settle();
    const reason = '“movie.mp4” cannot be attached: Lango takes images, PDFs and text files.';
    commands.prepareAttachment.mockRejectedValue({ code: 'attachment_unsupported', message: reason });

    pick(target, [new File(['....'], 'movie.mp4', { type: 'video/mp4' })]);
    await settle();
    expect(chips(target)).toHaveLength(0);
    const alert = target.querySelector('[role="alert"]')!;
    expect(alert.textContent).toContain(reason);

    alert.querySelector<HTMLButtonElement>('button[aria-label="Dismiss"]')!.click();
    flushSync();
    expect(target.querySelector('[role="alert"]')).toBeNull();
  });

  it('refuses a twenty-first file before reading it, and says when a file cannot be read', async () => {
    const target = showDock('dock-caps');
    await settle();
    commands.prepareAttachment.mockImplementation(async (name: string) => info(name, `hash-${name}`));
    const files = Array.from({ length: 21 }, (_, i) => new File(['x'], `f${i + 1}.txt`, { type: 'text/plain' }));
    pick(target, files);
    await settle();
    expect(commands.prepareAttachment).toHaveBeenCalledTimes(20);
    expect(chips(target)).toHaveLength(20);
    expect(target.querySelector('[role="alert"]')!.textContent).toContain(
      '“f21.txt” was not attached: a message can carry at most 20 files.',
    );

    target.querySelector<HTMLButtonElement>('button[aria-label="Remove f1.txt"]')!.click();
    flushSync();
    const gone = new File(['x'], 'gone.txt', { type: 'text/plain' });
    Object.defineProperty(gone, 'arrayBuffer', { value: () => Promise.reject(new Error('NotReadableError')) });
    pick(target, [gone]);
    await settle();
    expect(commands.prepareAttachment).toHaveBeenCalledTimes(20);
    expect(chips(target)).toHaveLength(19);
    expect(target.textContent).toContain('“gone.txt” could not be read.');
  });

  it('renders a file name as text, never as markup', async () => {
    const target = showDock('dock-markup');
    await settle();
    const name = '<img src=x onerror=alert(1)>.txt';
    commands.prepareAttachment.mockResolvedValue(info(name, 'h-markup'));
    pick(target, [new File(['x'], name, { type: 'text/plain' })]);
    await settle();
    expect(chips(target)[0].querySelector('.name')!.textContent).toBe(name);
    expect(chips(target)[0].querySelector('img')).toBeNull();
  });
});

describe('pasting into the composer', () => {
  it('attaches a pasted screenshot with its thumbnail, and keeps text pastes as text', async () => {
    commands.attachmentImage.mockResolvedValue({ mime: 'image/png', data: 'iVBORw==' });
    const target = showDock('dock-paste');
    await settle();
    commands.prepareAttachment.mockResolvedValue(
      info('pasted-image.png', 'h-shot', { kind: 'image', mime: 'image/png', tokenCount: 1600 }),
    );
    const textarea = target.querySelector<HTMLTextAreaElement>('#composer-input')!;
    const shot = new File([new Uint8Array([137, 80, 78, 71])], '', { type: 'image/png' });
    const paste = (clipboardData: unknown) => {
      const event = new Event('paste', { bubbles: true, cancelable: true });
      Object.defineProperty(event, 'clipboardData', { value: clipboardData });
      textarea.dispatchEvent(event);
      return event;
    };

    const text = paste({ types: ['text/plain'], items: [], files: [], getData: () => 'just text' });
    expect(text.defaultPrevented).toBe(false);
    expect(commands.prepareAttachment).not.toHaveBeenCalled();

    const event = paste({
      types: ['Files'],
      items: [{ kind: 'file', getAsFile: () => shot }],
      files: [shot],
      getData: () => '',
    });
    expect(event.defaultPrevented).toBe(true);
    await settle();
    expect(commands.prepareAttachment).toHaveBeenCalledWith('pasted-image.png', expect.any(Uint8Array));
    expect(chips(target)).toHaveLength(1);
    expect(chips(target)[0].textContent).toContain('pasted-image.png');
    expect(chips(target)[0].textContent).toContain('~1,600 tokens');
    // The thumbnail is the backend's downscaled image (the CSP allows data: images only).
    expect(commands.attachmentImage).toHaveBeenCalledWith('h-shot');
    expect(chips(target)[0].querySelector('img')!.getAttribute('src')).toBe('data:image/png;base64,iVBORw==');
  });
});

describe('dropping files on the chat', () => {
  it('shows the drop overlay while files are dragged over the window and attaches what is dropped, by path', async () => {
    const { default: DropOverlay } = await import('./DropOverlay.svelte');
    const onPaths = vi.fn();
    const target = show(DropOverlay, { enabled: true, onPaths });
    await settle();
    const play = (drag: import('../../lib/api/events').FileDrag) => {
      fileDrag!(drag);
      flushSync();
    };

    play({ type: 'enter', paths: ['/home/u/notes.md'] });
    expect(target.querySelector('[data-testid="drop-overlay"]')!.textContent).toContain('Drop files to attach');
    expect(target.querySelector('[role="status"]')!.textContent).toBe('Drop files to attach');
    play({ type: 'leave' });
    expect(target.querySelector('[data-testid="drop-overlay"]')).toBeNull();

    play({ type: 'enter', paths: ['/home/u/notes.md'] });
    play({ type: 'over' });
    play({ type: 'drop', paths: ['/home/u/notes.md', '/home/u/photo.png'] });
    expect(onPaths).toHaveBeenCalledWith(['/home/u/notes.md', '/home/u/photo.png']);
    expect(target.querySelector('[data-testid="drop-overlay"]')).toBeNull();
  });

  it('a dropped file becomes a chip prepared by the backend from its path', async () => {
    commands.prepareAttachmentPath.mockResolvedValueOnce({
      hash: 'h-notes',
      name: 'notes.md',
      kind: 'text',
      mime: 'text/markdown',
      size: 2048,
      tokenCount: 512,
    });
    const { attachmentDraft } = await import('./attachments.svelte');
    const draft = attachmentDraft('dropped');
    await draft.addPaths(['C:\\Users\\u\\notes.md']);
    expect(commands.prepareAttachmentPath).toHaveBeenCalledWith('C:\\Users\\u\\notes.md');
    expect(draft.ready.map((a) => a.name)).toEqual(['notes.md']);
    expect(draft.items[0].size).toBe(2048);
  });
});

// ---------------------------------------------------------------------------------------
// Sending, through the whole chat view

const status: AppStatus = {
  version: '0',
  dataDir: '',
  configFile: '',
  logDir: '',
  ready: true,
  provider: 'fake',
  model: 'fake-model',
  memoryEnabled: false,
  problem: null,
  theme: 'system',
};

const context: InspectView = inspectView({ historyTokens: 100, historyBudget: 10000 });

async function showChat(sessionKey: string): Promise<HTMLElement> {
  commands.conversationSettings.mockResolvedValue(view);
  commands.pageMessages.mockResolvedValue([]);
  commands.inspect.mockResolvedValue(context);
  const noop = () => {};
  const target = show(ChatView, {
    status,
    sessionKey,
    onSessionCreated: noop,
    onTurnFinished: noop,
    onOpenSettings: noop,
    onOpenMemory: noop,
  });
  await settle();
  return target;
}

function type(textarea: HTMLTextAreaElement, value: string) {
  textarea.value = value;
  textarea.dispatchEvent(new Event('input', { bubbles: true }));
  flushSync();
}

describe('sending a message with files', () => {
  it('passes the hashes in order with the text, and clears the chips', async () => {
    const target = await showChat('chat-send');
    commands.prepareAttachment.mockImplementation(async (name: string) =>
      info(name, `hash-${name}`, name.endsWith('.png') ? { kind: 'image', mime: 'image/png' } : {}),
    );
    pick(target, [new File(['a'], 'a.txt', { type: 'text/plain' }), new File(['b'], 'b.png', { type: 'image/png' })]);
    await settle();
    expect(chips(target).map((c) => c.querySelector('.name')!.textContent)).toEqual(['a.txt', 'b.png']);
    // The context meter counts the files about to be sent.
    expect(target.querySelector('#context-meter')!.textContent).toContain('2,568 / 10,000 tokens');

    const reply = deferred<unknown>();
    commands.sendMessage.mockReturnValue(reply.promise);
    type(target.querySelector<HTMLTextAreaElement>('#composer-input')!, 'Compare these');
    target.querySelector<HTMLButtonElement>('#send-button')!.click();
    await settle();

    expect(commands.sendMessage).toHaveBeenCalledTimes(1);
    expect(commands.sendMessage).toHaveBeenCalledWith('chat-send', 'Compare these', expect.any(Function), [
      'hash-a.txt',
      'hash-b.png',
    ]);
    expect(chips(target)).toHaveLength(0);
    expect(target.querySelector<HTMLTextAreaElement>('#composer-input')!.value).toBe('');
    // While the reply is written, the pending message shows its files (once the list's chunk,
    // asked for as the turn starts, is in: compiling it here takes longer than in the app).
    const pending = await vi.waitFor(
      () => {
        const shown = target.querySelector<HTMLElement>('article[data-status="pending"]');
        if (!shown) throw new Error('no pending message yet');
        return shown;
      },
      { timeout: 15_000 },
    );
    expect(pending.textContent).toContain('Compare these');
    expect(pending.textContent).toContain('a.txt');
    expect(pending.querySelector('[aria-label="b.png"]')).not.toBeNull();
    reply.resolve({ status: 'complete', error: null, truncated: false });
    await settle();
  }, 20_000);

  it('sends files without text', async () => {
    const target = await showChat('chat-files-only');
    commands.prepareAttachment.mockResolvedValue(info('data.csv', 'hash-csv'));
    commands.sendMessage.mockResolvedValue({ status: 'complete', error: null, truncated: false });
    pick(target, [new File(['a,b'], 'data.csv', { type: 'text/csv' })]);
    await settle();
    target.querySelector<HTMLButtonElement>('#send-button')!.click();
    await settle();
    expect(commands.sendMessage).toHaveBeenCalledWith('chat-files-only', '', expect.any(Function), ['hash-csv']);
  });

  it('keeps the text and the chips when the model cannot see images, and says why', async () => {
    const target = await showChat('chat-refused');
    commands.prepareAttachment.mockResolvedValue(info('photo.png', 'hash-photo', { kind: 'image', mime: 'image/png' }));
    const reason = 'The model “fake-model” cannot see images. Pick a model that can, in the model picker.';
    commands.sendMessage.mockRejectedValue({ code: 'model_cannot_see_images', message: reason });
    pick(target, [new File(['p'], 'photo.png', { type: 'image/png' })]);
    await settle();
    type(target.querySelector<HTMLTextAreaElement>('#composer-input')!, 'What is in this picture?');
    target.querySelector<HTMLButtonElement>('#send-button')!.click();
    await settle();

    expect(commands.sendMessage).toHaveBeenCalledWith('chat-refused', 'What is in this picture?', expect.any(Function), [
      'hash-photo',
    ]);
    expect(target.querySelector<HTMLTextAreaElement>('#composer-input')!.value).toBe('What is in this picture?');
    expect(chips(target).map((c) => c.querySelector('.name')!.textContent)).toEqual(['photo.png']);
    expect(target.textContent).toContain(reason);
  });
});

describe('a sent message’s files', () => {
  it('loads an image’s thumbnail once by hash, and shows other files with name and size', async () => {
    const { default: MessageAttachments } = await import('./MessageAttachments.svelte');
    commands.attachmentImage.mockResolvedValue({ mime: 'image/webp', data: 'UklGRg==' });
    const attachments: AttachmentInfo[] = [
      info('cat.webp', 'hash-cat', { kind: 'image', mime: 'image/webp' }),
      info('paper.pdf', 'hash-paper', { kind: 'pdf', mime: 'application/pdf', size: 3 * 1024 * 1024 }),
    ];
    const first = show(MessageAttachments, { attachments });
    await settle();
    expect(commands.attachmentImage).toHaveBeenCalledWith('hash-cat');
    const img = first.querySelector('img')!;
    expect(img.getAttribute('src')).toBe('data:image/webp;base64,UklGRg==');
    expect(img.getAttribute('alt')).toBe('cat.webp');
    expect(first.textContent).toContain('paper.pdf');
    expect(first.textContent).toContain('PDF · 3.0 MB');

    const again = show(MessageAttachments, { attachments });
    await settle();
    expect(commands.attachmentImage).toHaveBeenCalledTimes(1);
    expect(again.querySelector('img')!.getAttribute('src')).toBe('data:image/webp;base64,UklGRg==');
  });
});
