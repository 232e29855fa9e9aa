/**
 * Counts as the UI shows them: "32,000 tokens", "1,234 matches" — what
 * `toLocaleString('en-US')` prints, without it. That call goes through ICU: the first one
 * in the page loads its number formatting (7–10 ms, measured in the window after a cold
 * start) and every later one builds a formatter, and the first conversation opened paid it
 * for its context meter.
 */

/** `n` with a comma between each group of three digits, as en-US writes it. */
export function formatCount(n: number): string {
  if (!Number.isFinite(n)) return n.toLocaleString('en-US');
  // As ECMA-402 does, a negative number rounded to zero keeps its sign ("-0").
  const negative = n < 0 || Object.is(n, -0);
  const abs = Math.abs(n);
  // en-US shows at most three decimals, rounded half away from zero ("halfExpand").
  const shown = Number.isInteger(abs) ? abs : Math.round(abs * 1000) / 1000;
  const [whole, fraction = ''] = shown.toString().split('.');
  if (whole.includes('e')) return n.toLocaleString('en-US'); // ≥ 1e21: printed in exponent form
  let grouped = '';
  for (let end = whole.length; end > 0; end -= 3) {
    const part = whole.slice(Math.max(0, end - 3), end);
    grouped = grouped ? `${part},${grouped}` : part;
  }
  const text = fraction ? `${grouped}.${fraction}` : grouped;
  return negative ? `-${text}` : text;
}
