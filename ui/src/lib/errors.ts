/**
 * The error shape every Rust command returns (`AppError` in src-tauri/src/error.rs):
 * `{ code, message, detail? }`. `toAppError` turns anything thrown by `invoke` into that shape.
 */

export interface AppError {
  code: string;
  /** A plain sentence: the headline. */
  message: string;
  /** The technical text behind it (an OS or HTTP error), shown folded under "Details". */
  detail?: string | null;
}

export function isAppError(value: unknown): value is AppError {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as AppError).code === 'string' &&
    typeof (value as AppError).message === 'string'
  );
}

/** Normalises a rejection from `invoke` (an AppError object, a string, or an Error). */
export function toAppError(reason: unknown): AppError {
  if (isAppError(reason)) {
    const detail = (reason as AppError).detail;
    return typeof detail === 'string' && detail !== ''
      ? { code: reason.code, message: reason.message, detail }
      : { code: reason.code, message: reason.message };
  }
  if (reason instanceof Error) return { code: 'ipc_failed', message: reason.message };
  if (typeof reason === 'string' && reason.length > 0) return { code: 'ipc_failed', message: reason };
  return { code: 'unknown', message: 'Something went wrong while talking to the Lango backend.' };
}
