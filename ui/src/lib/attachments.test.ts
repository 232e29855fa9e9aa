import { describe, expect, it } from 'vitest';
import {
  admit,
  describeAttachment,
  dragHasFiles,
  filesOf,
  imageDataUrl,
  isPreviewableImage,
  MAX_FILES,
  MAX_TOTAL_BYTES,
  namePasted,
  pastedFiles,
  readBytes,
  refuseStrayDrops,
  tokenText,
  totalTokens,
  type TransferItemLike,
  type TransferLike,
} from './attachments';

const file = (name: string, type = 'text/plain', body = 'hello') => new File([body], name, { type });

const item = (f: File | null, opts: { kind?: string; dir?: boolean } = {}): TransferItemLike => ({
  kind: opts.kind ?? 'file',
  getAsFile: () => f,
  webkitGetAsEntry: () => ({ isDirectory: !!opts.dir }),
});

function transfer(items: TransferItemLike[], data: Record<string, string> = {}, files: File[] = []): TransferLike {
  const types = [...Object.keys(data), ...(items.some((i) => i.kind === 'file') || files.length ? ['Files'] : [])];
  return { types, items, files, getData: (format) => data[format] ?? '' };
}

describe('tokenText', () => {
  it('says about how many tokens, with thousands separators', () => {
    expect(tokenText(1234)).toBe('~1,234 tokens');
    expect(tokenText(1)).toBe('~1 token');
    expect(tokenText(0)).toBe('~0 tokens');
    expect(tokenText(12.6)).toBe('~13 tokens');
  });
});

describe('describeAttachment', () => {
  it('names the file, its size and its tokens', () => {
    expect(describeAttachment({ name: 'notes.md', size: 2048, tokenCount: 1500 })).toBe('notes.md, 2.0 KB, ~1,500 tokens');
  });
});

describe('images', () => {
  it('previews the four image types the models take, whatever the case', () => {
    expect(isPreviewableImage('image/png')).toBe(true);
    expect(isPreviewableImage('IMAGE/JPEG')).toBe(true);
    expect(isPreviewableImage('image/webp')).toBe(true);
    expect(isPreviewableImage('image/gif')).toBe(true);
    expect(isPreviewableImage('image/svg+xml')).toBe(false);
    expect(isPreviewableImage('')).toBe(false);
  });

  it('builds a data URL from the backend image', () => {
    expect(imageDataUrl({ mime: 'image/png', data: 'AAAA' })).toBe('data:image/png;base64,AAAA');
  });

  it('adds up tokens', () => {
    expect(totalTokens([{ tokenCount: 10 }, { tokenCount: 1500 }])).toBe(1510);
    expect(totalTokens([])).toBe(0);
  });
});

describe('drops', () => {
  it('only counts drags that carry files', () => {
    expect(dragHasFiles({ types: ['Files'] })).toBe(true);
    expect(dragHasFiles({ types: ['text/plain', 'text/uri-list'] })).toBe(false);
    expect(dragHasFiles(null)).toBe(false);
  });

  it('takes the files of a drop in order, leaving folders and strings out', () => {
    const a = file('a.txt');
    const b = file('b.png', 'image/png');
    const dt = transfer([item(a), item(null, { kind: 'string' }), item(file('folder', ''), { dir: true }), item(b)]);
    expect(filesOf(dt).map((f) => f.name)).toEqual(['a.txt', 'b.png']);
  });

  it('drops nothing when only folders were dropped', () => {
    const folder = file('photos', '');
    expect(filesOf(transfer([item(folder, { dir: true })], {}, [folder]))).toEqual([]);
  });

  it('falls back to the file list when the items give none', () => {
    const a = file('a.txt');
    expect(filesOf({ types: ['Files'], items: [], files: [a] })).toEqual([a]);
    expect(filesOf(null)).toEqual([]);
  });
});

