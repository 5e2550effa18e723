// Writes the fixture of the shadow migration test with another build's store (main at 20c8983,
// the schema before the finding and shadow columns): SHADOW_FILE_SPANS in two batches.
//   node --import tsx dashboard/test/helpers/shadow-file.ts <that build's dashboard/dist> <dir>
// writes <dir>/main-20c8983-shadow.duckdb (gzip it into dashboard/test/fixtures/).
import { join } from 'node:path';
import type { SpanRecord } from '../../src/otlp/span.js';
import type { Store } from '../../src/store/index.js';
import { makeToolSpan } from '../span-fixtures.js';

/** 2026-01-01T00:00:00Z, as store-seed's T0. */
const T0 = Date.UTC(2026, 0, 1);
const HOUR = 3_600_000;
const SHADOW = { 'loopguard.shadow': 'true' };

/**
 * Enforced and shadow runs over five hours: a warn then a block (one finding each), and calls with
 * two or three findings (a nudge beside a block and its halt), every kind both ways.
 */
export function shadowFileSpans(): SpanRecord[] {
  const spans: SpanRecord[] = [];
  for (const shadow of [false, true]) {
    const attributes = shadow ? SHADOW : {};
    for (let hour = 0; hour < 5; hour++) {
      const scope = `${shadow ? 'shadow' : 'live'}-${hour}`;
      const at = T0 + hour * HOUR + (shadow ? 20 : 10) * 60_000;
      spans.push(
        makeToolSpan({ scope, tool: 'deploy', args: 'prod', timeMs: at, attributes }),
        makeToolSpan({
          scope,
          tool: 'deploy',
          args: 'prod',
          streak: 2,
          count: 2,
          timeMs: at + 1000,
          action: 'warn',
          axis: 'exact_failure',
          outcome: 'error',
          attributes,
        }),
        makeToolSpan({
          scope,
          tool: 'grep',
          args: 'x',
          timeMs: at + 2000,
          action: hour % 2 === 0 ? 'block' : 'nudge',
          axis: 'repetition',
          findings:
            hour % 2 === 0
              ? [
                  { action: 'nudge', axis: 'streak' },
                  { action: 'block', axis: 'repetition' },
                  { action: 'halt', axis: 'repetition' },
                ]
              : [{ action: 'nudge', axis: 'streak' }],
          attributes,
        }),
      );
    }
  }
  return spans;
}

const [dist, dir] = process.argv.slice(2);
if (import.meta.url === `file://${process.argv[1]}`) {
  if (!dist || !dir) throw new Error('usage: shadow-file.ts <dashboard dist> <out dir>');
  const { openDuckDbStore } = (await import(join(dist, 'store/duckdb/index.js'))) as {
    openDuckDbStore: (o: { path: string }) => Promise<Store>;
  };
  const store = await openDuckDbStore({ path: join(dir, 'main-20c8983-shadow.duckdb') });
  const spans = shadowFileSpans();
  await store.insert(spans.slice(0, 12));
  await store.insert(spans.slice(12));
  await store.close();
}
