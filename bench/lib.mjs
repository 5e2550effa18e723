// Shared helpers for the benchmarks: timing rounds and markdown tables.

/** Runs fn(iterations) for several rounds and returns the median nanoseconds per iteration. */
export function measure(fn, { iterations = 100_000, rounds = 7, warmup = 2 } = {}) {
  for (let i = 0; i < warmup; i++) fn(iterations);
  const samples = [];
  for (let r = 0; r < rounds; r++) {
    const start = process.hrtime.bigint();
    fn(iterations);
    samples.push(Number(process.hrtime.bigint() - start) / iterations);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)];
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
