import { describe, expect, it } from 'vitest';
import { offsetText, traceStart } from '../../src/ui/trace-offsets.js';

describe('trace offsets', () => {
  it('have no start for a trace without spans (not Infinity)', () => {
    expect(traceStart([])).toBeUndefined();
    expect(offsetText(1_700_000_000_000, traceStart([]))).toBe('');
  });

  it('count from the earliest span', () => {
    const spans = [{ start: 1_700_000_001_200 }, { start: 1_700_000_000_000 }];
    const t0 = traceStart(spans);
    expect(t0).toBe(1_700_000_000_000);
    expect(spans.map((s) => offsetText(s.start, t0))).toEqual(['+1.20 s', '+0 ms']);
  });

  it('leave out a span without a start instead of shifting the others by decades', () => {
    // JSON null where a start should be: Math.min took it as 0 (1970)
    const spans = [{ start: null as unknown as number }, { start: 1_700_000_000_500 }];
    const t0 = traceStart(spans);
    expect(t0).toBe(1_700_000_000_500);
    expect(spans.map((s) => offsetText(s.start, t0))).toEqual(['', '+0 ms']);
    expect(offsetText(Number.NaN, t0)).toBe('');
  });
});
