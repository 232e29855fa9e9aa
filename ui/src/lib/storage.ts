// What Settings → About says of the user's data on disk (from `storage_usage`).
import type { StorageUsage } from './api/types';
import { formatSize } from './recovery';
import { relativeTime } from './sessions';
import { formatCount } from './numbers';

const count = (n: number, one: string, many: string) => `${formatCount(n)} ${n === 1 ? one : many}`;

/** "411.8 MB · 1,000 conversations". */
export function databaseText(usage: StorageUsage): string {
  return `${formatSize(usage.databaseBytes)} · ${count(usage.conversations, 'conversation', 'conversations')}`;
}

/** "2.8 GB in 7 copies · newest yesterday", or that there is none yet. */
export function backupsText(usage: StorageUsage, now: number): string {
  if (usage.backups === 0) return 'None yet';
  const copies = `${formatSize(usage.backupsBytes)} in ${count(usage.backups, 'copy', 'copies')}`;
  if (usage.newestBackupAt === null) return copies;
  const when = relativeTime(usage.newestBackupAt, now).replace(/^(Yesterday|Just now)$/, (w) => w.toLowerCase());
  return `${copies} · newest ${when}`;
}
