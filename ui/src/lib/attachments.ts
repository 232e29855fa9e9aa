/**
 * Attaching files to a message, as pure functions (unit-tested): which files a drop or a
 * paste carries, what the composer checks before handing a file to the backend (the
 * per-message caps), how a chip describes a file, and reading a file's bytes. The backend
 * (`prepare_attachment`) decides what it can take and says why not in plain words.
 */

import type { AttachmentImage, AttachmentInfo } from './api/types';
import { formatSize } from './recovery';
import { formatCount } from './numbers';

export { formatSize };

/** At most this many files go with one message (the backend's cap too). */
export const MAX_FILES = 20;
/** The files of one message total at most this many bytes (the backend's cap too). */
export const MAX_TOTAL_BYTES = 64 * 1024 * 1024;

/** The image types the models take (the backend decides; this only picks a chip's icon). */
export const IMAGE_TYPES: readonly string[] = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'];

/** "~1,234 tokens" — what a file costs in the prompt. */
export function tokenText(tokens: number): string {
  const n = Math.max(0, Math.round(tokens));
  return `~${formatCount(n)} ${n === 1 ? 'token' : 'tokens'}`;
}

/** What a chip says about a file, for its accessible description: "photo.png, 1.2 MB, ~1,234 tokens". */
export function describeAttachment(info: Pick<AttachmentInfo, 'name' | 'size' | 'tokenCount'>): string {
  return `${info.name}, ${formatSize(info.size)}, ${tokenText(info.tokenCount)}`;
}

/** A dropped file's name: the last part of its path (either separator). */
export function fileNameOf(path: string): string {
  const parts = path.split(/[\\/]/);
  return parts[parts.length - 1] || path;
}

/** Whether a dropped file looks like an image the models take, by its name. */
export function looksLikeImage(name: string): boolean {
  return /\.(png|jpe?g|webp|gif)$/i.test(name);
}

/** Whether a local file looks like an image the models take, by its type. */
export function isPreviewableImage(type: string): boolean {
  return IMAGE_TYPES.includes(type.toLowerCase());
}

/** The `data:` URL of an attached image as the backend returns it. */
export function imageDataUrl(image: AttachmentImage): string {
  return `data:${image.mime};base64,${image.data}`;
}

/** The tokens of the prepared attachments (for the context meter). */
export function totalTokens(infos: readonly Pick<AttachmentInfo, 'tokenCount'>[]): number {
  return infos.reduce((sum, info) => sum + Math.max(0, info.tokenCount), 0);
}

// ---------------------------------------------------------------------------------------
// Drops and pastes

/** The parts of a DataTransfer (drop or clipboard) this module reads; real ones fit. */
export interface TransferLike {
  readonly types?: ReadonlyArray<string> | DOMStringList;
  readonly items?: ArrayLike<TransferItemLike> | null;
  readonly files?: ArrayLike<File> | null;
  getData?(format: string): string;
}

export interface TransferItemLike {
  readonly kind: string;
  getAsFile(): File | null;
  webkitGetAsEntry?(): { isDirectory: boolean } | null;
}

function typesOf(dt: TransferLike): string[] {
  return dt.types ? Array.from(dt.types as ArrayLike<string>) : [];
}

/**
 * Whether a drag carries files (while dragging, only the types can be read): dragging text
 * or a link over the chat is not an attachment.
 */
export function dragHasFiles(dt: TransferLike | null | undefined): boolean {
  return !!dt && typesOf(dt).includes('Files');
}

/** The files a drop or a paste carries, in order; folders and non-file items are left out. */
export function filesOf(dt: TransferLike | null | undefined): File[] {
  if (!dt) return [];
  const items = dt.items ? Array.from(dt.items) : [];
  // The items tell folders apart; the plain file list (older webviews) is the fallback.
  if (items.some((item) => item.kind === 'file')) {
    const files: File[] = [];
    for (const item of items) {
      if (item.kind !== 'file') continue;
      if (item.webkitGetAsEntry?.()?.isDirectory) continue;
      const file = item.getAsFile();
      if (file) files.push(file);
    }
    return files;
  }
  return dt.files ? Array.from(dt.files) : [];
}

