import { describe, expect, it } from 'vitest';
import { render } from 'svelte/server';
import PricesSection from './PricesSection.svelte';

describe('Settings → Prices', () => {
  it('lists each priced model with its input and output price, and lets rows be added and removed', () => {
    const { body } = render(PricesSection, {
      props: { prices: { 'gpt-4o': { input: 2.5, output: 10 } }, problems: [] },
    });
    expect(body).toMatch(/<input[^>]*aria-label="Model id, row 1"[^>]*value="gpt-4o"/);
    expect(body).toMatch(/<input[^>]*aria-label="Input price of gpt-4o, USD per million tokens"[^>]*value="2.5"/);
    expect(body).toMatch(/<input[^>]*aria-label="Output price of gpt-4o, USD per million tokens"[^>]*value="10"/);
    expect(body).toContain('aria-label="Remove the price of gpt-4o"');
    expect(body).toContain('id="prices-add"');
  });

  it('says costs are not shown while the table is empty', () => {
    const { body } = render(PricesSection, { props: { prices: undefined, problems: [] } });
    expect(body).toContain('No prices yet');
    expect(body).not.toContain('id="prices-table"');
  });

  it('flags a price typed with letters, and shows the backend problem of a row', () => {
    const { body } = render(PricesSection, {
      props: {
        prices: { a: { input: '2x', output: 1 }, b: { input: 1, output: 1e9 } },
        problems: [{ field: 'prices.b.output', message: 'prices.b.output is too large' }],
      },
    });
    expect(body).toContain('“2x” is not a number');
    expect(body).toContain('Is too large');
    expect(body.match(/aria-invalid="true"/g)).toHaveLength(2);
  });
});
