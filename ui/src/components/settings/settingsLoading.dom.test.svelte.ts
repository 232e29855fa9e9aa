// Mounted (npm run test:dom): Settings while its document is still loading. The Data and
// About sections wait for the first load to end, so nothing the user can click moves when the
// sections above them arrive (the Import button used to jump a page down, under the pointer),
// and a failed load still offers the import.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { flushSync, mount, unmount } from 'svelte';
import { settle } from '../settle.testing';
import type { AppStatus, SettingsView as SettingsViewData } from '../../lib/api/types';

const commands = vi.hoisted(() => ({
  getSettings: vi.fn(),
  saveSettings: vi.fn(),
  testConnection: vi.fn(),
  validateSettings: vi.fn(),
  deleteApiKey: vi.fn(),
  setApiKey: vi.fn(),
  mcpServers: vi.fn(),
  mcpRestart: vi.fn(),
  mcpSetToolPolicy: vi.fn(),
  storageUsage: vi.fn(),
  checkForUpdates: vi.fn(),
  openReleasePage: vi.fn(),
  importConversations: vi.fn(),
  cancelImport: vi.fn(),
  estimateImportMemory: vi.fn(),
  buildImportMemory: vi.fn(),
  cancelImportMemory: vi.fn(),
}));
vi.mock('../../lib/api/commands', () => commands);
vi.mock('../../lib/api/events', () => ({ onFilesDropped: vi.fn(() => Promise.resolve(() => {})) }));

const { default: SettingsView } = await import('../SettingsView.svelte');

const status = { version: '0.1.0', dataDir: '/data', configFile: '/data/settings.json', logDir: '/data/logs' } as AppStatus;
const view = {
  settings: {
    providers: {},
    agent: {},
    observationalMemory: { enabled: true },
    appearance: {},
    prices: {},
    mcpServers: {},
  },
  keys: [],
  keychain: { available: true, reason: null, fileFallbackAllowed: false },
  loadError: null,
} as unknown as SettingsViewData;

let settings: ReturnType<typeof mount> | null = null;
afterEach(() => {
  vi.clearAllMocks();
  if (settings) unmount(settings);
  settings = null;
  document.body.innerHTML = '';
});

/** Mounts the screen with `getSettings` held until the returned function settles it. */
function mountLoading(): { answer: (v: SettingsViewData) => void; fail: (e: unknown) => void } {
  let answer!: (v: SettingsViewData) => void;
  let fail!: (e: unknown) => void;
  commands.getSettings.mockReturnValue(
    new Promise<SettingsViewData>((resolve, reject) => {
      answer = resolve;
      fail = reject;
    }),
  );
  commands.validateSettings.mockResolvedValue({ problems: [], warnings: [] });
  commands.mcpServers.mockResolvedValue([]);
  commands.storageUsage.mockResolvedValue(null);
  settings = mount(SettingsView, { target: document.body, props: { status, onSaved: vi.fn() } });
  flushSync();
  return { answer, fail };
}

describe('Settings while its document loads', () => {
  it('shows no Import field until the sections above it are there, then shows it below them', async () => {
    const { answer } = mountLoading();
    expect(document.body.textContent).toContain('Loading settings…');
    expect(document.querySelector('#import-path')).toBeNull();

    answer(view);
    await settle();
    const form = document.querySelector('#settings-form');
    const importField = document.querySelector('#import-path');
    expect(form).not.toBeNull();
    expect(importField).not.toBeNull();
    // Below the form in the page: arriving sections no longer push it down after it is shown.
    expect(form!.compareDocumentPosition(importField!) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
  });

  it('still offers the import when the settings cannot be loaded', async () => {
    const { fail } = mountLoading();
    fail({ code: 'io', message: 'the settings file could not be read' });
    await settle();
    expect(document.querySelector('#settings-fetch-error')).not.toBeNull();
    expect(document.querySelector('#import-path')).not.toBeNull();
  });
});
