/**
 * Files attached to the unsent message of each conversation (kept at module level, like
 * the draft text, so they survive switching conversations), and the thumbnails of attached
 * images by content hash. Each file is prepared by the backend (`prepare_attachment`) as
 * soon as it is added; a file it refuses leaves its reason and no chip.
 *
 * Thumbnails are the backend's downscaled image (`attachment_image`, a data: URL), also for
 * chips: the CSP allows `data:` images but not `blob:` ones, and a 20 MB photo is not worth
 * decoding in the webview for a 38 px square.
 */

import { attachmentImage, prepareAttachment, prepareAttachmentPath } from '../../lib/api/commands';
import type { AttachmentInfo } from '../../lib/api/types';
import {
  admit,
  fileNameOf,
  imageDataUrl,
  isPreviewableImage,
  looksLikeImage,
  MAX_FILES,
  readBytes,
  totalTokens,
  unreadable,
} from '../../lib/attachments';
import { toAppError } from '../../lib/errors';

export interface PendingAttachment {
  /** Local id (the chip's key). */
  id: number;
  name: string;
  size: number;
  /** An image (by its type): its chip shows a picture icon until the thumbnail comes. */
  image: boolean;
  /** Null while the backend prepares it. */
  info: AttachmentInfo | null;
}

/** A file that could not be attached: the backend's (or the caps') sentence. */
export interface Refusal {
  id: number;
  message: string;
}

let nextId = 1;

/** The attachments of one unsent message. */
export class AttachmentDraft {
  items: PendingAttachment[] = $state([]);
  refusals: Refusal[] = $state([]);
  /** A file was just attached or refused (for a screen reader). */
  announcement = $state('');

  /** Some file is still being prepared: the message cannot be sent yet. */
  get preparing(): boolean {
    return this.items.some((item) => !item.info);
  }

  /** The prepared files, in order. */
  get ready(): AttachmentInfo[] {
    return this.items.flatMap((item) => (item.info ? [item.info] : []));
  }

  /** Their tokens in the prompt. */
  get tokens(): number {
    return totalTokens(this.ready);
  }

  /** Prepares `files` (in parallel); each becomes a chip, or a refusal. */
  add(files: readonly File[]): Promise<void> {
    const bytes = this.items.reduce((sum, item) => sum + item.size, 0);
    const { accepted, refused } = admit(files, this.items.length, bytes);
    for (const r of refused) this.refuse(r.message);
    return Promise.all(accepted.map((file) => this.prepare(file))).then(() => undefined);
  }

  /**
   * Prepares files dropped on the window, by path (Tauri's drag and drop gives paths; the
   * backend reads them). Their sizes are checked by the backend.
   */
  addPaths(paths: readonly string[]): Promise<void> {
    let count = this.items.length;
    const accepted: string[] = [];
    for (const path of paths) {
      const name = fileNameOf(path);
      if (count >= MAX_FILES) {
        this.refuse(`“${name}” was not attached: a message can carry at most ${MAX_FILES} files.`);
      } else {
        accepted.push(path);
        count += 1;
      }
    }
    return Promise.all(
      accepted.map((path) => {
        const name = fileNameOf(path);
        return this.prepareWith(name, 0, looksLikeImage(name), () => prepareAttachmentPath(path));
      }),
    ).then(() => undefined);
  }

  private prepare(file: File) {
    return this.prepareWith(file.name, file.size, isPreviewableImage(file.type), async () => {
      let bytes: Uint8Array;
      try {
        bytes = await readBytes(file);
      } catch {
        throw { code: 'attachment_unreadable', message: unreadable(file.name) };
      }
      return prepareAttachment(file.name, bytes);
    });
  }

