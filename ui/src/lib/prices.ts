/**
 * The price table of Settings (USD per million tokens, input and output, by model id): its
 * rows as typed and the settings document's `prices` object, both ways. A price is read as
 * text, so letters are flagged instead of dropped; a half-typed price goes into the document
 * as its text, which the backend refuses too, so it is never saved. Pure functions.
 */

import type { Problem, SettingsDocument } from './api/types';
import type { ParsedNumber } from './settingsInputs';
import { numberText } from './settingsInputs';
import { fieldMessage } from './settingsForm';

export type PricesDocument = NonNullable<SettingsDocument['prices']>;

/** One row of the table as typed. `id` keys the row on screen (not saved). */
export interface PriceRow {
  id: number;
  model: string;
  input: string;
  output: string;
}

let lastRowId = 0;

/** An empty row for "Add a price". */
export function newPriceRow(model = ''): PriceRow {
  return { id: ++lastRowId, model, input: '', output: '' };
}

/** The rows of a saved table, sorted by model id. */
export function pricesToRows(prices: PricesDocument | null | undefined): PriceRow[] {
  return Object.keys(prices ?? {})
    .sort((a, b) => a.localeCompare(b))
    .map((model) => {
      const price = prices![model] ?? { input: '', output: '' };
      return { ...newPriceRow(model), input: numberText(price.input), output: numberText(price.output) };
    });
}

/** A price in USD per million tokens: 0 or more (a comma is read as the decimal point). */
export function parsePrice(text: string): ParsedNumber {
  const t = text.trim().replace(',', '.');
  if (t === '') return { ok: false, message: 'Enter a price in USD per million tokens (0 if free).' };
  if (/^-(\d+\.?\d*|\.\d+)$/.test(t)) return { ok: false, message: 'A price cannot be negative.' };
  if (!/^(\d+\.?\d*|\.\d+)$/.test(t)) return { ok: false, message: `“${text.trim()}” is not a number: use digits, e.g. 2.5.` };
  return { ok: true, value: Number(t) };
}

const priceValue = (text: string): number | string => {
  const parsed = parsePrice(text);
  return parsed.ok ? parsed.value : text;
};

/**
 * The document's `prices` from the rows. Rows without a model id are left out (they are
 * flagged on screen); when a model id repeats, the first row counts.
 */
export function rowsToPrices(rows: readonly PriceRow[]): PricesDocument {
  const prices: PricesDocument = {};
  for (const row of rows) {
    const model = row.model.trim();
    if (!model || Object.hasOwn(prices, model)) continue;
    prices[model] = { input: priceValue(row.input), output: priceValue(row.output) };
  }
  return prices;
}

export interface RowProblems {
  model: string | null;
  input: string | null;
  output: string | null;
}

/**
 * What is wrong with each row as typed (by row id), before the backend sees it. An empty new
 * row is not a problem; the backend's own problems (`prices.<model>.input`) are added for the
 * fields whose text is fine.
 */
export function priceRowProblems(rows: readonly PriceRow[], problems: readonly Problem[] = []): Map<number, RowProblems> {
  const out = new Map<number, RowProblems>();
  const seen = new Set<string>();
  for (const row of rows) {
    const model = row.model.trim();
    const blank = !model && !row.input.trim() && !row.output.trim();
    const found: RowProblems = { model: null, input: null, output: null };
    if (!blank) {
      if (!model) found.model = 'Enter the model id, e.g. gpt-4o-mini.';
      else if (seen.has(model)) found.model = 'This model already has a price above; this row is not saved.';
      for (const side of ['input', 'output'] as const) {
        const parsed = parsePrice(row[side]);
        if (!parsed.ok) found[side] = parsed.message;
        else if (model) {
          const backend = problems.find((p) => p.field === `prices.${model}.${side}`);
          if (backend) found[side] = fieldMessage(backend);
        }
      }
      if (model && !found.model) {
        const backend = problems.find((p) => p.field === `prices.${model}`);
        if (backend) found.model = fieldMessage(backend);
      }
    }
    if (model) seen.add(model);
    out.set(row.id, found);
  }
  return out;
}