/**
 * The files a paste attaches. A paste that carries text is a text paste: spreadsheets and
 * word processors put a picture of the copied cells or text beside it, which is not what
 * the user means to send. A screenshot or a copied file carries no text.
 */
export function pastedFiles(dt: TransferLike | null | undefined): File[] {
  if (!dt) return [];
  const text = typesOf(dt).includes('text/plain') ? (dt.getData?.('text/plain') ?? '') : '';
  if (text.trim() !== '') return [];
  return filesOf(dt).map(namePasted);
}

const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'application/pdf': 'pdf',
  'text/plain': 'txt',
};

/** A pasted file without a name (some clipboards give none) gets one from its type. */
export function namePasted(file: File): File {
  if (file.name.trim() !== '') return file;
  const ext = EXTENSIONS[file.type.toLowerCase()];
  const base = file.type.startsWith('image/') ? 'pasted-image' : 'pasted-file';
  return new File([file], ext ? `${base}.${ext}` : base, { type: file.type, lastModified: file.lastModified });
}

// ---------------------------------------------------------------------------------------
// Before preparing

export interface Refused {
  name: string;
  /** A full sentence naming the file. */
  message: string;
}

/**
 * Which of `files` may be prepared, given what the draft already holds (`count` files of
 * `bytes` in total): the per-message caps are checked here first, so a twelfth file or a
 * 2 GB video is not read into memory and sent to the backend only to be refused.
 */
export function admit(
  files: readonly File[],
  count: number,
  bytes: number,
): { accepted: File[]; refused: Refused[] } {
  const accepted: File[] = [];
  const refused: Refused[] = [];
  for (const file of files) {
    if (count >= MAX_FILES) {
      refused.push({
        name: file.name,
        message: `“${file.name}” was not attached: a message can carry at most ${MAX_FILES} files.`,
      });
    } else if (bytes + file.size > MAX_TOTAL_BYTES) {
      refused.push({
        name: file.name,
        message: `“${file.name}” was not attached: the files of a message can total at most ${formatSize(MAX_TOTAL_BYTES)}.`,
      });
    } else {
      accepted.push(file);
      count += 1;
      bytes += file.size;
    }
  }
  return { accepted, refused };
}

/** Why a file could not be read from disk (gone, a folder, no permission). */
export function unreadable(name: string): string {
  return `“${name}” could not be read. It may have been moved, or be a folder.`;
}

/** A file's bytes, for the raw body of `prepare_attachment`. */
export async function readBytes(file: Blob): Promise<Uint8Array> {
  if (typeof file.arrayBuffer === 'function') return new Uint8Array(await file.arrayBuffer());
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(new Uint8Array(reader.result as ArrayBuffer));
    reader.onerror = () => reject(reader.error ?? new Error('The file could not be read.'));
    reader.readAsArrayBuffer(file);
  });
}

/**
 * With the shell's own file drop off, a file dropped where nothing takes it would open in
 * the webview, replacing the app. This refuses such drops window-wide (the chat's drop
 * overlay, registered later, takes them where it is shown). Returns the cleanup.
 */
export function refuseStrayDrops(target: Pick<EventTarget, 'addEventListener' | 'removeEventListener'>): () => void {
  const refuse = (event: Event) => {
    const dt = (event as DragEvent).dataTransfer;
    if (!dragHasFiles(dt)) return;
    event.preventDefault();
    if (dt && event.type === 'dragover') dt.dropEffect = 'none';
  };
  target.addEventListener('dragover', refuse);
  target.addEventListener('drop', refuse);
  return () => {
    target.removeEventListener('dragover', refuse);
    target.removeEventListener('drop', refuse);
  };
}