  private async prepareWith(name: string, size: number, image: boolean, run: () => Promise<AttachmentInfo>) {
    const id = nextId++;
    this.items.push({ id, name, size, image, info: null });
    let info: AttachmentInfo;
    try {
      info = await run();
    } catch (e) {
      if (!this.has(id)) return;
      this.items = this.items.filter((item) => item.id !== id);
      this.refuse(toAppError(e).message);
      return;
    }
    const item = this.items.find((it) => it.id === id);
    if (!item) return; // removed while it was being prepared
    if (this.items.some((it) => it.info?.hash === info.hash)) {
      // The same file twice: one chip is enough.
      this.items = this.items.filter((it) => it.id !== id);
      return;
    }
    item.info = info;
    item.size = info.size;
    item.image = info.kind === 'image';
    if (item.image) thumbnails.load(info.hash);
    this.announcement = `Attached ${info.name}.`;
  }

  private has(id: number) {
    return this.items.some((item) => item.id === id);
  }

  private refuse(message: string) {
    this.refusals.push({ id: nextId++, message });
    this.announcement = '';
  }

  remove(id: number) {
    const item = this.items.find((it) => it.id === id);
    if (!item) return;
    this.items = this.items.filter((it) => it.id !== id);
    this.announcement = `Removed ${item.name}.`;
  }

  dismiss(id: number) {
    this.refusals = this.refusals.filter((r) => r.id !== id);
  }

  /** The prepared files for sending; the chips and reasons are cleared. */
  take(): AttachmentInfo[] {
    const ready = this.ready;
    this.items = [];
    this.refusals = [];
    this.announcement = '';
    return ready;
  }

  /** A refused send gives its files back (unless others were attached meanwhile). */
  restore(infos: readonly AttachmentInfo[]) {
    if (this.items.length > 0 || infos.length === 0) return;
    this.items = infos.map((info) => ({
      id: nextId++,
      name: info.name,
      size: info.size,
      image: info.kind === 'image',
      info,
    }));
  }
}

const drafts = new Map<string, AttachmentDraft>();

/** The attachments of the unsent message of `key` ('' or null = a new chat). */
export function attachmentDraft(key: string | null): AttachmentDraft {
  const k = key ?? '';
  let draft = drafts.get(k);
  if (!draft) {
    draft = new AttachmentDraft();
    drafts.set(k, draft);
  }
  return draft;
}

/** A new chat became conversation `to`: its attachments go with it. */
export function moveAttachmentDraft(from: string, to: string) {
  const draft = drafts.get(from);
  if (!draft) return;
  drafts.delete(from);
  drafts.set(to, draft);
}

// ---------------------------------------------------------------------------------------
// Thumbnails

/** Thumbnails kept at most (data URLs of images downscaled to at most 1568 px). */
const MAX_THUMBNAILS = 200;

class Thumbnails {
  /** URL by hash; null = the image could not be loaded. */
  private urls: Record<string, string | null> = $state({});
  private loading = new Set<string>();
  /** Insertion order, for forgetting the oldest. */
  private order: string[] = [];

  /** The thumbnail of `hash` (null while loading or when it failed). */
  url(hash: string): string | null {
    return this.urls[hash] ?? null;
  }

  state(hash: string): 'loading' | 'failed' | 'ready' {
    const url = this.urls[hash];
    return url === undefined ? 'loading' : url === null ? 'failed' : 'ready';
  }

  /** Loads the thumbnail of `hash` once (call when it comes on screen). */
  load(hash: string) {
    if (this.urls[hash] !== undefined || this.loading.has(hash)) return;
    this.loading.add(hash);
    Promise.resolve()
      .then(() => attachmentImage(hash))
      .then((image) => this.set(hash, imageDataUrl(image)))
      .catch(() => this.set(hash, null))
      .finally(() => this.loading.delete(hash));
  }

  private set(hash: string, url: string | null) {
    if (!(hash in this.urls)) this.order.push(hash);
    this.urls[hash] = url;
    while (this.order.length > MAX_THUMBNAILS) {
      delete this.urls[this.order.shift()!];
    }
  }
}

export const thumbnails = new Thumbnails();
