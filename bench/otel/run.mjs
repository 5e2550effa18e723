// Cost of a guarded tool call (span + engine decision + metrics) against a bare OTel span
// around the same call, measured in the same run: node bench/otel/run.mjs
// --compare <dist>: also time the two loopguard rows on another build of @loopguard/otel (its
// dist/ copied where it resolves this package's dependencies, e.g. packages/otel/dist-before/),
// in the same rounds, interleaved with this build's rows; that build gets its own meter provider.
import { createRequire } from 'node:module';
import os from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createEngine } from '@loopguard/engine';
import { createGuard } from '@loopguard/otel';
import { context, SpanKind } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  InMemorySpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { table } from '../lib.mjs';

// sdk-metrics and the context manager come from @loopguard/otel's own dependencies.
const fromOtel = createRequire(createRequire(import.meta.url).resolve('@loopguard/otel'));
const {
  MeterProvider,
  PeriodicExportingMetricReader,
  InMemoryMetricExporter,
  AggregationTemporality,
} = fromOtel('@opentelemetry/sdk-metrics');
const { AsyncLocalStorageContextManager } = fromOtel('@opentelemetry/context-async-hooks');

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const compareIndex = process.argv.indexOf('--compare');
const COMPARE = compareIndex > 0 ? process.argv[compareIndex + 1] : undefined;

context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
const exporter = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({
  spanProcessors: [
    new BatchSpanProcessor(exporter, { maxQueueSize: 4096, scheduledDelayMillis: 50 }),
  ],
});
const tracer = tracerProvider.getTracer('bench');
const newMeterProvider = () =>
  new MeterProvider({
    readers: [
      new PeriodicExportingMetricReader({
        exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE),
        exportIntervalMillis: 60_000,
      }),
    ],
  });
const meterProvider = newMeterProvider();

// The tool: async, cheap, different result each time (no no-progress findings).
let served = 0;
const tool = async (args) => `hits for ${args.q}: ${++served}`;
// An unclassified tool name: the repetition axis covers it (idempotent tools such as `search` are
// left to the no-progress axis, and a result that changes every call never trips that).
const TOOL = 'lookup_orders';
// Two workloads. "new arguments": every call of a round has arguments the scope has not seen
// (an agent making progress: all allowed, each call hashes its arguments in full). "looping": 64
// argument sets in rotation, so from the fifth lap on every call is a repetition warning (a
// finding, a span event, a notice appended to the result, a decisions counter): checked below.
const argsFor = (i) => ({ q: `query ${i}`, limit: 10, path: '/src' });
const WORKLOADS = {
  'new arguments (allowed)': Array.from({ length: ITERATIONS }, (_, i) => argsFor(i)),
  'looping: 64 argument sets in rotation (warned)': Array.from({ length: 64 }, (_, i) =>
    argsFor(i),
  ),
};

// The default environment (process.env), as in an app: nudge thresholds are read from it at call time.
const engineOptions = { configFile: false, onDiagnostic: () => {} };
const guard = createGuard({ tracerProvider, meterProvider, engine: engineOptions });
const guardNoMetrics = createGuard({ tracerProvider, engine: engineOptions });
const engine = createEngine(engineOptions);
const other = COMPARE ? await import(pathToFileURL(resolve(COMPARE, 'index.js')).href) : undefined;
const otherMeterProvider = other ? newMeterProvider() : undefined;
const otherGuard = other?.createGuard({
  tracerProvider,
  meterProvider: otherMeterProvider,
  engine: engineOptions,
});
const otherGuardNoMetrics = other?.createGuard({ tracerProvider, engine: engineOptions });

// Each workload must do what its name says, or the table measures something else.
for (const [workload, args] of Object.entries(WORKLOADS)) {
  const check = createEngine(engineOptions);
  const actions = new Map();
  for (let i = 0; i < Math.min(ITERATIONS, 2_000); i++) {
    const a = args[i % args.length];
    check.beforeCall({ scope: 'check', tool: TOOL, args: a });
    const { action } = check.afterCall({ scope: 'check', tool: TOOL, args: a, result: `r${i}` });
    actions.set(action, (actions.get(action) ?? 0) + 1);
  }
  const warned = (actions.get('warn') ?? 0) / Math.min(ITERATIONS, 2_000);
  if (workload.includes('(warned)') ? warned < 0.8 : actions.size !== 1 || !actions.has('allow'))
    throw new Error(`workload "${workload}" gave ${JSON.stringify([...actions])}`);
}

