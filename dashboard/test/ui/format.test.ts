import { describe, expect, it } from 'vitest';
import {
  findingWhy,
  fmtArgs,
  fmtBucket,
  fmtCount,
  fmtPct,
  fmtSeconds,
  fmtShortTime,
  fmtTime,
} from '../../src/ui/format.js';

describe('fmtBucket', () => {
  it.each([
    [86_400_000, '1 d'],
    [3_600_000, '1 h'],
    [900_000, '15 min'],
    [10_000, '10 s'],
    [1000, '1 s'],
    [1500, '1.50 s'],
    [250, '250 ms'],
  ])('%i ms is "%s" (whole units without decimals)', (ms, text) => {
    expect(fmtBucket(ms)).toBe(text);
  });
});

describe('fmtPct', () => {
  it.each([
    [0, '0.0%'],
    [0.62, '62.0%'],
    [0.005, '0.50%'],
    [0.00005, '0.01%'],
    [0.00001, '<0.01%'],
    [1, '100.0%'],
  ])('%f is "%s" (a share that exists never reads as none)', (share, text) => {
    expect(fmtPct(share)).toBe(text);
  });

  it.each([
    [0.99999, '>99.9%'],
    [0.99951, '>99.9%'],
    [0.9994, '99.9%'],
  ])('%f is "%s" (one short of all never reads as all)', (share, text) => {
    expect(fmtPct(share)).toBe(text);
  });
});

describe('fmtCount', () => {
  it.each([
    [0, '0'],
    [987_654, '987,654'],
    [1_234_567, '1.2M'],
    [123_456_789_012, '123.5B'],
    [9_007_199_254_740_991, '9007.2T'],
  ])('%i is "%s" (short enough for a card)', (n, text) => {
    expect(fmtCount(n)).toBe(text);
  });
});

describe('fmtSeconds', () => {
  it.each([
    [0.85, '850 ms'],
    [2, '2.00 s'],
    [12.4, '12.4 s'],
    [200, '3 m 20 s'],
    [7500, '2 h 5 m'],
    [3 * 86_400 + 4 * 3600, '3 d 4 h'],
    [1e10, '115,740 d 18 h'],
  ])('%f s is "%s"', (s, text) => {
    expect(fmtSeconds(s)).toBe(text);
  });

  it.each([Number.NaN, Number.POSITIVE_INFINITY, null as unknown as number])(
    '%s is "–", never "NaN h NaN m"',
    (s) => {
      expect(fmtSeconds(s)).toBe('–');
    },
  );

  it.each([
    [0.9996, '1.00 s'],
    [9.996, '10.0 s'],
    [59.96, '1 m 0 s'],
    [119.6, '2 m 0 s'],
    [3599.7, '1 h 0 m'],
    [7199, '2 h 0 m'],
    [86_399, '1 d 0 h'],
  ])('%f s rounds into the next unit ("%s"), never "60 s" or "60 m"', (s, text) => {
    expect(fmtSeconds(s)).toBe(text);
  });
});

describe('fmtShortTime', () => {
  const at = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0) =>
    new Date(y, mo - 1, d, h, mi, s).getTime();
  const now = at(2026, 11, 30, 15, 0, 0);

  it('shows the clock for a time on the same day', () => {
    expect(fmtShortTime(at(2026, 11, 30, 9, 5, 7), now)).toBe('09:05:07');
  });
  it('shows month, day and minutes for another day of the same year', () => {
    expect(fmtShortTime(at(2026, 11, 29, 22, 45, 3), now)).toBe('11-29 22:45');
    expect(fmtShortTime(at(2026, 1, 2, 3, 4), now)).toBe('01-02 03:04');
  });
  it('shows only the date for another year', () => {
    expect(fmtShortTime(at(2025, 11, 30, 15), now)).toBe('2025-11-30');
  });
  it('is never longer than fmtTime and agrees with it', () => {
    for (const t of [at(2026, 11, 30, 1), at(2026, 6, 1, 12), at(2024, 2, 29)]) {
      const short = fmtShortTime(t, now);
      expect(short.length).toBeLessThan(fmtTime(t).length);
      expect(fmtTime(t).replace(/:\d\d$/, '')).toContain(short.replace(/:\d\d$/, ''));
    }
  });
});

describe('fmtArgs', () => {
  it('shows an object as its pairs, strings quoted, nesting elided', () => {
    expect(fmtArgs('{"pattern":"TODO","path":"src","depth":2}')).toBe(
      'pattern: "TODO", path: "src", depth: 2',
    );
    expect(fmtArgs('{"q":{"a":{"b":{"c":1}}},"l":[1,"x"]}')).toBe('q: {a: {b: {…}}}, l: [1, "x"]');
    expect(fmtArgs('[1,2]')).toBe('[1, 2]');
    expect(fmtArgs('"just text"')).toBe('"just text"');
  });

  it('redacts secret-looking keys and keeps text that is not JSON', () => {
    expect(fmtArgs('{"url":"https://x","apiKey":"sk-123","Authorization":"Bearer t"}')).toBe(
      'url: "https://x", apiKey: [REDACTED], Authorization: [REDACTED]',
    );
    expect(fmtArgs('not json\n  at all')).toBe('not json at all');
  });

  it('cuts long arguments to the limit with an ellipsis, by characters', () => {
    const out = fmtArgs(JSON.stringify({ text: 'é'.repeat(200) }), 20);
    expect([...out]).toHaveLength(20);
    expect(out.endsWith('…')).toBe(true);
    expect(out.startsWith('text: "éé')).toBe(true);
  });
});

describe('findingWhy', () => {
  it('says the axis, what it counted and the threshold', () => {
    expect(
      findingWhy('warn', {
        'loopguard.axis': 'no_progress',
        'loopguard.count': '4',
        'loopguard.threshold': '2',
      }),
    ).toBe('warn on no_progress: 4 calls returning the same result, threshold 2');
    expect(findingWhy('halt', { 'loopguard.axis': 'same_error', 'loopguard.count': '5' })).toBe(
      'halt on same_error: 5 failures of this tool with the same error',
    );
    expect(findingWhy('nudge', { 'loopguard.axis': 'new_axis' })).toBe('nudge on new_axis');
    expect(findingWhy('warn', {})).toBeUndefined();
  });
});
