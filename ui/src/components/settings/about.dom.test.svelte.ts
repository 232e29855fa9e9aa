// Mounted (npm run test:dom): Settings → About says what the data takes on disk and, when
// today's backup was not taken, why — in plain words, SQLite's text folded under "Details".
import { afterEach, describe, expect, it, vi } from 'vitest';
import { flushSync, mount, unmount } from 'svelte';
import { settle } from '../settle.testing';
import type { AppStatus, StorageUsage } from '../../lib/api/types';

const commands = vi.hoisted(() => ({
  checkForUpdates: vi.fn(),
  openReleasePage: vi.fn(),
  saveSettings: vi.fn(),
  storageUsage: vi.fn(),
}));
vi.mock('../../lib/api/commands', () => commands);

const { default: AboutSection } = await import('./AboutSection.svelte');

const status = { version: '0.1.0', dataDir: '/data', configFile: '/data/settings.json', logDir: '/data/logs' } as AppStatus;
const usage: StorageUsage = {
  databaseBytes: 431_767_552,
  conversations: 1000,
  backups: 7,
  backupsBytes: 7 * 419_393_536,
  newestBackupAt: Date.now() - 26 * 3_600_000,
  backupProblem: null,
};

let about: ReturnType<typeof mount> | null = null;
afterEach(() => {
  vi.clearAllMocks();
  if (about) unmount(about);
  about = null;
  document.body.innerHTML = '';
});

async function show(answer: StorageUsage) {
  commands.storageUsage.mockResolvedValue(answer);
  about = mount(AboutSection, { target: document.body, props: { status } });
  flushSync();
  await settle();
}

describe('Settings → About', () => {
  it('shows the database and the backups on disk, and no alarm when today’s backup is fine', async () => {
    await show(usage);
    expect(document.querySelector('#storage-database')?.textContent).toBe('411.8 MB · 1,000 conversations');
    expect(document.querySelector('#storage-backups')?.textContent).toMatch(/^2\.7 GB in 7 copies · newest /);
    expect(document.querySelector('#backup-problem')).toBeNull();
  });

  it('says why today’s backup was not taken, with SQLite’s text folded away', async () => {
    await show({
      ...usage,
      backupProblem: {
        code: 'backup_skipped_damaged',
        message: "Today's backup was not taken: the database fails SQLite's check, so the older copies are kept as they are.",
        detail: '*** in database main ***\nPage 167: btreeInitPage() returns error code 11',
      },
    });
    const problem = document.querySelector('#backup-problem')!;
    expect(problem.getAttribute('role')).toBe('alert');
    expect(problem.querySelector('p')?.textContent).toMatch(/^Today's backup was not taken/);
    const details = problem.querySelector('details')!;
    expect(details.hasAttribute('open')).toBe(false);
    expect(details.textContent).toContain('btreeInitPage');
  });
});
