import { describe, expect, it } from 'vitest';
import { quietRepeats } from '../src/server/error-log.js';

/** A quietRepeats with a 60 s window on the clock `now`, printing into `lines`. */
function collecting(now: () => number = () => 0) {
  const lines: string[] = [];
  const report = quietRepeats((...args) => lines.push(args.map(String).join(' ')), 60_000, now);
  return { lines, report };
}

describe('quietRepeats', () => {
  it('prints a message once per window while it repeats, then counts what it held back', () => {
    let t = 0;
    const { lines, report } = collecting(() => t);
    const disk = new Error('IO Error: No space left on device');
    report(disk);
    for (let i = 0; i < 5; i++) {
      t += 1000;
      report(disk);
    }
    report(new Error('another failure'));
    expect(lines).toEqual([
      'loopguard dashboard: Error: IO Error: No space left on device',
      'loopguard dashboard: Error: another failure',
    ]);
    t = 61_000;
    report(disk);
    expect(lines[2]).toBe(
      'loopguard dashboard (and 5 more times since it was last printed): Error: IO Error: No space left on device',
    );
    t += 1000;
    report(disk);
    expect(lines).toHaveLength(3);
  });

  it('prints non-Error values and keeps its memory bounded', () => {
    const { lines, report } = collecting();
    for (let i = 0; i < 250; i++) report(`failure ${'x'.repeat(i)}`);
    expect(lines).toHaveLength(250);
    report(`failure ${'x'.repeat(249)}`);
    expect(lines).toHaveLength(250);
  });

  it('takes messages that differ only in their numbers for one', () => {
    const { lines, report } = collecting();
    report(new Error('Invalid Input Error: in file ".stage/batch-12.ndjson" line 3'));
    report(new Error('Invalid Input Error: in file ".stage/batch-13.ndjson" line 7'));
    expect(lines).toHaveLength(1);
  });
});
