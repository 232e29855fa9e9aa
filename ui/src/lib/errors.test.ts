import { describe, expect, it } from 'vitest';
import { isAppError, toAppError } from './errors';

describe('toAppError', () => {
  it('keeps a Rust AppError as it is, dropping extra fields', () => {
    const fromRust = { code: 'paths_unavailable', message: 'no home directory', extra: 1 };
    expect(toAppError(fromRust)).toEqual({ code: 'paths_unavailable', message: 'no home directory' });
  });

  it('keeps the technical detail that goes under the plain headline', () => {
    const fromRust = { code: 'network', message: 'Nothing answered at the provider’s address.', detail: 'network error: tcp connect error (os error 111)' };
    expect(toAppError(fromRust)).toEqual(fromRust);
  });

  it('wraps a plain string rejection (Tauri rejects with strings for unknown commands)', () => {
    expect(toAppError('command app_info not found')).toEqual({
      code: 'ipc_failed',
      message: 'command app_info not found',
    });
  });

  it('wraps an Error, e.g. when running outside Tauri', () => {
    const err = new TypeError("Cannot read properties of undefined (reading 'invoke')");
    expect(toAppError(err)).toEqual({ code: 'ipc_failed', message: err.message });
  });

  it('falls back to a readable message for anything else', () => {
    for (const reason of [undefined, null, 42, '', {}]) {
      const e = toAppError(reason);
      expect(e.code).toBe('unknown');
      expect(e.message.length).toBeGreaterThan(10);
    }
  });
});

describe('isAppError', () => {
  it('requires string code and message', () => {
    expect(isAppError({ code: 'x', message: 'y' })).toBe(true);
    expect(isAppError({ code: 1, message: 'y' })).toBe(false);
    expect(isAppError({ code: 'x' })).toBe(false);
    expect(isAppError(null)).toBe(false);
  });
});
