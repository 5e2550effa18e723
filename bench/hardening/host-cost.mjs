// What a guarded call costs the host for large and strange arguments and results: each row times
// one call of a guarded tool (the built @loopguard/otel with a real SDK tracer provider exporting
// to memory, capture off and on) against the same call unguarded, and the peak RSS of the process
// that ran it (each row in a process of its own, stopped after 60 s).
// node bench/hardening/host-cost.mjs
import { spawnSync } from 'node:child_process';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { createGuard } from '@loopguard/otel';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { table } from '../lib.mjs';

const MiB = 1024 * 1024;
const exporter = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({
  spanProcessors: [new SimpleSpanProcessor(exporter)],
});
const engine = { env: {}, configFile: false, onDiagnostic: () => {} };
const guards = {
  off: createGuard({ tracerProvider, engine, capture: false }),
  on: createGuard({ tracerProvider, engine, capture: true }),
};

const deep = (n) => {
  let v = { leaf: 1 };
  for (let i = 0; i < n; i++) v = { v };
  return v;
};
const cases = [
  ['Buffer 4 MiB (result)', 'result', () => Buffer.alloc(4 * MiB, 7)],
  ['Buffer 64 MiB (result)', 'result', () => Buffer.alloc(64 * MiB, 7)],
  ['Uint8Array 2 MiB (result)', 'result', () => new Uint8Array(2 * MiB)],
  ['ArrayBuffer 16 MiB (result)', 'result', () => new ArrayBuffer(16 * MiB)],
  ['Blob 16 MiB (result)', 'result', () => new Blob([Buffer.alloc(16 * MiB)])],
  ['Node Readable (result)', 'result', () => Readable.from(['a', 'b'])],
  ['string 16 MiB (result)', 'result', () => 'x'.repeat(16 * MiB)],
  ['array of 1 M numbers (result)', 'result', () => Array.from({ length: MiB }, (_, i) => i)],
  ['Buffer 4 MiB (argument)', 'args', () => Buffer.alloc(4 * MiB, 7)],
  ['string 16 MiB (argument)', 'args', () => 'x'.repeat(16 * MiB)],
  ['array of 1 M numbers (argument)', 'args', () => Array.from({ length: MiB }, (_, i) => i)],
  ['object nested 10 000 deep (argument)', 'args', () => deep(10_000)],
];

const MiBs = (bytes) => `${(bytes / MiB).toFixed(0)} MiB`;
const only = process.argv.indexOf('--case');
if (only > 0) {
  const [name, where, make] = cases[Number(process.argv[only + 1])];
  const value = make();
  const fn = async (x) => (where === 'result' ? value : x && 'ok');
  const timeOf = async (call) => {
    const times = [];
    for (let i = 0; i < 3; i++) {
      globalThis.gc?.();
      const t = performance.now();
      await call();
      times.push(performance.now() - t);
    }
    return `${times.sort((a, b) => a - b)[1].toFixed(2)} ms`;
  };
  const row = [name, await timeOf(() => fn(value))];
  for (const capture of ['off', 'on']) {
    const tool = guards[capture].wrap('tool', fn, { argsOf: (x) => ({ x }) });
    row.push(await timeOf(() => tool(value)));
    exporter.reset();
  }
  row.push(MiBs(process.resourceUsage().maxRSS * 1024));
  process.stdout.write(`${JSON.stringify(row)}\n`);
} else {
  const rows = [];
  const script = fileURLToPath(import.meta.url);
  for (let i = 0; i < cases.length; i++) {
    const run = spawnSync(process.execPath, ['--expose-gc', script, '--case', String(i)], {
      encoding: 'utf8',
      timeout: 60_000,
      maxBuffer: 1024 * 1024,
    });
    const line = run.stdout.trim().split('\n').at(-1);
    if (run.status === 0 && line) rows.push(JSON.parse(line));
    else {
      const why =
        run.signal === 'SIGTERM'
          ? 'not done after 60 s'
          : /heap out of memory/.test(run.stderr)
            ? 'out of memory'
            : `exit ${run.status ?? run.signal}`;
      rows.push([cases[i][0], '', why, '', '']);
    }
    console.error(`host-cost: ${rows.at(-1).join(' | ')}`);
  }
  console.log('## bench/hardening: cost of one guarded call with large or strange values\n');
  console.log(
    table(['value', 'unguarded', 'guarded, capture off', 'guarded, capture on', 'peak RSS'], rows),
  );
}
