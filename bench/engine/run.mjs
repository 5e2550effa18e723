// bench/engine: cost of beforeCall + afterCall per tool call, against a naive baseline measured in
// the same run (json-stable-stringify + SHA-256 signature in both hooks), and bytes per live scope.
// Run: node --expose-gc bench/engine/run.mjs   (after pnpm run build)
// --compare <engine dist directory>: also times another build of the engine (its index.js), taking
// turns with this one round by round, for an A/B in one run.
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as thisEngine from '@loopguard/engine';
import stableStringify from 'json-stable-stringify';
import { measure, ns, table } from '../lib.mjs';

const { argsHash } = thisEngine;
const compareAt = process.argv.indexOf('--compare');
const compareDir = compareAt > 0 ? process.argv[compareAt + 1] : undefined;
if (compareAt > 0 && compareDir === undefined) throw new Error('--compare needs a dist directory');
const otherEngine =
  compareDir === undefined
    ? undefined
    : await import(pathToFileURL(resolve(compareDir, 'index.js')).href);

const small = { pattern: 'loadConfig', path: 'src', case_sensitive: false };
const large = {
  files: Array.from({ length: 50 }, (_, i) => ({
    path: `src/module-${i}/index.ts`,
    line: i * 7,
    flag: i % 2 === 0,
  })),
};
const result = 'src/config.ts:12: export function loadConfig()';

// Frameworks hand the engine a freshly parsed arguments object per call, so every iteration gets
// a distinct object (equal content): caches keyed on object identity cannot win here.
const COPIES = 1024;
const copiesOf = (args) =>
  Array.isArray(args) ? args : Array.from({ length: COPIES }, () => structuredClone(args));
// The same shape with 65 536 different contents, far more than the engine's memo of recent
// arguments spans, so every call computes its hash in full (an agent that never repeats itself).
const distinct = Array.from({ length: 65_536 }, (_, i) => ({
  ...small,
  pattern: `loadConfig${i}`,
}));

function engineLoop(args, agents = 1, { createEngine } = thisEngine) {
  const copies = copiesOf(args);
  const scopes = Array.from({ length: agents }, (_, i) => `agent-${i}`);
  // The default environment (process.env), as in an app: nudge thresholds are read from it at call time.
  const engine = createEngine({ configFile: false, onDiagnostic: () => {} });
  return (n) => {
    for (let i = 0; i < n; i++) {
      // Agents take turns, two calls each (one agent: every call in one scope).
      const scope = scopes[(i >> 1) % agents];
      // 2 alternating signatures in one scope: realistic mix of repeats and changes
      // Plain object literals, no spread: on this V8 `{ ...fresh, x }` costs microseconds.
      const tool = i & 1 ? 'grep' : 'read_file';
      // The same object in beforeCall and afterCall, as a framework passes one call's arguments.
      const args = copies[i & (copies.length - 1)];
      const before = engine.beforeCall({ scope, tool, args });
      if (before.action === 'block') continue;
      engine.afterCall({
        scope,
        tool,
        args,
        ok: true,
        result: i & 7 ? result : `${result}${i}`,
      });
    }
  };
}

function naiveLoop(args) {
  const sig = (tool, a) =>
    `${tool}:${createHash('sha256').update(stableStringify(a)).digest('hex').slice(0, 16)}`;
  const counts = new Map();
  const copies = copiesOf(args);
  return (n) => {
    for (let i = 0; i < n; i++) {
      const tool = i & 1 ? 'grep' : 'read_file';
      const args = copies[i & (copies.length - 1)];
      sig(tool, args); // before
      const s = sig(tool, args); // after
      counts.set(s, (counts.get(s) ?? 0) + 1);
    }
  };
}

function hashLoop(args) {
  const copies = copiesOf(args);
  return (n) => {
    for (let i = 0; i < n; i++) argsHash(copies[i & (copies.length - 1)]);
  };
}

function bytesPerScope(scopes) {
  if (typeof globalThis.gc !== 'function') return undefined;
  globalThis.gc();
  const engine = thisEngine.createEngine({
    configFile: false,
    env: {},
    scopes: { max: scopes * 2 },
    onDiagnostic: () => {},
  });
  globalThis.gc();
  const before = process.memoryUsage().heapUsed;
  for (let s = 0; s < scopes; s++) {
    for (let c = 0; c < 3; c++) {
      const call = { scope: `scope-${s}`, tool: c === 2 ? 'bash' : 'grep', args: { q: c } };
      engine.beforeCall(call);
      engine.afterCall({ scope: call.scope, tool: call.tool, args: call.args, result: 'r' });
    }
  }
  globalThis.gc();
  const used = process.memoryUsage().heapUsed - before;
  if (engine.scopeCount() !== scopes)
    throw new Error('scopes were evicted during the memory bench');
  return used / scopes;
}

const rows = [];
for (const [name, args, agents] of [
  ['small (3 keys)', small, 1],
  ['small, never the same content twice', distinct, 1],
  ['small, 5 000 agents taking turns', small, 5000],
  ['large (50-element array)', large, 1],
]) {
  const iterations = name.startsWith('large') ? 20_000 : 200_000;
  const loops = [engineLoop(args, agents), naiveLoop(args), hashLoop(args)];
  if (otherEngine) loops.push(engineLoop(args, agents, otherEngine));
  const [engineNs, naiveNs, hashNs, otherNs] = measure(loops, { iterations });
  const row = [name, ns(engineNs), ns(naiveNs), `${(naiveNs / engineNs).toFixed(2)}×`, ns(hashNs)];
  if (otherNs !== undefined)
    row.push(ns(otherNs), `${((engineNs / otherNs - 1) * 100).toFixed(0)}%`);
  rows.push(row);
}

console.log('### bench/engine: one tool call (beforeCall + afterCall)\n');
console.log(
  table(
    [
      'arguments',
      'loopguard engine',
      'baseline: naive signature ×2',
      'speed-up',
      'argsHash alone',
      ...(otherEngine ? ['--compare build', 'this build vs it'] : []),
    ],
    rows,
  ),
);
const perScope = bytesPerScope(100_000);
console.log(
  `\nMemory: ${perScope === undefined ? 'run with --expose-gc to measure' : `${Math.round(perScope)} bytes per live scope`} (100 000 scopes, 2 signatures and 3 calls each).`,
);
console.log(`Node ${process.version}, ${process.arch}.`);
