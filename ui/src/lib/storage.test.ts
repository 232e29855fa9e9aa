import { describe, expect, it } from 'vitest';
import { backupsText, databaseText } from './storage';
import { formatSize } from './recovery';

const now = new Date(2026, 10, 29, 15, 0).getTime();
const usage = {
  databaseBytes: 431_767_552,
  conversations: 1000,
  backups: 7,
  backupsBytes: 7 * 419_393_536,
  newestBackupAt: new Date(2026, 10, 28, 9, 30).getTime(),
  backupProblem: null,
};

describe('what About says the data takes on disk', () => {
  it('gives the database size with its conversations', () => {
    expect(databaseText(usage)).toBe('411.8 MB · 1,000 conversations');
    expect(databaseText({ ...usage, databaseBytes: 217_088, conversations: 1 })).toBe('212.0 KB · 1 conversation');
  });

  it('gives the backups in gigabytes once they pass 1 GB, with when the newest was taken', () => {
    expect(backupsText(usage, now)).toBe('2.7 GB in 7 copies · newest yesterday');
    const oneToday = { ...usage, backups: 1, backupsBytes: 3 * 1024 * 1024, newestBackupAt: now - 3 * 3_600_000 };
    expect(backupsText(oneToday, now)).toBe('3.0 MB in 1 copy · newest 3h ago');
    expect(backupsText({ ...usage, newestBackupAt: new Date(2026, 10, 2).getTime() }, now)).toBe('2.7 GB in 7 copies · newest Nov 2');
  });

  it('says there are none yet', () => {
    expect(backupsText({ ...usage, backups: 0, backupsBytes: 0, newestBackupAt: null }, now)).toBe('None yet');
  });

  it('keeps megabytes below a gigabyte', () => {
    expect(formatSize(1023 * 1024 * 1024)).toBe('1023.0 MB');
    expect(formatSize(1024 * 1024 * 1024)).toBe('1.0 GB');
  });
});
