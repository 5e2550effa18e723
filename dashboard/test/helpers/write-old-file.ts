// Writes the fixture of the migration test with another build's store (that of main before the
// delta tables, 57c90d9): the first OLD_FILE_SPANS of agentSpans in batches of 700; then prints
// the sha256 of its answers (answersDigest), read back after reopening the file with that build.
//   node --import tsx dashboard/test/helpers/write-old-file.ts <that build's dashboard/dist> <dir>
// writes <dir>/main-57c90d9.duckdb (gzip it into dashboard/test/fixtures/).
import { join } from 'node:path';
import type { Store } from '../../src/store/index.js';
import { agentSpans } from '../hotspot-fixtures.js';
import { answersDigest, storeAnswers } from './store-answers.js';

/** How many of agentSpans the old file holds; the test inserts the rest. */
export const OLD_FILE_SPANS = 900;

const [dist, dir] = process.argv.slice(2);
if (import.meta.url === `file://${process.argv[1]}`) {
  if (!dist || !dir) throw new Error('usage: write-old-file.ts <dashboard dist> <out dir>');
  const { openDuckDbStore } = (await import(join(dist, 'store/duckdb.js'))) as {
    openDuckDbStore: (o: { path: string }) => Promise<Store>;
  };
  const path = join(dir, 'main-57c90d9.duckdb');
  const writer = await openDuckDbStore({ path });
  const spans = agentSpans().slice(0, OLD_FILE_SPANS);
  for (let i = 0; i < spans.length; i += 700) await writer.insert(spans.slice(i, i + 700));
  await writer.close();
  const reader = await openDuckDbStore({ path });
  process.stdout.write(`${answersDigest(await storeAnswers(reader))}\n`);
  await reader.close();
}
