/**
 * The recovery screen's pure logic: when the database needs it, and how backups, their
 * state and a salvage's counts are said in words.
 */

import type { AppError } from './errors';
import type { Backup, Diagnosis, Health, TableSalvage } from './api/types';

/** Error codes of an app that could not open its database (see AppError in lango-core). */
const DATABASE_PROBLEMS = new Set(['database_corrupt', 'database_too_new']);

/** The recovery screen replaces the chat for these errors. */
export function needsRecovery(error: AppError | null): boolean {
  return error !== null && DATABASE_PROBLEMS.has(error.code);
}

/**
 * The recovery screen's headline in plain words; the engine's own text (paths, the SQLite
 * reason) goes under "Details".
 */
export function problemHeadline(error: AppError, databasePath?: string): string {
  const file = databasePath?.split(/[\\/]/).pop() || 'lango.db';
  if (error.code === 'database_too_new') {
    return `The database file ${file} was written by a newer version of Lango. Update Lango to open it; the file was left as it is.`;
  }
  return `The database file ${file} is damaged or is not a Lango database. It was left as it is: restore a backup or salvage what can still be read.`;
}

export function isUsable(health: Health): boolean {
  return health.state === 'healthy' || health.state === 'outdated';
}

/** The backup to suggest: the newest that passes its check (the list is newest first). */
export function bestBackup(diagnosis: Diagnosis): Backup | null {
  return diagnosis.backups.find((b) => isUsable(b.health)) ?? null;
}

export function healthText(health: Health): string {
  switch (health.state) {
    case 'missing':
      return 'No database yet';
    case 'healthy':
      return 'Sound';
    case 'outdated':
      return 'Sound (from an older Lango; upgraded when opened)';
    case 'tooNew':
      return `Written by a newer Lango (schema version ${health.schemaVersion})`;
    case 'damaged':
      return `Damaged: ${health.detail}`;
  }
}

export function backupKindText(backup: Backup): string {
  switch (backup.kind.kind) {
    case 'daily':
      return 'Daily backup';
    case 'beforeUpgrade':
      return `Before upgrade to version ${backup.kind.version}`;
    case 'other':
      return 'Backup';
  }
}

export function formatSize(bytes: number): string {
  if (bytes >= 1024 * 1024 * 1024) return `${(bytes / (1024 * 1024 * 1024)).toFixed(1)} GB`;
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${bytes} bytes`;
}

/** One line per table that had rows: how many were saved and how many lost. */
export function salvageLines(tables: TableSalvage[]): string[] {
  return tables
    .filter((t) => t.saved > 0 || t.lost > 0)
    .map((t) => {
      const name = t.table.replace(/_/g, ' ');
      return t.lost > 0 ? `${name}: ${t.saved} saved, ${t.lost} lost` : `${name}: all ${t.saved} saved`;
    });
}