const CONTRACT_MINIMUM =
  'contract minimum: bare span + the two histograms of contract section 3, no loopguard code';
const minimumMeterProvider = newMeterProvider();
const minimumMeter = minimumMeterProvider.getMeter('contract-minimum');
const minimumStreak = minimumMeter.createHistogram('loopguard.streak.length', {
  advice: { explicitBucketBoundaries: [1, 2, 3, 5, 8, 13, 21, 34] },
});
const minimumDuration = minimumMeter.createHistogram('gen_ai.execute_tool.duration', { unit: 's' });
const TOOL_ATTRIBUTES = Object.freeze({ 'gen_ai.tool.name': TOOL });

const variants = {
  'bare OTel span (baseline)': (args) =>
    tracer.startActiveSpan(
      `execute_tool ${TOOL}`,
      {
        kind: SpanKind.INTERNAL,
        attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': TOOL },
      },
      async (span) => {
        const result = await tool(args);
        span.end();
        return result;
      },
    ),
  'engine only (beforeCall + afterCall, no span)': async (args) => {
    engine.beforeCall({ scope: 'bench', tool: TOOL, args });
    const result = await tool(args);
    engine.afterCall({ scope: 'bench', tool: TOOL, args, result });
    return result;
  },
  'tool alone (no span, no engine)': (args) => tool(args),
  // Part of what the contract asks of every call, with no loopguard code: the two histograms
  // (contract section 3) recorded through the SDK, one value each per call. (Not even the args hash,
  // which a memo can spare a repeated call, nor the contract's span attributes.)
  [CONTRACT_MINIMUM]: (args) =>
    tracer.startActiveSpan(
      `execute_tool ${TOOL}`,
      {
        kind: SpanKind.INTERNAL,
        attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': TOOL },
      },
      async (span) => {
        const start = performance.now();
        const result = await tool(args);
        minimumStreak.record(1, TOOL_ATTRIBUTES);
        minimumDuration.record((performance.now() - start) / 1000, TOOL_ATTRIBUTES);
        span.end();
        return result;
      },
    ),
  'hand-written floor: bare span + engine + contract attributes, no metrics': (args) =>
    tracer.startActiveSpan(
      `execute_tool ${TOOL}`,
      {
        kind: SpanKind.INTERNAL,
        attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': TOOL },
      },
      async (span) => {
        const before = engine.beforeCall({ scope: 'bench', tool: TOOL, args });
        span.setAttributes({
          'loopguard.scope': 'bench',
          'loopguard.signature': before.signature,
          'loopguard.args_hash': before.argsHash,
        });
        const result = await tool(args);
        const after = engine.afterCall({ scope: 'bench', tool: TOOL, args, ok: true, result });
        span.setAttributes({
          'loopguard.streak': after.streak,
          'loopguard.count': after.count,
          'loopguard.action': after.action,
          'loopguard.outcome': 'ok',
        });
        span.end();
        return result;
      },
    ),
  'loopguard traceToolCall, no meter provider': (args) =>
    guardNoMetrics.traceToolCall({ tool: TOOL, args, scope: 'bench' }, () => tool(args)),
  'loopguard traceToolCall + metrics (full)': (args) =>
    guard.traceToolCall({ tool: TOOL, args, scope: 'bench' }, () => tool(args)),
};
// With --compare, each of this build's loopguard rows is followed by the other build's, so a pair
// runs back to back and its per-round ratio cancels most of the machine's drift.
const PAIRS = other
  ? [
      [
        'loopguard traceToolCall, no meter provider',
        '--compare build: traceToolCall, no meter provider',
        otherGuardNoMetrics,
      ],
      [
        'loopguard traceToolCall + metrics (full)',
        '--compare build: traceToolCall + metrics (full)',
        otherGuard,
      ],
    ]
  : [];
