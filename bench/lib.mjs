// Shared helpers for the benchmarks: timing rounds and markdown tables.

/**
 * Runs each fn(iterations) for several rounds, the functions taking turns within every round, and
 * returns the median nanoseconds per iteration of each. Taking turns matters on a shared machine
 * whose speed drifts between phases lasting seconds: every function sees the same phases.
 */
export function measure(fns, { iterations = 100_000, rounds = 9, warmup = 2 } = {}) {
  for (let i = 0; i < warmup; i++) for (const fn of fns) fn(iterations);
  const samples = fns.map(() => []);
  for (let r = 0; r < rounds; r++) {
    // in reverse order every other round, so that no function always runs first, or always right
    // after the same other one (and the garbage it left)
    const order = r % 2 === 0 ? fns.keys() : [...fns.keys()].reverse();
    for (const f of order) {
      const start = process.hrtime.bigint();
      fns[f](iterations);
      samples[f].push(Number(process.hrtime.bigint() - start) / iterations);
    }
  }
  return samples.map((list) => list.sort((a, b) => a - b)[Math.floor(list.length / 2)]);
}

/** A markdown table from a header and rows. */
export function table(header, rows) {
  const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`];
  for (const row of rows) lines.push(`| ${row.join(' | ')} |`);
  return lines.join('\n');
}

/** Formats nanoseconds for a table cell. */
export function ns(value) {
  return value >= 1000 ? `${(value / 1000).toFixed(2)} µs` : `${value.toFixed(0)} ns`;
}
