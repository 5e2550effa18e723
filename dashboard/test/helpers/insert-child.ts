// Child process for the crash test: inserts the first <n> agent spans into a DuckDB store in
// batches of 400, prints `committed`, then waits to be killed (no close, so nothing is compacted).
import { openDuckDbStore } from '../../src/store/duckdb.js';
import { agentSpans } from '../hotspot-fixtures.js';

const [path, count] = process.argv.slice(2);
if (!path || !count) throw new Error('usage: insert-child.ts <db file> <spans>');
const store = await openDuckDbStore({ path });
const spans = agentSpans().slice(0, Number(count));
for (let i = 0; i < spans.length; i += 400) await store.insert(spans.slice(i, i + 400));
process.stdout.write('committed\n');
setInterval(() => undefined, 60_000);
