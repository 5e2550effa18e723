import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from './helpers/build.js';
import { type ChildResult, cleanEnv, runNode } from './helpers/child.js';
import { type OtlpSink, type SinkSpan, startOtlpSink } from './helpers/otlp-sink.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
let sink: OtlpSink | undefined;

beforeAll(async () => {
  await ensureBuilt();
});

afterEach(async () => {
  await sink?.close();
  sink = undefined;
});

type Content = { type: string; text: string }[];

/** Checks what a looping MCP app printed and what it exported under `--import register`. */
function expectGuardedLoop(run: ChildResult, spans: SinkSpan[], service: string) {
  expect(run.code, run.stderr).toBe(0);
  expect(run.lines).toHaveLength(9);
  const content = (i: number) =>
    ((run.lines[i - 1]?.result ?? { content: [] }) as { content: Content }).content;
  expect(content(1)).toEqual([{ type: 'text', text: 'created #1: flaky test' }]);
  expect(content(3)).toHaveLength(2);
  expect(content(3)[0]?.text).toBe('created #3: flaky test');
  expect(content(3)[1]?.text).toMatch(/^\[loopguard\] Reminder/);
  expect(content(4)).toHaveLength(1);
  expect(content(5)[1]?.text).toContain('[loopguard]');
  // the 8th identical call made the engine halt the scope: LoopHaltError reaches the app
  expect(run.lines[7]).toMatchObject({ i: 8, error: 'LoopHaltError' });
  // the 9th is blocked before it reaches the server
  expect(run.lines[8]?.result).toMatchObject({ isError: true });
  expect(content(9)[0]?.text).toMatch(/^\[loopguard\] Blocked/);

  const tools = spans.filter((s) => s.name === 'execute_tool create_issue');
  expect(tools).toHaveLength(9);
  for (const span of tools) {
    expect(span.service).toBe(service);
    expect(span.kind).toBe(1); // SPAN_KIND_INTERNAL
    expect(span.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'create_issue',
      'gen_ai.tool.type': 'extension',
    });
    // the client's own scope, never the shared "process"
    expect(span.attributes['loopguard.scope']).toMatch(/^mcp:[0-9a-f-]{36}$/);
    expect(span.attributes['loopguard.signature']).toMatch(/^create_issue:[0-9a-f]{16}$/);
    expect(span.attributes['loopguard.args_hash']).toMatch(/^[0-9a-f]{64}$/);
  }
  expect(tools.map((s) => s.attributes['loopguard.streak'])).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  expect(tools.map((s) => s.attributes['loopguard.sequence'])).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  // one client session: one invoke_agent span over its calls, halted by the 8th
  const sessions = spans.filter((s) => s.name.startsWith('invoke_agent'));
  expect(sessions).toHaveLength(1);
  expect(sessions[0]?.attributes).toMatchObject({
    'gen_ai.operation.name': 'invoke_agent',
    'loopguard.run.outcome': 'halted',
  });
  expect(tools[2]?.attributes).toMatchObject({
    'loopguard.action': 'nudge',
    'loopguard.nudge.level': 1,
  });
  expect(tools[2]?.events.map((e) => e.name)).toEqual(['loopguard.nudge']);
  expect(tools[2]?.events[0]?.attributes).toMatchObject({
    'loopguard.axis': 'streak',
    'loopguard.threshold': 3,
    'loopguard.count': 3,
  });
  expect(tools[5]?.attributes).toMatchObject({
    'loopguard.action': 'warn',
    'loopguard.axis': 'repetition',
  });
  expect(tools[7]?.attributes).toMatchObject({
    'loopguard.action': 'block',
    'loopguard.outcome': 'ok',
  });
  expect(tools[7]?.events.map((e) => e.name)).toContain('loopguard.block');
  expect(tools[8]?.attributes).toMatchObject({
    'loopguard.outcome': 'blocked',
    'error.type': 'loopguard.blocked',
  });
  expect(tools[8]?.status.code).toBe(2); // STATUS_CODE_ERROR
}

