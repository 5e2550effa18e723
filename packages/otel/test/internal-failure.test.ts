import { createEngine, type Engine } from '@loopguard/engine';
import { diag } from '@opentelemetry/api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGuard, guardTool } from '../src/index.js';
import { captureDiagWarnings, createTelemetry, type Telemetry } from './helpers/otel.js';

let telemetry: Telemetry;
let warnings: unknown[][];

beforeEach(() => {
  warnings = captureDiagWarnings();
});

afterEach(async () => {
  diag.disable();
  await telemetry?.shutdown();
});

function brokenEngine(where: 'beforeCall' | 'afterCall' | 'haltDecision'): Engine {
  const fail = () => {
    throw new Error(`engine ${where} exploded`);
  };
  const allow = (call: { tool: string; scope?: string }) => ({
    action: 'allow' as const,
    scope: call.scope ?? 'default',
    tool: call.tool,
    signature: `${call.tool}:0000000000000000`,
    argsHash: '0'.repeat(64),
    streak: 1,
    count: 1,
    findings: [],
  });
  return {
    beforeCall: where === 'beforeCall' ? fail : allow,
    afterCall: where === 'afterCall' ? fail : allow,
    haltDecision: where === 'haltDecision' ? fail : () => undefined,
    cancelCall: () => {},
    withdrawCall: () => {},
    resetScope: () => {},
    scopeCount: () => 0,
    config: undefined as unknown as Engine['config'],
  };
}