for (const [, name, otherGuard] of PAIRS) {
  variants[name] = (args) =>
    otherGuard.traceToolCall({ tool: TOOL, args, scope: 'bench' }, () => tool(args));
}

// CPU time (user + system) of this process per call: wall time is meaningless on a shared,
// overloaded machine, CPU time much less so. Both are printed.
async function round(fn, args) {
  const cpuStart = process.cpuUsage();
  const wallStart = process.hrtime.bigint();
  for (let i = 0; i < ITERATIONS; i++) {
    await fn(args[i % args.length]);
    // let the batch processor export, as it would between real tool calls
    if (i % 1000 === 999) await new Promise((resolve) => setImmediate(resolve));
  }
  const cpu = process.cpuUsage(cpuStart);
  const ns = {
    cpu: ((cpu.user + cpu.system) * 1000) / ITERATIONS,
    wall: Number(process.hrtime.bigint() - wallStart) / ITERATIONS,
  };
  await tracerProvider.forceFlush();
  exporter.reset();
  for (const g of [guard, guardNoMetrics, otherGuard, otherGuardNoMetrics])
    g?.engine.resetScope('bench');
  engine.resetScope('bench');
  return ns;
}

const names = Object.keys(variants).filter((name) => !PAIRS.some(([, other]) => other === name));
for (const [name, other] of PAIRS) names.splice(names.indexOf(name) + 1, 0, other);
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const pct = (value, base) => `${(((value - base) / base) * 100).toFixed(0)}%`;
console.log(
  `### @loopguard/otel: cost per tool call (median of ${ROUNDS} rounds × ${ITERATIONS} calls, node ${process.version}, load ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} CPUs)`,
);
for (const [workload, args] of Object.entries(WORKLOADS)) {
  const samples = new Map(names.map((name) => [name, []]));
  for (const name of names) await round(variants[name], args); // warm-up
  for (let r = 0; r < ROUNDS; r++) {
    // interleave variants so drift (GC, other processes) hits them alike, in the reverse order
    // every other round so no variant always follows the same one (the garbage it left behind)
    const order = r % 2 === 0 ? names : [...names].reverse();
    for (const name of order) samples.get(name).push(await round(variants[name], args));
  }
  const stat = (name, key) => median(samples.get(name).map((sample) => sample[key]));
  const baseline = { cpu: stat(names[0], 'cpu'), wall: stat(names[0], 'wall') };
  const rows = names.map((name) => {
    const cpu = stat(name, 'cpu');
    const wall = stat(name, 'wall');
    const first = name === names[0];
    return [
      name,
      cpu.toFixed(0),
      first ? '—' : pct(cpu, baseline.cpu),
      wall.toFixed(0),
      first ? '—' : pct(wall, baseline.wall),
    ];
  });
  console.log(`\n#### ${workload}\n`);
  console.log(
    table(
      ['variant', 'CPU ns/call', 'CPU vs bare span', 'wall ns/call', 'wall vs bare span'],
      rows,
    ),
  );
  if (PAIRS.length === 0) continue;
  // Per round, this build's CPU time over the other build's in the pair that ran back to back.
  const paired = PAIRS.map(([name, otherName]) => {
    const ratios = samples.get(name).map((sample, r) => sample.cpu / samples.get(otherName)[r].cpu);
    const sorted = [...ratios].sort((a, b) => a - b);
    const q = (f) => pct(sorted[Math.floor(f * (sorted.length - 1))], 1);
    return [
      name,
      pct(median(ratios), 1),
      `${q(0.25)} to ${q(0.75)}`,
      `${ratios.filter((ratio) => ratio < 1).length} of ${ratios.length}`,
    ];
  });
  console.log(
    `\n${table(['this build vs --compare build (CPU, per round)', 'median', 'quartiles', 'rounds this build was faster'], paired)}`,
  );
}
console.log(
  '\nTarget: loopguard adds at most 25% to the bare span. "engine only" is @loopguard/engine without any span, for the split. "contract minimum" is a part of what the contract asks of every call (its two histograms, one value each), without any loopguard code: a lower bound for any implementation.',
);
await meterProvider.shutdown();
await minimumMeterProvider.shutdown();
await otherMeterProvider?.shutdown();
await tracerProvider.shutdown();
