import { describe, expect, it, vi } from 'vitest';
import type { InspectView } from '../../lib/api/types';

const answers: { key: string; resolve: (v: InspectView) => void; reject: (e: unknown) => void }[] = [];
vi.mock('../../lib/api/commands', () => ({
  inspect: (key: string) => new Promise((resolve, reject) => answers.push({ key, resolve, reject })),
}));

const { ContextMeter } = await import('./contextMeter.svelte');

const view = (total: number) => ({ totalTokens: total }) as unknown as InspectView;

describe("the composer's context meter", () => {
  it('keeps an answer only for the conversation still open, and its last value when asking fails', async () => {
    const meter = new ContextMeter();
    let open = 'a';
    const first = meter.refresh('a', () => open === 'a');
    answers[0].resolve(view(100));
    await first;
    expect(meter.view).toEqual(view(100));

    // The user moved on before the answer came: dropped.
    const late = meter.refresh('a', () => open === 'a');
    open = 'b';
    answers[1].resolve(view(200));
    await late;
    expect(meter.view).toEqual(view(100));

    // Asking failed: the meter keeps what it showed.
    open = 'a';
    const failed = meter.refresh('a', () => open === 'a');
    answers[2].reject(new Error('database busy'));
    await failed;
    expect(meter.view).toEqual(view(100));

    meter.memoryChanged = true;
    meter.clear();
    expect([meter.view, meter.memoryChanged]).toEqual([null, false]);
  });
});
