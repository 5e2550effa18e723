import { DataPointType } from '@opentelemetry/sdk-metrics';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { generateText, jsonSchema, stepCountIs, type ToolSet, tool } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { unlessRefused } from '../src/adapters/ai-sdk/approval.js';
import { patchAiSdk } from '../src/adapters/ai-sdk/index.js';
import { createGuard, type Guard, LoopHaltError } from '../src/index.js';
import {
  exporter,
  grepInput,
  guardWith,
  loopingModel,
  outputText,
  toolResultsSeen,
  toolSpans,
} from './adapters-ai-sdk-fixtures.js';
import { createTelemetry, type Telemetry } from './helpers/otel.js';

let telemetry: Telemetry | undefined;

afterEach(async () => {
  await telemetry?.shutdown();
  telemetry = undefined;
  exporter.reset();
});

const CALLS = 14;

function guardIn(mode: 'enforce' | 'shadow', env: Record<string, string> = {}): Guard {
  telemetry = createTelemetry();
  return createGuard({
    tracerProvider: telemetry.tracerProvider,
    meterProvider: telemetry.meterProvider,
    engine: {
      configFile: false,
      onDiagnostic: () => {},
      env,
      ...(mode === 'shadow' && Object.keys(env).length === 0 ? { mode } : {}),
      guardrails: { hardStop: true },
    },
  });
}

interface Got {
  /** What the host received from each call: the value, or the error's message. */
  received: string[];
  ran: number;
  spans: ReadableSpan[];
}

/** The same failing and succeeding calls, as a host makes them whatever it receives. */
async function drive(guard: Guard): Promise<Got> {
  const received: string[] = [];
  let ran = 0;
  for (let i = 0; i < CALLS; i++) {
    const failing = i % 2 === 0;
    try {
      const value = await guard.traceToolCall(
        { tool: failing ? 'deploy' : 'status', args: { env: 'prod' }, scope: 'run' },
        () => {
          ran += 1;
          if (failing) throw new Error(`deploy failed ${i}`);
          return `status ${i}`;
        },
      );
      received.push(String(value));
    } catch (error) {
      received.push(error instanceof LoopHaltError ? 'halt' : (error as Error).message);
    }
  }
  return { received, ran, spans: telemetry?.spans() ?? [] };
}

const decided = (spans: ReadableSpan[]) =>
  spans.map((s) => ({
    action: s.attributes['loopguard.action'],
    axis: s.attributes['loopguard.axis'],
    streak: s.attributes['loopguard.streak'],
    count: s.attributes['loopguard.count'],
    events: s.events.map((e) => e.name).filter((name) => name.startsWith('loopguard.')),
  }));

describe('shadow mode', () => {
  it('records the decisions of enforce mode, applies none, and marks every span', async () => {
    const enforced = await drive(guardIn('enforce'));
    for (const point of (await telemetry!.metrics()).get('loopguard.decisions')?.dataPoints ?? [])
      expect(point.attributes).not.toHaveProperty('loopguard.shadow');
    await telemetry?.shutdown();
    const shadowed = await drive(guardIn('shadow'));

    // enforce mode refused or halted some calls: the run exercises every stop
    const actions = new Set(decided(enforced.spans).map((d) => d.action));
    expect(actions).toContain('block');
    expect(enforced.ran).toBeLessThan(CALLS);
    expect(enforced.received.some((r) => r === 'halt' || r.startsWith('[loopguard]'))).toBe(true);

    // shadow mode: the same decisions, every call ran and returned exactly its own value or error
    expect(decided(shadowed.spans)).toEqual(decided(enforced.spans));
    expect(shadowed.ran).toBe(CALLS);
    expect(shadowed.received).toEqual(
      Array.from({ length: CALLS }, (_, i) => (i % 2 === 0 ? `deploy failed ${i}` : `status ${i}`)),
    );
    for (const span of shadowed.spans) {
      expect(span.attributes['loopguard.shadow']).toBe(true);
      expect(span.attributes['loopguard.outcome']).not.toBe('blocked');
      expect(span.attributes['error.type']).not.toBe('loopguard.blocked');
    }
    for (const span of enforced.spans) expect(span.attributes['loopguard.shadow']).toBeUndefined();
  });

  it('reads LOOPGUARD_MODE=shadow and labels the decision counters loopguard.shadow', async () => {
    const guard = guardIn('shadow', { LOOPGUARD_MODE: 'shadow' });
    expect(guard.engine.config.mode).toBe('shadow');
    const { ran } = await drive(guard);
    expect(ran).toBe(CALLS);
    const metrics = await telemetry!.metrics();
    for (const name of ['loopguard.tool.calls', 'loopguard.decisions']) {
      const metric = metrics.get(name);
      expect(metric?.dataPointType).toBe(DataPointType.SUM);
      const points = metric?.dataPoints ?? [];
      expect(points.length).toBeGreaterThan(0);
      for (const point of points) expect(point.attributes['loopguard.shadow']).toBe(true);
    }
    const stops = metrics
      .get('loopguard.decisions')
      ?.dataPoints.filter((p) => p.attributes['loopguard.action'] === 'block');
    expect(stops?.length).toBeGreaterThan(0);
  });
});

