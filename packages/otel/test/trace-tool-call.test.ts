import { argsHash, signatureOf } from '@loopguard/engine';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { ExportResultCode } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { createGuard, type GuardOptions, LoopHaltError } from '../src/index.js';
import { createTelemetry, type Telemetry } from './helpers/otel.js';

let telemetry: Telemetry;

afterEach(async () => {
  await telemetry?.shutdown();
});

function setup(options: GuardOptions = {}) {
  telemetry = createTelemetry();
  return createGuard({
    tracerProvider: telemetry.tracerProvider,
    meterProvider: telemetry.meterProvider,
    ...options,
  });
}

const quiet = { env: {}, configFile: false as const, onDiagnostic: () => {} };

describe('traceToolCall', () => {
  it('records one execute_tool span per call with the contract attributes and nudges at 3, 5 and 8', async () => {
    const guard = setup({
      engine: { ...quiet, tools: { lookup_user: { kind: 'idempotent' } } },
      agentName: 'support-bot',
    });
    const args = { id: 42, fields: ['name'] };
    const results: string[] = [];
    for (let i = 1; i <= 9; i++) {
      results.push(
        await guard.traceToolCall(
          {
            tool: 'lookup_user',
            args,
            scope: 'run-1',
            callId: `call-${i}`,
            toolType: 'function',
            agentId: 'agent-7',
          },
          () => `user 42 (attempt ${i})`,
        ),
      );
    }
    const spans = telemetry.spans();
    expect(spans).toHaveLength(9);
    const nudged = [3, 5, 8];
    spans.forEach((span, index) => {
      const n = index + 1;
      expect(span.name).toBe('execute_tool lookup_user');
      expect(span.kind).toBe(SpanKind.INTERNAL);
      expect(span.attributes).toMatchObject({
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'lookup_user',
        'gen_ai.tool.call.id': `call-${n}`,
        'gen_ai.tool.type': 'function',
        'gen_ai.agent.name': 'support-bot',
        'gen_ai.agent.id': 'agent-7',
        'loopguard.signature': signatureOf('lookup_user', args),
        'loopguard.args_hash': argsHash(args),
        'loopguard.scope': 'run-1',
        'loopguard.streak': n,
        'loopguard.count': n,
        'loopguard.outcome': 'ok',
      });
      expect(span.attributes['gen_ai.tool.call.arguments']).toBeUndefined();
      const level = nudged.indexOf(n) + 1;
      if (level > 0) {
        expect(span.attributes['loopguard.action']).toBe('nudge');
        expect(span.attributes['loopguard.axis']).toBe('streak');
        expect(span.attributes['loopguard.nudge.level']).toBe(level);
        expect(span.events.map((e) => e.name)).toEqual(['loopguard.nudge']);
        expect(span.events[0]?.attributes).toMatchObject({
          'loopguard.axis': 'streak',
          'loopguard.threshold': n,
          'loopguard.count': n,
        });
        const message = span.events[0]?.attributes?.['loopguard.message'];
        expect(typeof message).toBe('string');
        expect(results[index]).toBe(`user 42 (attempt ${n})\n\n${message}`);
      } else {
        expect(span.attributes['loopguard.action']).toBe('allow');
        expect(span.attributes['loopguard.axis']).toBeUndefined();
        expect(span.attributes['loopguard.nudge.level']).toBeUndefined();
        expect(span.events).toHaveLength(0);
        expect(results[index]).toBe(`user 42 (attempt ${n})`);
      }
      expect(span.status.code).not.toBe(SpanStatusCode.ERROR);
    });
  });

  it('adds one event per finding, each with its own axis, threshold, count and message', async () => {
    const guard = setup({ engine: { ...quiet, tools: { lookup: { kind: 'idempotent' } } } });
    const results: string[] = [];
    // the same result three times: no_progress warns and the streak nudges, both at the 3rd
    for (let i = 0; i < 3; i++) {
      results.push(await guard.traceToolCall({ tool: 'lookup', args: { q: 1 } }, () => 'same'));
    }
    const third = telemetry.spans()[2];
    expect(third?.events.map((e) => [e.name, e.attributes?.['loopguard.axis']])).toEqual([
      ['loopguard.warn', 'no_progress'],
      ['loopguard.nudge', 'streak'],
    ]);
    expect(third?.events.map((e) => e.attributes?.['loopguard.threshold'])).toEqual([3, 3]);
    expect(third?.events.map((e) => e.attributes?.['loopguard.count'])).toEqual([3, 3]);
    const messages = third?.events.map((e) => e.attributes?.['loopguard.message']) ?? [];
    expect(new Set(messages).size).toBe(2);
    for (const message of messages) expect(results[2]).toContain(message as string);
    // the span carries the strongest action and its axis, and the level of the nudge that fired
    expect(third?.attributes).toMatchObject({
      'loopguard.action': 'warn',
      'loopguard.axis': 'no_progress',
      'loopguard.nudge.level': 1,
    });
    // loopguard.decisions counts what the events show: one per finding (docs/telemetry.md)
    const events = telemetry.spans().flatMap((span) => span.events);
    const decisions = (await telemetry.metrics()).get('loopguard.decisions')?.dataPoints ?? [];
    expect(decisions.reduce((sum, p) => sum + Number(p.value), 0)).toBe(events.length);
  });

  it('parallel calls: each span carries its own attempt, the nudge fires once', async () => {
    const guard = setup({ engine: quiet });
    // a model's three identical parallel calls, finishing in reverse order
    const results = await Promise.all(
      [30, 20, 10].map((ms, i) =>
        guard.traceToolCall(
          { tool: 'fetch_page', args: { url: 'https://x/404' }, scope: 'p' },
          () => new Promise<string>((resolve) => setTimeout(() => resolve(`page ${i}`), ms)),
        ),
      ),
    );
    const spans = telemetry.spans();
    expect(spans.map((s) => s.attributes['loopguard.streak']).sort()).toEqual([1, 2, 3]);
    expect(spans.map((s) => s.attributes['loopguard.count']).sort()).toEqual([1, 2, 3]);
    const nudged = spans.filter((s) => s.events.some((e) => e.name === 'loopguard.nudge'));
    expect(nudged.map((s) => s.attributes['loopguard.streak'])).toEqual([3]);
    expect(results.filter((r) => r.includes('[loopguard]'))).toHaveLength(1);
  });

  it('re-throws tool errors unchanged and records them as error outcomes', async () => {
    const guard = setup({ engine: quiet });
    class NotFoundError extends Error {}
    const failure = new NotFoundError('no such file');
    await expect(
      guard.traceToolCall({ tool: 'open_thing', args: { path: '/x' }, scope: 's' }, () => {
        throw failure;
      }),
    ).rejects.toBe(failure);
    for (let i = 0; i < 2; i++) {
      await expect(
        guard.traceToolCall({ tool: 'open_thing', args: { path: '/x' }, scope: 's' }, async () => {
          throw failure;
        }),
      ).rejects.toBe(failure);
    }
    const [first, second, third] = telemetry.spans();
    expect(first?.status.code).toBe(SpanStatusCode.ERROR);
    expect(first?.attributes['error.type']).toBe('NotFoundError');
    expect(first?.attributes['loopguard.outcome']).toBe('error');
    expect(first?.events.map((e) => e.name)).toEqual(['exception']);
    expect(second?.attributes['loopguard.outcome']).toBe('error');
    // third identical failure: exact_failure warns from 3
    expect(third?.attributes['loopguard.action']).toBe('warn');
    expect(third?.attributes['loopguard.axis']).toBe('exact_failure');
    expect(third?.events.map((e) => e.name)).toContain('loopguard.warn');
  });

  it('counts a thrown value the span API cannot record (a symbol) as a failure all the same', async () => {
    const guard = setup({ engine: quiet });
    const thrown = Symbol('gave up');
    for (let i = 0; i < 3; i++) {
      await expect(
        guard.traceToolCall({ tool: 'open_thing', args: { path: '/x' }, scope: 's' }, () => {
          throw thrown;
        }),
      ).rejects.toBe(thrown);
    }
    const [first, , third] = telemetry.spans();
    expect(first?.attributes['loopguard.outcome']).toBe('error');
    expect(first?.attributes['error.type']).toBe('symbol');
    expect(third?.attributes['loopguard.axis']).toBe('exact_failure');
  });

  it('runs the tool inside its span so nested spans become children', async () => {
    const guard = setup({ engine: quiet });
    const tracer = telemetry.tracerProvider.getTracer('test');
    await guard.traceToolCall({ tool: 'http_get', args: { url: 'u' }, scope: 's' }, async () => {
      await Promise.resolve();
      tracer.startSpan('GET').end();
      return 'ok';
    });
    const [child, parent] = telemetry.spans();
    expect(child?.name).toBe('GET');
    expect(parent?.name).toBe('execute_tool http_get');
    expect(child?.parentSpanContext?.spanId).toBe(parent?.spanContext().spanId);
  });

  it('hard stop: throws LoopHaltError when a call halts the scope, then blocks without running', async () => {
    const guard = setup({
      engine: {
        ...quiet,
        guardrails: {
          hardStop: true,
          warnAfter: { repetition: 2 },
          hardStopAfter: { repetition: 3 },
        },
      },
    });
    let runs = 0;
    const call = () =>
      guard.traceToolCall({ tool: 'create_ticket', args: { title: 't' }, scope: 'r' }, () => {
        runs++;
        return `ticket ${runs}`;
      });
    expect(await call()).toBe('ticket 1');
    expect(await call()).toMatch(/^ticket 2\n\n\[loopguard\]/);
    const halt = await call().catch((error: unknown) => error);
    expect(halt).toBeInstanceOf(LoopHaltError);
    expect((halt as LoopHaltError).scope).toBe('r');
    expect((halt as LoopHaltError).finding.axis).toBe('repetition');
    expect(runs).toBe(3);
    const blocked = await call();
    expect(runs).toBe(3);
    expect(blocked).toMatch(/^\[loopguard\] Blocked/);

    const spans = telemetry.spans();
    expect(spans).toHaveLength(4);
    expect(spans[2]?.attributes).toMatchObject({
      'loopguard.action': 'block',
      'loopguard.axis': 'repetition',
      'loopguard.outcome': 'ok',
    });
    expect(spans[2]?.events.map((e) => e.name)).toContain('loopguard.block');
    expect(spans[3]?.attributes).toMatchObject({
      'loopguard.outcome': 'blocked',
      'error.type': 'loopguard.blocked',
    });
    expect(spans[3]?.status.code).toBe(SpanStatusCode.ERROR);
    expect(spans[3]?.events.map((e) => e.name)).toEqual(['loopguard.block']);
  });

  it('a halt after an earlier block still throws LoopHaltError, and every later call is refused', async () => {
    const guard = setup({ engine: { ...quiet, guardrails: { hardStop: true } } });
    const deploy = async (v: number) =>
      guard.traceToolCall({ tool: 'deploy', args: { v }, scope: 'run-9' }, () => {
        throw new Error('500 from the API');
      });
    const outcomes: string[] = [];
    const attempt = async (v: number) => {
      try {
        await deploy(v);
        outcomes.push('returned');
      } catch (error) {
        outcomes.push(error instanceof LoopHaltError ? `halt:${error.finding.axis}` : 'error');
      }
    };
    // five failures of v1: exact_failure blocks (the scope's first stop), the app carries on
    for (let i = 0; i < 5; i++) await attempt(1);
    // five more failures of the tool: same_tool_failure halts at the 10th
    for (const v of [2, 3, 4, 5, 6]) await attempt(v);
    expect(outcomes).toEqual([
      'error',
      'error',
      'error',
      'error',
      'halt:exact_failure',
      'error',
      'error',
      'error',
      'error',
      'halt:same_tool_failure',
    ]);
    let ran = false;
    const refused = await guard.traceToolCall(
      { tool: 'read_file', args: { path: 'README.md' }, scope: 'run-9' },
      () => {
        ran = true;
        return 'contents';
      },
    );
    expect(ran).toBe(false);
    expect(String(refused)).toMatch(/Halted: deploy has failed 10 times/);
  });

  it("onHalt 'return' returns the halt message instead of throwing", async () => {
    const guard = setup({
      engine: { ...quiet, guardrails: { hardStop: true, hardStopAfter: { repetition: 2 } } },
      onHalt: 'return',
    });
    const call = () =>
      guard.traceToolCall(
        { tool: 'create_ticket', args: { title: 't' }, scope: 'r' },
        () => 'done',
      );
    expect(await call()).toBe('done');
    const final = await call();
    expect(final).toMatch(/^\[loopguard\]/);
    expect(final).not.toContain('done');
    expect(guard.engine.haltDecision('r')?.axis).toBe('repetition');
  });

  it('wrap() guards a plain function and passes this and arguments through', async () => {
    const guard = setup({ engine: quiet });
    const target = {
      prefix: 'hello',
      greet(name: string) {
        return `${this.prefix} ${name}`;
      },
    };
    const greet = guard.wrap('greet', target.greet, { scope: (name) => `user:${name}` });
    expect(await greet.call(target, 'ada')).toBe('hello ada');
    const [span] = telemetry.spans();
    expect(span?.attributes['loopguard.scope']).toBe('user:ada');
    expect(span?.attributes['loopguard.args_hash']).toBe(argsHash('ada'));
  });

  it('forceFlush and shutdown are idempotent; after shutdown calls run unguarded', async () => {
    const guard = setup({ engine: quiet });
    await guard.traceToolCall({ tool: 'x', args: {} }, () => 'a');
    await Promise.all([guard.forceFlush(), guard.forceFlush()]);
    const first = guard.shutdown();
    expect(guard.shutdown()).toBe(first);
    await first;
    expect(await guard.traceToolCall({ tool: 'x', args: {} }, () => 'b')).toBe('b');
    expect(telemetry.spans()).toHaveLength(1);
  });

  it('forceFlush called while an earlier flush is still exporting also flushes the later spans', async () => {
    // an exporter that holds each export until released
    const exported: string[] = [];
    const held: (() => void)[] = [];
    let holding = true;
    const exporter: SpanExporter = {
      export(spans: ReadableSpan[], done) {
        const finish = () => {
          exported.push(...spans.map((s) => s.name));
          done({ code: ExportResultCode.SUCCESS });
        };
        if (holding) held.push(finish);
        else finish();
      },
      shutdown: async () => {},
    };
    const tracerProvider = new BasicTracerProvider({
      spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: 3_600_000 })],
    });
    const guard = createGuard({ tracerProvider, engine: quiet });
    await guard.traceToolCall({ tool: 'first', args: {} }, () => 'a');
    const earlier = guard.forceFlush();
    await guard.traceToolCall({ tool: 'second', args: {} }, () => 'b');
    const later = guard.forceFlush();
    holding = false;
    for (const finish of held.splice(0)) finish();
    await Promise.all([earlier, later]);
    expect(exported).toEqual(['execute_tool first', 'execute_tool second']);
    await tracerProvider.shutdown();
  });
});