async function runFixture(
  app: string,
  service: string,
  extra: { env?: Record<string, string>; preload?: string[] } & Pick<
    Parameters<typeof runNode>[1],
    'onLine'
  > = {},
) {
  sink = await startOtlpSink();
  const preload = (extra.preload ?? []).flatMap((file) => ['--import', file]);
  return runNode([...preload, '--import', '@loopguard/otel/register', app], {
    cwd: FIXTURES,
    env: cleanEnv({
      OTEL_EXPORTER_OTLP_ENDPOINT: sink.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: service,
      OTEL_LOGS_EXPORTER: 'none',
      LOOPGUARD_HARD_STOP: 'true',
      ...extra.env,
    }),
    onLine: extra.onLine,
  });
}

describe('node --import @loopguard/otel/register', () => {
  it('says once on stderr that it is active, with the endpoint and the frameworks patched', async () => {
    const run = await runFixture('mcp-loop.mjs', 'notice');
    expect(run.code, run.stderr).toBe(0);
    const notices = run.stderr.split('\n').filter((line) => line.startsWith('loopguard: active'));
    expect(notices).toEqual([
      `loopguard: active; traces to ${(sink as OtlpSink).endpoint}/v1/traces (http/json); frameworks patched: @modelcontextprotocol/sdk (LOOPGUARD_QUIET=1 silences this)`,
    ]);
  });

  it('guards an unmodified ESM MCP client app and exports OTLP spans and metrics', async () => {
    const run = await runFixture('mcp-loop.mjs', 'loop-esm');
    const active = sink as OtlpSink;
    expectGuardedLoop(run, active.spans(), 'loop-esm');
    expect(active.requests().every((r) => r.contentType?.startsWith('application/json'))).toBe(
      true,
    );
    const calls = active.points('loopguard.tool.calls');
    const total = calls.reduce((sum, p) => sum + Number(p.value), 0);
    expect(total).toBe(9);
    expect(active.metricNames()).toEqual(
      new Set([
        'loopguard.tool.calls',
        'loopguard.decisions',
        'loopguard.streak.length',
        'gen_ai.execute_tool.duration',
      ]),
    );
  });

  it('guards the CommonJS variant of the same app', async () => {
    const run = await runFixture('mcp-loop.cjs', 'loop-cjs');
    expectGuardedLoop(run, (sink as OtlpSink).spans(), 'loop-cjs');
  });

  it('flushes on SIGTERM and still terminates by the signal', async () => {
    const run = await runFixture('mcp-loop.mjs', 'loop-sigterm', {
      env: {
        HOLD_OPEN: '1',
        OTEL_BSP_SCHEDULE_DELAY: '600000',
        OTEL_METRIC_EXPORT_INTERVAL: '600000',
      },
      onLine: (line, kill) => {
        if (line.done) kill('SIGTERM');
      },
    });
    expect(run.signal).toBe('SIGTERM');
    const spans = (sink as OtlpSink).spans().filter((s) => s.name === 'execute_tool create_issue');
    expect(spans).toHaveLength(9);
    expect((sink as OtlpSink).metricNames().has('loopguard.tool.calls')).toBe(true);
  });

  it("lets an app's own SIGTERM handler finish its graceful shutdown", async () => {
    const run = await runFixture('mcp-loop.mjs', 'loop-drain', {
      env: { HOLD_OPEN: '1', DRAIN_ON_SIGTERM: '1', OTEL_BSP_SCHEDULE_DELAY: '600000' },
      onLine: (line, kill) => {
        if (line.done) kill('SIGTERM');
      },
    });
    expect(run.signal).toBeNull();
    expect(run.code, run.stderr).toBe(0);
    expect(run.lines.at(-1)).toEqual({ drained: true });
    const spans = (sink as OtlpSink).spans().filter((s) => s.name === 'execute_tool create_issue');
    expect(spans).toHaveLength(9);
  });

  it('exports the spans before the process ends on an uncaught error', async () => {
    const run = await runFixture('mcp-loop.mjs', 'loop-crash', {
      env: { CRASH: '1', OTEL_BSP_SCHEDULE_DELAY: '600000' },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Error: the agent crashed after its loop');
    const spans = (sink as OtlpSink).spans().filter((s) => s.name === 'execute_tool create_issue');
    expect(spans).toHaveLength(9);
    expect(spans[7]?.attributes['loopguard.action']).toBe('block');
  });

  it('uses a tracer provider the app registered first instead of starting its own SDK', async () => {
    const run = await runFixture('mcp-loop.mjs', 'loop-own', { preload: ['./own-sdk.mjs'] });
    expect(run.code, run.stderr).toBe(0);
    const own = run.lines.filter((line) => line.span === 'execute_tool create_issue');
    expect(own).toHaveLength(9);
    expect(own[2]?.attributes).toMatchObject({
      'loopguard.action': 'nudge',
      'loopguard.streak': 3,
    });
    expect((sink as OtlpSink).requests().filter((r) => r.path === '/v1/traces')).toHaveLength(0);
  });

  it('starts no SDK of its own when the app registered only a meter provider', async () => {
    const run = await runFixture('mcp-loop.mjs', 'loop-own-metrics', {
      preload: ['./own-metrics.mjs'],
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.lines).toContainEqual({ metric: 'loopguard.tool.calls' });
    expect(run.stderr).not.toContain('duplicate registration');
    expect((sink as OtlpSink).requests()).toHaveLength(0);
  });

  for (const disabled of ['true', 'false']) {
    it(`says what is wrong with OTEL_LOG_LEVEL=warn (OTEL_SDK_DISABLED=${disabled})`, async () => {
      const run = await runFixture('mcp-loop.mjs', 'loop-diag', {
        env: { OTEL_SDK_DISABLED: disabled, OTEL_LOG_LEVEL: 'warn', LOOPGUARD_ON_HALT: 'bogus' },
      });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toContain('LOOPGUARD_ON_HALT must be "throw" or "return", got "bogus"');
      expect(run.stderr).not.toContain('logger will be overwritten');
    });
  }

  it('OTEL_SDK_DISABLED=true exports nothing but still guards the loop', async () => {
    const run = await runFixture('mcp-loop.mjs', 'loop-disabled', {
      env: { OTEL_SDK_DISABLED: 'true' },
    });
    expect(run.code, run.stderr).toBe(0);
    const results = run.lines.filter((line) => line.result);
    expect(((results[2]?.result ?? {}) as { content: Content }).content[1]?.text).toMatch(
      /^\[loopguard\]/,
    );
    expect(run.lines[7]).toMatchObject({ i: 8, error: 'LoopHaltError' });
    expect((sink as OtlpSink).requests()).toHaveLength(0);
  });

  for (const app of ['ai-loop.mjs', 'ai-loop.cjs']) {
    it(`guards the AI SDK tools of an unmodified app (${app}) with a scripted model`, async () => {
      const run = await runFixture(app, 'ai-app');
      expect(run.code, run.stderr).toBe(0);
      const outputs = run.lines.filter((line) => line.call);
      expect(outputs.map((line) => line.call)).toEqual([
        'call-1',
        'call-2',
        'call-3',
        'call-4',
        'call-5',
      ]);
      const text = (i: number) => String((outputs[i]?.output as { value?: unknown })?.value);
      expect(text(0)).toBe('order 7: pending (lookup 1)');
      expect(text(2)).toMatch(/^order 7: pending \(lookup 3\)\n\n\[loopguard\] Reminder/);
      expect(text(3)).toBe('order 7: pending (lookup 4)');
      expect(run.lines.at(-1)).toEqual({ text: 'done' });
      const spans = (sink as OtlpSink)
        .spans()
        .filter((s) => s.name === 'execute_tool lookup_order');
      expect(spans.map((s) => s.attributes['gen_ai.tool.call.id'])).toEqual([
        'call-1',
        'call-2',
        'call-3',
        'call-4',
        'call-5',
      ]);
      expect(spans.map((s) => s.attributes['loopguard.action'])).toEqual([
        'allow',
        'allow',
        'nudge',
        'allow',
        'warn',
      ]);
    });
  }

  for (const onHalt of ['throw', 'return'] as const) {
    it(`a halt ends an unmodified AI SDK app's generateText and ToolLoopAgent runs (onHalt ${onHalt})`, async () => {
      const run = await runFixture('ai-halt.mjs', 'ai-halt', {
        env: { LOOPGUARD_ON_HALT: onHalt },
      });
      expect(run.code, run.stderr).toBe(0);
      // the 8th identical call halts its run's scope: the run ends with that step, not at
      // stepCountIs(30) (generateText) or the agent's default stepCountIs(20)
      for (const [i, name] of ['generateText', 'agent'].entries()) {
        const line = run.lines[i];
        if (onHalt === 'throw') {
          expect(line).toEqual({ run: name, error: 'LoopHaltError', modelCalls: 8, ran: 8 });
        } else {
          expect(line).toMatchObject({ run: name, steps: 8, ran: 8 });
          expect(String(line?.text)).toMatch(/^\[loopguard\] Limit reached/);
        }
      }
      const spans = (sink as OtlpSink)
        .spans()
        .filter((s) => s.name === 'execute_tool lookup_order');
      expect(spans).toHaveLength(16);
      expect(spans.filter((s) => s.attributes['loopguard.action'] === 'block')).toHaveLength(2);
    });
  }

  it("ends an unmodified AI SDK app's approval loop when an approved call halts", async () => {
    const run = await runFixture('ai-approval.mjs', 'ai-approval');
    expect(run.code, run.stderr).toBe(0);
    // the 8th approved deploy halts: the call that executed it rejects before asking the model again
    expect(run.lines[0]).toEqual({ asked: 8, ran: 8, modelCalls: 8, outcome: 'LoopHaltError' });
    const spans = (sink as OtlpSink).spans().filter((s) => s.name === 'execute_tool deploy');
    expect(spans.map((s) => s.attributes['loopguard.count'])).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  for (const app of ['frameworks.mjs', 'frameworks.cjs']) {
    it(`patches OpenAI Agents tool() and LangChain createAgent when an app loads them (${app})`, async () => {
      const run = await runFixture(app, 'frameworks');
      expect(run.code, run.stderr).toBe(0);
      expect(run.lines[0]).toEqual({
        agents: ['loopguard.openai-agents.patched', 'loopguard.original-export'],
        langchain: ['loopguard.langchain.patched', 'loopguard.original-export'],
      });
    });
  }

  it('keeps OpenAI Agents approval policies on parsed input, tool errors out of its traces, and explicit guard options', async () => {
    const run = await runFixture('agents-register.mjs', 'agents-explicit', {
      env: { OTEL_SDK_DISABLED: 'true' },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.lines[0]).toEqual({
      marks: ['loopguard.openai-agents.guarded', 'loopguard.openai-agents.rewrap'],
      seenByPolicy: [{ email: 'admin@corp.com' }],
      interruptions: 1,
      deleted: 0,
    });
    expect(run.lines[1]).toEqual({ agents: [['execute_tool grep', 'conv-42']] });
    // the client's session is its run span (no scope of its own), ended by close()
    expect(run.lines[2]).toEqual({
      mcp: [
        ['execute_tool create_issue', 'conv-42'],
        ['invoke_agent app', null],
      ],
    });
    // the SDK's own trace keeps a guarded tool's error text out, as for an unguarded tool
    expect(run.lines[3]).toEqual({
      sdkTrace: [
        {
          message: 'Error running tool (non-fatal)',
          data: { tool_name: 'bash', error: 'Tool execution failed. Error details are redacted.' },
        },
      ],
    });
  });

  it('LOOPGUARD_ON_HALT=return turns the halting call into a final isError result', async () => {
    const run = await runFixture('mcp-loop.mjs', 'loop-return', {
      env: { LOOPGUARD_ON_HALT: 'return' },
    });
    expect(run.code, run.stderr).toBe(0);
    const eighth = run.lines[7]?.result as { isError?: boolean; content: Content };
    expect(eighth.isError).toBe(true);
    expect(eighth.content).toHaveLength(1);
    expect(eighth.content[0]?.text).toMatch(/^\[loopguard\]/);
    expect(run.lines.some((line) => line.error)).toBe(false);
  });
});
