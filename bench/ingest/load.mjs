// Load generator (run as a separate process): sends pre-encoded OTLP batches to a receiver over
// loopback with a fixed concurrency and prints {spans, seconds, errors} as JSON.
// node load.mjs <url> <json|protobuf> <requests> <spans per request> <in flight> [runs|distinct]
// (the last: the signatures of the calls, see bodies.mjs). It sends as the
// OpenTelemetry JS OTLP/HTTP exporters do: node:http requests on a keep-alive agent (fetch cost
// this process three times the CPU per request, CPU the receiver shares on this 2-core machine).
import { Agent, request } from 'node:http';
import { buildBodies, contentTypeOf } from './bodies.mjs';

const [url, encoding, batchesText, sizeText, concurrencyText, signatures] = process.argv.slice(2);
const batches = Number(batchesText);
const size = Number(sizeText);
const concurrency = Number(concurrencyText);

const contentType = contentTypeOf(encoding);
// Every request carries spans of its own (new ids): see bodies.mjs.
const DISTINCT = batches;
const bodies = (await buildBodies(encoding, DISTINCT, size, { signatures })).map((b) =>
  Buffer.from(b),
);
const target = new URL(url);
const agent = new Agent({ keepAlive: true, maxSockets: concurrency });

/** POSTs a body; resolves with the response status once its body is read. */
function send(body) {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        agent,
        headers: { 'content-type': contentType, 'content-length': body.length },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

let next = 0;
let errors = 0;
const start = performance.now();
async function worker() {
  while (next < batches) {
    const body = bodies[next++ % DISTINCT];
    for (let attempt = 0; attempt < 50; attempt++) {
      const status = await send(body);
      if (status === 200) break;
      if (status !== 429 && status !== 503) {
        errors++;
        break;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}
await Promise.all(Array.from({ length: concurrency }, worker));
const seconds = (performance.now() - start) / 1000;
agent.destroy();
process.stdout.write(
  `${JSON.stringify({ spans: batches * size, seconds, errors, bytes: bodies[0].length })}\n`,
);
