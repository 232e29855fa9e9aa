import { describe, expect, it } from 'vitest';
import { newPriceRow, parsePrice, priceRowProblems, pricesToRows, rowsToPrices, type PriceRow } from './prices';

const row = (model: string, input: string, output: string): PriceRow => ({ ...newPriceRow(model), input, output });

describe('prices ↔ rows', () => {
  it('shows the saved prices as rows, by model id', () => {
    const rows = pricesToRows({ 'gpt-4o': { input: 2.5, output: 10 }, 'claude-haiku': { input: 0.8, output: 4 } });
    expect(rows.map(({ model, input, output }) => [model, input, output])).toEqual([
      ['claude-haiku', '0.8', '4'],
      ['gpt-4o', '2.5', '10'],
    ]);
    expect(new Set(rows.map((r) => r.id)).size).toBe(2);
    expect(pricesToRows(undefined)).toEqual([]);
  });

  it('saves typed rows as numbers, trimming the model id, and round-trips', () => {
    const prices = rowsToPrices([row(' gpt-4o ', '2.5', '10'), row('mini', '0,15', '.6')]);
    expect(prices).toEqual({ 'gpt-4o': { input: 2.5, output: 10 }, mini: { input: 0.15, output: 0.6 } });
    expect(rowsToPrices(pricesToRows(prices))).toEqual(prices);
  });

  it('keeps a half-typed price as its text, so the document is refused rather than saved wrong', () => {
    expect(rowsToPrices([row('gpt-4o', '2.5x', '')])).toEqual({ 'gpt-4o': { input: '2.5x', output: '' } });
  });

  it('leaves out rows without a model id, and a repeated model id after the first', () => {
    expect(rowsToPrices([row('', '1', '2'), row('a', '1', '2'), row('a', '3', '4')])).toEqual({ a: { input: 1, output: 2 } });
  });
});

describe('parsePrice', () => {
  it('reads prices as typed, flagging letters and negative numbers', () => {
    expect(parsePrice('0')).toEqual({ ok: true, value: 0 });
    expect(parsePrice(' 2.50 ')).toEqual({ ok: true, value: 2.5 });
    expect(parsePrice('1,5')).toEqual({ ok: true, value: 1.5 });
    expect(parsePrice('2.5$')).toMatchObject({ ok: false, message: expect.stringContaining('not a number') });
    expect(parsePrice('-1')).toMatchObject({ ok: false, message: 'A price cannot be negative.' });
    expect(parsePrice('')).toMatchObject({ ok: false });
  });
});

describe('priceRowProblems', () => {
  it('flags a missing model id, a repeated one and bad prices, but not an empty new row', () => {
    const rows = [row('', '', ''), row('', '1', '2'), row('a', '1', '2'), row('a', 'x', '2')];
    const found = priceRowProblems(rows);
    expect(found.get(rows[0].id)).toEqual({ model: null, input: null, output: null });
    expect(found.get(rows[1].id)?.model).toContain('Enter the model id');
    expect(found.get(rows[2].id)).toEqual({ model: null, input: null, output: null });
    expect(found.get(rows[3].id)?.model).toContain('already has a price');
    expect(found.get(rows[3].id)?.input).toContain('not a number');
  });

  it("places the backend's problems on their row", () => {
    const rows = [row('gpt-4o', '1', '99999')];
    const found = priceRowProblems(rows, [{ field: 'prices.gpt-4o.output', message: 'Too large.' }]);
    expect(found.get(rows[0].id)).toEqual({ model: null, input: null, output: 'Too large.' });
  });
});
