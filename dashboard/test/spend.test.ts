import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { LoopSpend } from '../src/api/types.js';
import { createApp } from '../src/server/app.js';
import { loadPrices, parsePrices } from '../src/server/prices.js';
import { createChdbExecutor, createClickHouseStore } from '../src/store/clickhouse/index.js';
import type { Store } from '../src/store/index.js';
import { openDuckDbStore } from '../src/store/index.js';
import { makeToolSpan } from './span-fixtures.js';

const T = Date.UTC(2026, 0, 7, 12, 0, 0);
const usage = (step: string | undefined, input: number, output: number, cached = 0) => ({
  ...(step ? { 'loopguard.step.id': step } : {}),
  'gen_ai.usage.input_tokens': String(input),
  'gen_ai.usage.output_tokens': String(output),
  ...(cached ? { 'gen_ai.usage.cache_read.input_tokens': String(cached) } : {}),
  'gen_ai.request.model': 'gpt-x',
});
const spans = () => [
  // step s1: an allowed call, nothing flagged: not spent in loops
  makeToolSpan({ scope: 'r1', args: 'a', timeMs: T, attributes: usage('s1', 1000, 10) }),
  // step s2: two parallel calls of one step, both flagged: its tokens count once
  makeToolSpan({
    scope: 'r1',
    args: 'a',
    timeMs: T + 1,
    action: 'nudge',
    attributes: usage('s2', 2000, 100, 500),
  }),
  makeToolSpan({
    scope: 'r1',
    tool: 'read',
    args: 'b',
    timeMs: T + 1,
    action: 'warn',
    attributes: usage('s2', 2000, 100, 500),
  }),
  // no step id (older instrumentation): the call is its own step; response model only
  makeToolSpan({
    scope: 'r2',
    args: 'a',
    timeMs: T + 2,
    action: 'warn',
    attributes: {
      'gen_ai.usage.input_tokens': '300',
      'gen_ai.usage.output_tokens': '30',
      'gen_ai.response.model': 'other-model',
    },
  }),
  // flagged, no usage at all
  makeToolSpan({ scope: 'r2', args: 'a', timeMs: T + 3, action: 'block' }),
];

const dir = mkdtempSync(join(tmpdir(), 'loopguard-spend-'));
let opened = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('price tables', () => {
  it('reads JSON and YAML, cached_input optional, and refuses bad entries', () => {
    const json = join(dir, 'p.json');
    writeFileSync(json, JSON.stringify({ 'gpt-x': { input: 2, output: 8, cached_input: 0.5 } }));
    expect(loadPrices(json).get('gpt-x')).toEqual({ input: 2, output: 8, cachedInput: 0.5 });
    expect(parsePrices('m:\n  input: 1\n  output: 3\n').get('m')).toEqual({ input: 1, output: 3 });
    expect(() => parsePrices('m: { input: -1, output: 1 }')).toThrow(/m.input/);
    expect(() => parsePrices('[1]')).toThrow(/price table/);
    expect(() => loadPrices(join(dir, 'missing.json'))).toThrow(/cannot read/);
  });
});

describe.each([
  ['duckdb', () => openDuckDbStore({ path: join(dir, `spend-${++opened}.duckdb`) })],
  ['clickhouse (chdb)', () => createClickHouseStore({ executor: createChdbExecutor() })],
] as [string, () => Promise<Store>][])('spent in loops: %s', (_name, open) => {
  it('prices a gateway model id (provider/model) by its model when the table lacks it', async () => {
    const store = await open();
    try {
      const attributes = { ...usage('g1', 1000, 100), 'gen_ai.request.model': 'openai/gpt-x' };
      const gateway = { ...usage('g2', 10, 0), 'gen_ai.request.model': 'acme/gpt-x' };
      await store.insert([
        makeToolSpan({ scope: 'g', args: 'a', timeMs: T, action: 'warn', attributes }),
        makeToolSpan({ scope: 'g', args: 'b', timeMs: T + 1, action: 'warn', attributes: gateway }),
      ]);
      const prices = parsePrices(
        JSON.stringify({ 'gpt-x': { input: 2, output: 8 }, 'acme/gpt-x': { input: 1, output: 1 } }),
      );
      const app = createApp({ store, prices });
      const res = await app.request(`/api/spend?from=${T - 60_000}&to=${T + 60_000}`);
      const spend = (await res.json()) as LoopSpend;
      // openai/gpt-x priced as gpt-x; acme/gpt-x by its own entry
      expect(spend.total).toMatchObject({ steps: 2, unpricedSteps: 0 });
      expect(spend.total.usd).toBeCloseTo((1000 * 2 + 100 * 8 + 10 * 1) / 1e6, 12);
    } finally {
      await store.close();
    }
  });

  it('sums the tokens of flagged calls per hotspot, session and overall, each step once', async () => {
    const store = await open();
    try {
      await store.insert(spans());
      const prices = parsePrices(
        JSON.stringify({ 'gpt-x': { input: 2, output: 8, cached_input: 0.5 } }),
      );
      const app = createApp({ store, prices });
      const res = await app.request(`/api/spend?from=${T - 60_000}&to=${T + 60_000}`);
      const spend = (await res.json()) as LoopSpend;
      expect(spend.priced).toBe(true);
      // s2 once, the r2 warn, the r2 block (no tokens)
      const s2usd = (1500 * 2 + 500 * 0.5 + 100 * 8) / 1e6;
      expect(spend.total).toEqual({
        steps: 3,
        inputTokens: 2300,
        outputTokens: 130,
        cachedInputTokens: 500,
        usd: s2usd,
        unpricedSteps: 2,
      });
      const grepA = spend.hotspots.find((h) => h.tool === 'grep');
      // grep:a's flagged calls: the s2 nudge, the r2 warn and block
      expect(grepA).toMatchObject({ steps: 3, inputTokens: 2300, outputTokens: 130 });
      const read = spend.hotspots.find((h) => h.tool === 'read');
      expect(read).toMatchObject({ steps: 1, inputTokens: 2000, outputTokens: 100, usd: s2usd });
      expect(spend.sessions).toEqual([
        {
          scope: 'r1',
          steps: 1,
          inputTokens: 2000,
          outputTokens: 100,
          cachedInputTokens: 500,
          usd: s2usd,
          unpricedSteps: 0,
        },
        {
          scope: 'r2',
          steps: 2,
          inputTokens: 300,
          outputTokens: 30,
          cachedInputTokens: 0,
          usd: 0,
          unpricedSteps: 2,
        },
      ]);
      // one session, without prices: tokens only
      const one = (await store.spend({ from: T - 60_000, to: T + 60_000 }, { scope: 'r2' })).total;
      expect(one).toEqual({
        steps: 2,
        inputTokens: 300,
        outputTokens: 30,
        cachedInputTokens: 0,
        unpricedSteps: 2,
      });
    } finally {
      await store.close();
    }
  });
});
