import { describe, expect, it } from 'vitest';
import { formatCount } from './numbers';

describe('formatCount', () => {
  it('groups thousands with commas as en-US does', () => {
    expect(formatCount(0)).toBe('0');
    expect(formatCount(999)).toBe('999');
    expect(formatCount(1000)).toBe('1,000');
    expect(formatCount(32000)).toBe('32,000');
    expect(formatCount(1234567)).toBe('1,234,567');
    expect(formatCount(-4321)).toBe('-4,321');
  });

  it('prints what toLocaleString("en-US") prints for every kind of number the UI counts', () => {
    const values = [
      0, 1, 7, 12, 99, 100, 999, 1000, 1001, 9999, 10000, 65535, 100000, 999999, 1000000, 1048576,
      123456789, 2 ** 31, 2 ** 53 - 1, 1e15, 1e20, -1, -1000, -123456, 0.5, 1.5, 2.25, 1234.5678,
      0.0004, 0.0005, 12.3456, 1e-7, -0.4, -0, -0.0004, 976.5625, 31974.4,
    ];
    for (let i = 0; i < 2000; i++) values.push(Math.floor(Math.random() * 10 ** (1 + (i % 12))));
    for (let i = 0; i < 500; i++) values.push(Math.round(Math.random() * 10 ** (2 + (i % 6))) / 100);
    for (const v of values) expect(formatCount(v), String(v)).toBe(v.toLocaleString('en-US'));
  });

  it('leaves what is not a plain number to the platform', () => {
    expect(formatCount(Number.NaN)).toBe('NaN');
    expect(formatCount(Infinity)).toBe('∞');
    expect(formatCount(1e21)).toBe((1e21).toLocaleString('en-US'));
  });
});