describe('pastes', () => {
  it('attaches a pasted screenshot, naming it when the clipboard gave no name', () => {
    const shot = new File(['png'], '', { type: 'image/png' });
    const files = pastedFiles(transfer([item(shot)]));
    expect(files).toHaveLength(1);
    expect(files[0].name).toBe('pasted-image.png');
    expect(files[0].type).toBe('image/png');
  });

  it('keeps the name of a pasted file', () => {
    const named = file('report.pdf', 'application/pdf');
    expect(pastedFiles(transfer([item(named)]))).toEqual([named]);
  });

  it('leaves a text paste to the text box even when a picture of it comes along', () => {
    const picture = file('image.png', 'image/png');
    expect(pastedFiles(transfer([item(picture)], { 'text/plain': 'A1\tB1' }))).toEqual([]);
    // Blank text does not count as text.
    expect(pastedFiles(transfer([item(picture)], { 'text/plain': '  ' }))).toHaveLength(1);
  });

  it('pastes nothing from a text-only clipboard', () => {
    expect(pastedFiles(transfer([item(null, { kind: 'string' })], { 'text/plain': 'hi' }))).toEqual([]);
    expect(pastedFiles(null)).toEqual([]);
  });

  it('names an unnamed non-image by its type', () => {
    expect(namePasted(new File(['x'], '', { type: 'application/pdf' })).name).toBe('pasted-file.pdf');
    expect(namePasted(new File(['x'], '', { type: 'application/x-unknown' })).name).toBe('pasted-file');
  });
});

describe('admit', () => {
  it('accepts files within the caps', () => {
    const files = [file('a.txt'), file('b.txt')];
    expect(admit(files, 0, 0)).toEqual({ accepted: files, refused: [] });
  });

  it('refuses files past the file count, naming them', () => {
    const files = [file('19.txt'), file('20.txt'), file('21.txt')];
    const { accepted, refused } = admit(files, MAX_FILES - 2, 0);
    expect(accepted.map((f) => f.name)).toEqual(['19.txt', '20.txt']);
    expect(refused).toEqual([
      { name: '21.txt', message: '“21.txt” was not attached: a message can carry at most 20 files.' },
    ]);
  });

  it('refuses a file that would take the total past the size cap, but not the smaller ones after it', () => {
    const big = { name: 'big.pdf', size: 40 * 1024 * 1024 } as File;
    const small = { name: 'small.txt', size: 10 } as File;
    const { accepted, refused } = admit([big, small], 1, 30 * 1024 * 1024);
    expect(accepted).toEqual([small]);
    expect(refused[0].message).toBe('“big.pdf” was not attached: the files of a message can total at most 64.0 MB.');
    expect(admit([{ name: 'x', size: MAX_TOTAL_BYTES } as File], 0, 0).accepted).toHaveLength(1);
  });
});

describe('readBytes', () => {
  it('reads the bytes of a file', async () => {
    expect(Array.from(await readBytes(new File([new Uint8Array([1, 2, 255])], 'b.bin')))).toEqual([1, 2, 255]);
  });
});

describe('refuseStrayDrops', () => {
  const dragEvent = (type: string, types: string[]) => {
    const event = new Event(type, { cancelable: true });
    Object.defineProperty(event, 'dataTransfer', { value: { types, dropEffect: 'copy' } });
    return event as Event & { dataTransfer: { dropEffect: string } };
  };

  it('keeps files dropped anywhere from opening in the window, and leaves text drags alone', () => {
    const target = new EventTarget();
    const stop = refuseStrayDrops(target);
    const over = dragEvent('dragover', ['Files']);
    target.dispatchEvent(over);
    expect(over.defaultPrevented).toBe(true);
    expect(over.dataTransfer.dropEffect).toBe('none');
    const drop = dragEvent('drop', ['Files']);
    target.dispatchEvent(drop);
    expect(drop.defaultPrevented).toBe(true);
    const text = dragEvent('drop', ['text/plain']);
    target.dispatchEvent(text);
    expect(text.defaultPrevented).toBe(false);

    stop();
    const after = dragEvent('drop', ['Files']);
    target.dispatchEvent(after);
    expect(after.defaultPrevented).toBe(false);
  });
});
