import { describe, expect, it } from 'vitest';
import type { Backup, Diagnosis } from './api/types';
import {
  bestBackup,
  formatSize,
  healthText,
  needsRecovery,
  problemHeadline,
  salvageLines,
} from './recovery';

const backup = (fileName: string, health: Backup['health']): Backup => ({
  path: `/data/backups/${fileName}`,
  fileName,
  kind: { kind: 'daily' },
  takenAt: null,
  size: 2048,
  health,
});

describe('recovery', () => {
  it('says what is wrong in plain words and leaves the engine text for Details', () => {
    const raw = {
      code: 'database_corrupt',
      message:
        'the database at C:\\Users\\a\\lango.db is corrupt or not a Lango database (file is not a database); `lango doctor` checks it',
    };
    const plain = problemHeadline(raw, 'C:\\Users\\a\\lango.db');
    expect(plain).toContain('lango.db is damaged');
    expect(plain).not.toMatch(/`|\(file is|C:/);
    expect(problemHeadline({ code: 'database_too_new', message: '' }, '/d/lango.db')).toMatch(
      /newer version of Lango/,
    );
    expect(problemHeadline({ code: 'database_corrupt', message: '' })).toContain('lango.db');
  });

  it('replaces the chat only when the database cannot be opened', () => {
    expect(needsRecovery({ code: 'database_corrupt', message: '' })).toBe(true);
    expect(needsRecovery({ code: 'database_too_new', message: '' })).toBe(true);
    expect(needsRecovery({ code: 'no_provider', message: '' })).toBe(false);
    expect(needsRecovery(null)).toBe(false);
  });

  it('suggests the newest backup that passes its check, skipping damaged ones', () => {
    const diagnosis: Diagnosis = {
      database: '/data/lango.db',
      size: 0,
      health: { state: 'damaged', detail: 'malformed' },
      backupsDir: '/data/backups',
      backups: [
        backup('lango-2026-01-03-daily.db', { state: 'damaged', detail: 'bad page' }),
        backup('lango-2026-01-02-daily.db', { state: 'healthy', schemaVersion: 7 }),
        backup('lango-2026-01-01-daily.db', { state: 'healthy', schemaVersion: 7 }),
      ],
    };
    expect(bestBackup(diagnosis)?.fileName).toBe('lango-2026-01-02-daily.db');
    expect(bestBackup({ ...diagnosis, backups: diagnosis.backups.slice(0, 1) })).toBeNull();
  });

  it('says what was saved and lost per table, leaving out empty tables', () => {
    expect(
      salvageLines([
        { table: 'sessions', saved: 3, lost: 0 },
        { table: 'messages', saved: 280, lost: 20 },
        { table: 'memory_triples', saved: 0, lost: 0 },
      ]),
    ).toEqual(['sessions: all 3 saved', 'messages: 280 saved, 20 lost']);
  });

  it('words sizes and states for people', () => {
    expect(formatSize(512)).toBe('512 bytes');
    expect(formatSize(2048)).toBe('2.0 KB');
    expect(formatSize(3 * 1024 * 1024)).toBe('3.0 MB');
    expect(healthText({ state: 'damaged', detail: 'file is not a database' })).toBe(
      'Damaged: file is not a database',
    );
  });
});
