import { describe, expect, it } from 'vitest';
import { FLANK_MARK, flankCjkEmphasis } from './cjkEmphasis';

const M = FLANK_MARK;

describe('bold and italics next to Chinese, Japanese and Korean', () => {
  it('a run between punctuation and such a character gets the marker on the punctuation side', () => {
    expect(flankCjkEmphasis('**注意：**请先安装')).toBe(`**注意：${M}**请先安装`);
    expect(flankCjkEmphasis('前面**“引用”**后面')).toBe(`前面**${M}“引用”${M}**后面`);
    expect(flankCjkEmphasis('*斜体。*文字')).toBe(`*斜体。${M}*文字`);
    expect(flankCjkEmphasis('**주의:**설치')).toBe(`**주의:${M}**설치`);
  });

  it('leaves every other text as it is', () => {
    for (const text of ['English **bold:**text', '这是**重要**的', 'a * b = c', '**注意：** 请', '没有星号']) {
      expect(flankCjkEmphasis(text)).toBe(text);
    }
  });
});
