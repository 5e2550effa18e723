// The receiver's JavaScript per span, by part, in process: decoding a request (protobuf or JSON)
// built as bench/ingest's load generator builds it, deriving the typed fields and the batch's
// rollup and counter rows, staging the NDJSON lines, and the duplicate check's memory.
// node bench/ingest/receiver.mjs [--size 512] [--bodies 16] [--rounds 9] [--compare <dist>]
// --compare <another build's dashboard/dist>: each part of both builds, taking turns; --only <text>:
// the parts whose name holds it.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { measure, table } from '../lib.mjs';
import { buildBodies } from './bodies.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const SIZE = Number(arg('--size', 512));
const BODIES = Number(arg('--bodies', 16));
const ROUNDS = Number(arg('--rounds', 9));
const COMPARE = arg('--compare', undefined);
const ONLY = arg('--only', '');
const thisDist = dirname(dirname(createRequire(import.meta.url).resolve('@loopguard/dashboard')));

async function build(dist) {
  // a module by its path in this build, or (`before`) in builds before the store's folders
  const load = (path, before = path) =>
    import(pathToFileURL(`${dist}/${existsSync(`${dist}/${path}`) ? path : before}`).href);
  const write = (file, before) => load(`store/duckdb/write/${file}`, `store/${before}`);
  // one decoder for all requests, as the receiver keeps (builds before it: a module-wide table)
  const { ProtobufDecoder, decodeProtobufRequest: decodeOnce } = await load('otlp/protobuf.js');
  const decoder = ProtobufDecoder ? new ProtobufDecoder() : undefined;
  const decodeProtobufRequest = decoder ? (body) => decoder.decode(body) : decodeOnce;
  const { decodeJsonRequest } = await load('otlp/json.js');
  const { computeDeltas } = await write('deltas.js', 'counter-deltas.js');
  const { StageBytes, stageLine, stageSpans } = await write('stage.js', 'stage.js');
  // the staging file as bytes (StageBytes, JsonBytes before it) or, in builds before those, as
  // joined JSON.stringify lines
  const Bytes = StageBytes ?? (await write('json-bytes.js', 'json-bytes.js')).JsonBytes;
  const bytes = stageSpans ? new Bytes() : undefined;
  const stage = stageSpans
    ? (spans, fields) => {
        stageSpans(bytes, spans, fields);
        return bytes.pos;
      }
    : (spans, fields) => spans.map((s, i) => stageLine(s, fields[i])).join('\n').length;
  const { uniqueSpans } = await write('dedup.js', 'duckdb-dedup.js');
  const { RecentSpanKeys, batchKeys } = await write('recent-keys.js', 'recent-keys.js');
  return {
    decodeProtobufRequest,
    decodeJsonRequest,
    computeDeltas,
    stage,
    uniqueSpans,
    RecentSpanKeys,
    batchKeys,
  };
}

const proto = (await buildBodies('protobuf', BODIES, SIZE)).map((b) => Buffer.from(b));
const json = (await buildBodies('json', BODIES, SIZE)).map((b) => Buffer.from(b));
const builds = [await build(thisDist)];
if (COMPARE) builds.push(await build(COMPARE.replace(/\/$/, '')));

// results are summed into this and printed, so no timed work is dead code
let sink = 0;

/** The timed parts of one build: each runs `n` requests of SIZE spans. */
function parts(b) {
  const decoded = proto.map((body) => b.decodeProtobufRequest(body).spans);
  const derived = decoded.map((spans) => b.computeDeltas(spans).fields);
  let recent = new b.RecentSpanKeys(524_288, 0);
  let added = 0;
  const stage = b.stage;
  const dedup = (spans) => {
    if (b.uniqueSpans.length === 2) {
      // builds whose uniqueSpans takes the batch's keys, hashed once for it, the check and the add
      const { spans: unique, keys } = b.uniqueSpans(spans, b.batchKeys(spans));
      for (let i = 0; i < unique.length; i++) if (!recent.surelyNewAt(keys, i)) sink++;
      for (let i = 0; i < unique.length; i++) recent.addAt(keys, i);
      added += unique.length;
    } else {
      const unique = b.uniqueSpans(spans);
      added += unique.length;
      for (const s of unique) {
        const ms = Number(s.startTimeUnixNano / 1_000_000n);
        if (!recent.surelyNew(s.traceId, s.spanId, ms)) sink++;
      }
      for (const s of unique)
        recent.add(s.traceId, s.spanId, Number(s.startTimeUnixNano / 1_000_000n));
    }
    // a fresh memory now and then, so the bodies' keys are new to it as on the wire
    if (added >= 400_000) {
      recent = new b.RecentSpanKeys(524_288, 0);
      added = 0;
    }
  };
  return {
    'decode protobuf': (n) => {
      for (let i = 0; i < n; i++) sink += b.decodeProtobufRequest(proto[i % BODIES]).spans.length;
    },
    'decode JSON (JSON.parse included)': (n) => {
      for (let i = 0; i < n; i++)
        sink += b.decodeJsonRequest(JSON.parse(json[i % BODIES].toString('utf8'))).spans.length;
    },
    'fields, counters and rollups (computeDeltas)': (n) => {
      for (let i = 0; i < n; i++) sink += b.computeDeltas(decoded[i % BODIES]).fields.length;
    },
    'NDJSON staging file (not written)': (n) => {
      for (let i = 0; i < n; i++) sink += stage(decoded[i % BODIES], derived[i % BODIES]);
    },
    'duplicate check memory (uniqueSpans, surelyNew, add)': (n) => {
      for (let i = 0; i < n; i++) dedup(decoded[i % BODIES]);
    },
    'protobuf request in all (decode, deltas, stage, dedup)': (n) => {
      for (let i = 0; i < n; i++) {
        const spans = b.decodeProtobufRequest(proto[i % BODIES]).spans;
        const { fields } = b.computeDeltas(spans);
        sink += stage(spans, fields);
        dedup(spans);
      }
    },
  };
}

const perBuild = builds.map(parts);
const names = Object.keys(perBuild[0]).filter((name) => name.includes(ONLY));
const us = (ns) => (ns / SIZE / 1000).toFixed(2);
const rows = [];
for (const name of names) {
  const results = measure(
    perBuild.map((p) => p[name]),
    { iterations: Math.max(1, Math.round(2048 / SIZE) * 8), rounds: ROUNDS, warmup: 3 },
  );
  const row = [name, ...results.map(us)];
  if (results.length === 2) row.push(`${((results[0] / results[1] - 1) * 100).toFixed(0)}%`);
  rows.push(row);
}
console.log(`### Receiver JavaScript, µs per span (${SIZE}-span requests, median of ${ROUNDS})\n`);
console.log(table(['part', 'this build', ...(COMPARE ? ['--compare build', 'change'] : [])], rows));
console.log(`\n(checksum ${sink})`);
