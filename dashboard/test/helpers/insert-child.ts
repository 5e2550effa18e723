// Child process for the crash tests: inserts the first <n> agent spans into a DuckDB store in
// batches of 400 (compacting when idle for <idle ms>), waits <sleep ms>, prints `committed`, then
// waits to be killed (no close, which would compact).
import { openDuckDbStore } from '../../src/store/index.js';
import { agentSpans } from '../hotspot-fixtures.js';

const [path, count, idle, sleep] = process.argv.slice(2);
if (!path || !count || !idle || !sleep) {
  throw new Error('usage: insert-child.ts <db file> <spans> <idle ms> <sleep ms>');
}
const store = await openDuckDbStore({ path, compactWhenIdleMs: Number(idle) });
const spans = agentSpans().slice(0, Number(count));
for (let i = 0; i < spans.length; i += 400) await store.insert(spans.slice(i, i + 400));
await new Promise((resolve) => setTimeout(resolve, Number(sleep)));
process.stdout.write('committed\n');
setInterval(() => undefined, 60_000);