describe('shadow mode in a patched AI SDK run', () => {
  function patched(mode: 'enforce' | 'shadow') {
    const mod: Record<string, unknown> = { generateText };
    const guard = guardWith({
      engine: { configFile: false, env: {}, mode, guardrails: { hardStop: true } },
    });
    expect(patchAiSdk(mod, { guard })).toBe(true);
    const ran = { count: 0 };
    const tools = (): ToolSet => ({
      grep: tool({
        inputSchema: jsonSchema<{ pattern: string; path: string }>({ type: 'object' }),
        execute: async () => {
          ran.count += 1;
          return 'no match';
        },
      }),
    });
    return { ran, tools, generateText: mod.generateText as typeof generateText };
  }

  it('runs every step the model asks for; the model reads only the tool results', async () => {
    const enforce = patched('enforce');
    await expect(
      enforce.generateText({
        model: loopingModel('grep', grepInput, 20),
        prompt: 'find',
        tools: enforce.tools(),
        stopWhen: stepCountIs(30),
      }),
    ).rejects.toBeInstanceOf(LoopHaltError);
    const enforced = toolSpans('grep').map((s) => s.attributes['loopguard.action']);
    expect(enforced.at(-1)).toMatch(/^(block|halt)$/);
    exporter.reset();

    const sdk = patched('shadow');
    const model = loopingModel('grep', grepInput, 20);
    const result = await sdk.generateText({
      model,
      prompt: 'find',
      tools: sdk.tools(),
      stopWhen: stepCountIs(30),
    });
    expect(result.text).toBe('done');
    expect(sdk.ran.count).toBe(20);
    const seen = toolResultsSeen(model.doGenerateCalls);
    expect(seen.size).toBe(20);
    for (const output of seen.values()) expect(outputText(output)).toBe('no match');
    const spans = toolSpans('grep');
    expect(spans).toHaveLength(20);
    // the calls enforce mode made are decided alike; the later ones are shadow blocks of the halted run
    const shadowed = spans.map((s) => s.attributes['loopguard.action']);
    expect(shadowed.slice(0, enforced.length)).toEqual(enforced);
    for (const action of shadowed.slice(enforced.length)) expect(action).toMatch(/^(block|halt)$/);
    for (const span of spans) {
      expect(span.attributes['loopguard.shadow']).toBe(true);
      expect(span.attributes['loopguard.outcome']).toBe('ok');
    }
  });

  it('puts a call to a human for approval even when enforce mode would refuse it', async () => {
    const halted = async (mode: 'enforce' | 'shadow') => {
      const guard = guardWith({
        engine: { configFile: false, env: {}, mode, guardrails: { hardStop: true } },
        onHalt: 'return',
      });
      for (let i = 0; i < 12; i++)
        await guard
          .traceToolCall({ tool: 'rm', args: { path: '/' }, scope: 's' }, () => {
            throw new Error('denied');
          })
          .catch(() => undefined);
      expect(guard.engine.haltDecision('s')).toBeDefined();
      const original = tool({
        inputSchema: jsonSchema<{ path: string }>({ type: 'object' }),
        needsApproval: true,
        execute: async () => 'removed',
      });
      const policy = unlessRefused(
        'rm',
        original,
        () => guard,
        () => 's',
      );
      return (policy as (input: unknown, options: unknown) => Promise<boolean>)(
        { path: '/' },
        { toolCallId: 'c', messages: [] },
      );
    };
    await expect(halted('enforce')).resolves.toBe(false);
    await expect(halted('shadow')).resolves.toBe(true);
  });
});
