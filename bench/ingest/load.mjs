// Load generator (run as a separate process): sends pre-encoded OTLP batches to a receiver over
// loopback with a fixed concurrency and prints {spans, seconds, errors} as JSON.
import { buildBodies, contentTypeOf } from './bodies.mjs';

const [url, encoding, batchesText, sizeText, concurrencyText] = process.argv.slice(2);
const batches = Number(batchesText);
const size = Number(sizeText);
const concurrency = Number(concurrencyText);

const contentType = contentTypeOf(encoding);
// Every request carries spans of its own (new ids): see bodies.mjs.
const DISTINCT = batches;
const bodies = await buildBodies(encoding, DISTINCT, size);

let next = 0;
let errors = 0;
const start = performance.now();
async function worker() {
  while (next < batches) {
    const body = bodies[next++ % DISTINCT];
    for (let attempt = 0; attempt < 50; attempt++) {
      const res = await fetch(url, {
        method: 'POST',
        body,
        headers: { 'content-type': contentType },
      });
      await res.arrayBuffer();
      if (res.status === 200) break;
      if (res.status !== 429 && res.status !== 503) {
        errors++;
        break;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}
await Promise.all(Array.from({ length: concurrency }, worker));
const seconds = (performance.now() - start) / 1000;
process.stdout.write(
  `${JSON.stringify({ spans: batches * size, seconds, errors, bytes: bodies[0].length })}\n`,
);