describe('internal failures never reach the host', () => {
  for (const where of ['beforeCall', 'afterCall', 'haltDecision'] as const) {
    it(`a throwing ${where} runs the tool exactly once, returns its result and warns once`, async () => {
      telemetry = createTelemetry();
      const guard = createGuard({
        engine: brokenEngine(where),
        tracerProvider: telemetry.tracerProvider,
        meterProvider: telemetry.meterProvider,
      });
      let runs = 0;
      const result = { rows: [1, 2] };
      const tool = guardTool(
        'query',
        (sql: string) => {
          runs++;
          return sql === 'select' ? result : null;
        },
        { guard },
      );
      expect(await tool('select')).toBe(result);
      expect(await tool('select')).toBe(result);
      expect(runs).toBe(2);
      const failure = new RangeError('tool failed');
      const failing = guard.wrap('query', () => {
        throw failure;
      });
      await expect(failing()).rejects.toBe(failure);
      expect(warnings).toHaveLength(1);
      expect(String(warnings[0]?.[0])).toContain('loopguard');
      expect(String(warnings[0]?.[1])).toContain(`engine ${where} exploded`);
      // every call has its span: one that failed before the engine decided has what was known
      const spans = telemetry.spans();
      expect(spans.map((s) => s.name)).toEqual(Array(3).fill('execute_tool query'));
      if (where !== 'afterCall') {
        expect(spans.map((s) => s.attributes['loopguard.outcome'])).toEqual(['ok', 'ok', 'error']);
        expect(spans[2]?.attributes['error.type']).toBe('RangeError');
        expect(spans.every((s) => s.attributes['loopguard.signature'] === undefined)).toBe(true);
      }
    });
  }

  it('arguments that cannot be read give the call its result and a span', async () => {
    telemetry = createTelemetry();
    const guard = createGuard({
      engine: { env: {}, configFile: false },
      tracerProvider: telemetry.tracerProvider,
    });
    const hostile = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error('no keys for you');
        },
      },
    );
    const read = guard.wrap('read', async (_args: object) => 'contents', { argsOf: (a) => a });
    expect(await read(hostile)).toBe('contents');
    const [span] = telemetry.spans();
    expect(span?.name).toBe('execute_tool read');
    expect(span?.attributes['gen_ai.tool.name']).toBe('read');
    expect(span?.attributes['loopguard.outcome']).toBe('ok');
  });

  it('a broken result adapter falls back to the tool result', async () => {
    telemetry = createTelemetry();
    const guard = createGuard({
      engine: { env: {}, configFile: false, onDiagnostic: () => {} },
      tracerProvider: telemetry.tracerProvider,
    });
    const adapter = {
      blocked: () => 'blocked',
      appendNotice: (): string => {
        throw new Error('adapter exploded');
      },
    };
    const outputs: string[] = [];
    for (let i = 0; i < 3; i++) {
      outputs.push(
        await guard.traceToolCall({ tool: 'x', args: {}, scope: 's' }, () => `r${i}`, adapter),
      );
    }
    expect(outputs).toEqual(['r0', 'r1', 'r2']);
    expect(warnings).toHaveLength(1);
  });

  it('a failure after the engine admitted the call withdraws it from the engine', async () => {
    telemetry = createTelemetry();
    const engine = createEngine({ env: {}, configFile: false, onDiagnostic: () => {} });
    const cancelled: unknown[] = [];
    // the real engine, with its cancelCall observed
    const observed: Engine = {
      ...engine,
      cancelCall: (call) => {
        cancelled.push(call);
        engine.cancelCall(call);
      },
    };
    let redactions = 0;
    const guard = createGuard({
      engine: observed,
      tracerProvider: telemetry.tracerProvider,
      capture: {
        enabled: true,
        redact: (_key, value) => {
          if (redactions++ === 0) throw new Error('redact exploded');
          return value;
        },
      },
    });
    const args = { q: 'loop' };
    const first = await guard.traceToolCall({ tool: 'grep', args, scope: 's' }, () => 'hit');
    expect(first).toBe('hit');
    expect(cancelled).toEqual([{ scope: 's', tool: 'grep', args }]);
    expect(warnings).toHaveLength(1);
    expect(String(warnings[0]?.[1])).toContain('redact exploded');
    // the withdrawn attempt still counts for the streak, as cancelCall documents
    await guard.traceToolCall({ tool: 'grep', args, scope: 's' }, () => 'hit');
    const [bare, span] = telemetry.spans();
    // the failed attempt's span holds what was known before the failure
    expect(bare?.attributes['gen_ai.tool.name']).toBe('grep');
    expect(bare?.attributes['loopguard.outcome']).toBe('ok');
    expect(span?.attributes['loopguard.streak']).toBe(2);
    expect(cancelled).toHaveLength(1);
  });

  it('a result adapter failing before the engine saw the result withdraws the call too', async () => {
    telemetry = createTelemetry();
    const guard = createGuard({
      engine: { env: {}, configFile: false, onDiagnostic: () => {} },
      tracerProvider: telemetry.tracerProvider,
    });
    let checks = 0;
    const adapter = {
      blocked: () => 'blocked',
      appendNotice: (result: string) => result,
      isError: (): boolean => {
        if (checks++ === 0) throw new Error('isError exploded');
        return false;
      },
    };
    // arguments as the JSON text a model sends: equal strings, one attempt after another
    const args = '{"q":"loop"}';
    for (let i = 0; i < 3; i++) {
      expect(
        await guard.traceToolCall({ tool: 'grep', args, scope: 's' }, () => 'hit', adapter),
      ).toBe('hit');
    }
    expect(warnings).toHaveLength(1);
    // the failed call's span ended without loopguard attributes; the others carry their own attempt
    const streaks = telemetry.spans().map((span) => span.attributes['loopguard.streak']);
    expect(streaks).toEqual([undefined, 2, 3]);
  });

  it("an adapter's isControlFlow that throws leaves the tool's error a failure, re-thrown as it was", async () => {
    telemetry = createTelemetry();
    const guard = createGuard({
      engine: { env: {}, configFile: false, onDiagnostic: () => {} },
      tracerProvider: telemetry.tracerProvider,
    });
    const adapter = {
      blocked: () => 'blocked',
      appendNotice: (result: string) => result,
      isControlFlow: (): boolean => {
        throw new Error('isControlFlow exploded');
      },
    };
    const failure = new RangeError('tool failed');
    const run = (): string => {
      throw failure;
    };
    await expect(guard.traceToolCall({ tool: 'x', scope: 's' }, run, adapter)).rejects.toBe(
      failure,
    );
    expect(warnings).toHaveLength(1);
    expect(String(warnings[0]?.[1])).toContain('isControlFlow exploded');
    expect(telemetry.spans()[0]?.attributes['error.type']).toBe('RangeError');
  });
});
