import { createHash } from 'node:crypto';
import { type Attributes, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { LoopAction } from '../../src/api/types.js';

/** An attribute value that would run script if it were ever rendered as HTML. */
export const XSS_VALUE = '<img src=x onerror="window.__xss=1">';

/** A scope with characters that need escaping in hash routes and API paths. */
export const XSS_SCOPE = 'team/run-xss #1 <b>?</b>';

/** One tool call of a seeded session. */
export interface SeedCall {
  tool: string;
  args: Record<string, string>;
  action: LoopAction;
  axis?: string;
  level?: number;
  outcome?: 'ok' | 'error' | 'blocked';
  /** Finding events on the span (loopguard.nudge, ...). */
  events?: LoopAction[];
  extra?: Record<string, string>;
}

/** One agent run: a scope and its calls in order. */
export interface SeedSession {
  service: string;
  scope: string;
  calls: SeedCall[];
  /** Attributes of the run span (named `invoke_agent <gen_ai.agent.name>` when it has one). */
  run?: Record<string, string>;
  /**
   * Emit a model step span (`chat <model>`, with the call's gen_ai.usage.* attributes) under the
   * run before the first call of each `loopguard.step.id`.
   */
  modelSteps?: boolean;
}

/** `<tool>:<first 16 hex of sha256(canonical args)>` for flat string arguments (contract 1). */
export function signatureOf(tool: string, args: Record<string, string>): string {
  const sorted = Object.fromEntries(Object.entries(args).sort(([a], [b]) => (a < b ? -1 : 1)));
  const hash = createHash('sha256').update(JSON.stringify(sorted)).digest('hex');
  return `${tool}:${hash.slice(0, 16)}`;
}

const grep = { pattern: 'TODO', path: 'src' };
const bash = { cmd: 'npm test' };

/** Calls `tool` n times with the same args; actions[i] is the action of call i+1. */
function repeat(
  tool: string,
  args: Record<string, string>,
  steps: Partial<SeedCall>[],
): SeedCall[] {
  return steps.map((s) => ({ tool, args, action: 'allow', ...s }));
}

/** The seeded sessions: loops with nudges, warns, blocks and a halt, clean runs, and an XSS value. */
export const SESSIONS: SeedSession[] = [
  {
    service: 'demo-agent',
    scope: 'run-grep-loop',
    calls: [
      { tool: 'read_file', args: { path: 'README.md' }, action: 'allow' },
      ...repeat('grep', grep, [
        {},
        {},
        { action: 'nudge', axis: 'streak', level: 1, events: ['nudge'] },
        {},
        { action: 'warn', axis: 'repetition', level: 2, events: ['nudge', 'warn'] },
        { action: 'warn', axis: 'repetition', events: ['warn'] },
        { action: 'warn', axis: 'repetition', events: ['warn'] },
        { action: 'block', axis: 'repetition', level: 3, events: ['nudge', 'block'] },
        { action: 'block', axis: 'repetition', outcome: 'blocked', events: ['block'] },
      ]),
    ],
  },
  {
    service: 'demo-agent',
    scope: 'run-failing-tests',
    calls: [
      { tool: 'write_file', args: { path: 'src/a.ts' }, action: 'allow' },
      ...repeat('bash', bash, [
        { outcome: 'error' },
        { action: 'warn', axis: 'exact_failure', outcome: 'error', events: ['warn'] },
        { action: 'warn', axis: 'exact_failure', outcome: 'error', events: ['warn'] },
        { action: 'block', axis: 'exact_failure', outcome: 'error', events: ['block'] },
        { action: 'halt', axis: 'same_tool_failure', outcome: 'blocked', events: ['halt'] },
      ]),
    ],
  },
  {
    service: 'demo-agent',
    scope: XSS_SCOPE,
    calls: repeat('web_fetch', { url: 'https://example.test/a' }, [
      { extra: { 'gen_ai.tool.call.arguments': XSS_VALUE } },
      {},
      { action: 'nudge', axis: 'streak', level: 1, events: ['nudge'] },
    ]),
  },
  {
    service: 'support-bot',
    scope: 'chat-42',
    calls: [
      ...repeat('search_kb', { q: 'refund' }, [
        {},
        {},
        { action: 'nudge', axis: 'streak', level: 1, events: ['nudge'] },
      ]),
      { tool: 'reply', args: { text: 'done' }, action: 'allow' },
    ],
  },
  ...[1, 2, 3].map(
    (n): SeedSession => ({
      service: 'support-bot',
      scope: `chat-${n}`,
      calls: [
        { tool: 'search_kb', args: { q: `question ${n}` }, action: 'allow' },
        { tool: 'reply', args: { text: `answer ${n}` }, action: 'allow' },
      ],
    }),
  ),
];

/**
 * Exports the sessions as real OTLP/HTTP JSON through the OTel SDK; calls are `stepMs` apart.
 * `headers` go with each export (a bearer token for a dashboard started with one).
 */
export async function seed(
  endpoint: string,
  sessions: SeedSession[],
  startMs: number,
  stepMs = 1000,
  headers: Record<string, string> = {},
): Promise<void> {
  const services = [...new Set(sessions.map((s) => s.service))];
  for (const service of services) {
    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': service }),
      spanProcessors: [
        new BatchSpanProcessor(new OTLPTraceExporter({ url: `${endpoint}/v1/traces`, headers }), {
          maxQueueSize: 100_000,
          maxExportBatchSize: 1000,
        }),
      ],
    });
    const tracer = provider.getTracer('loopguard-ui-test');
    let t = startMs;
    for (const session of sessions.filter((s) => s.service === service)) {
      const agent = session.run?.['gen_ai.agent.name'];
      const root = tracer.startSpan(agent ? `invoke_agent ${agent}` : 'invoke_agent', {
        startTime: new Date(t),
        root: true,
        ...(session.run ? { attributes: session.run } : {}),
      });
      const stepsSeen = new Set<string>();
      const parent = trace.setSpan(ROOT_CONTEXT, root);
      const streaks = new Map<string, number>();
      const counts = new Map<string, number>();
      let previous = '';
      for (const call of session.calls) {
        const signature = signatureOf(call.tool, call.args);
        const streak = signature === previous ? (streaks.get(signature) ?? 0) + 1 : 1;
        streaks.set(signature, streak);
        previous = signature;
        const count = (counts.get(signature) ?? 0) + 1;
        counts.set(signature, count);
        const outcome = call.outcome ?? 'ok';
        const step = call.extra?.['loopguard.step.id'];
        if (session.modelSteps && step !== undefined && !stepsSeen.has(step)) {
          stepsSeen.add(step);
          const usage = Object.fromEntries(
            Object.entries(call.extra ?? {}).filter(([k]) => k.startsWith('gen_ai.usage.')),
          );
          const model = call.extra?.['gen_ai.request.model'] ?? 'model';
          tracer
            .startSpan(
              `chat ${model}`,
              {
                kind: SpanKind.CLIENT,
                startTime: new Date(t - 1),
                attributes: {
                  'gen_ai.operation.name': 'chat',
                  'gen_ai.request.model': model,
                  ...usage,
                },
              },
              parent,
            )
            .end(new Date(t));
        }
        const attributes: Attributes = {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': call.tool,
          'loopguard.signature': signature,
          'loopguard.scope': session.scope,
          'loopguard.streak': streak,
          'loopguard.count': count,
          'loopguard.action': call.action,
          'loopguard.outcome': outcome,
          ...(call.axis ? { 'loopguard.axis': call.axis } : {}),
          ...(call.level ? { 'loopguard.nudge.level': call.level } : {}),
          ...call.extra,
        };
        const span = tracer.startSpan(
          `execute_tool ${call.tool}`,
          { kind: SpanKind.INTERNAL, startTime: new Date(t), attributes },
          parent,
        );
        for (const finding of call.events ?? []) {
          span.addEvent(
            `loopguard.${finding}`,
            {
              'loopguard.axis': call.axis ?? 'streak',
              'loopguard.threshold': streak,
              'loopguard.count': count,
              'loopguard.message': `${call.tool} repeated ${streak} times`,
            },
            new Date(t + 100),
          );
        }
        if (outcome !== 'ok') {
          span.setAttribute('error.type', outcome === 'blocked' ? 'loopguard.blocked' : 'Error');
          span.setStatus({ code: SpanStatusCode.ERROR, message: `${call.tool} ${outcome}` });
        }
        span.end(new Date(t + stepMs / 4));
        t += stepMs;
      }
      root.end(new Date(t));
      t += 5 * stepMs;
    }
    await provider.forceFlush();
    await provider.shutdown();
  }
}

/** Totals the store should report for the seeded sessions. */
export function expectedTotals(sessions: SeedSession[]) {
  const calls = sessions.flatMap((s) => s.calls);
  // one per finding (a loopguard.<action> event), else the call's action, as /metrics counts them
  const findings = (c: (typeof calls)[number]): string[] => {
    const events = (c.events ?? []).filter((e) => e !== 'allow');
    return events.length ? events : c.action === 'allow' ? [] : [c.action];
  };
  const count = (a: LoopAction) => calls.flatMap(findings).filter((f) => f === a).length;
  const halted = sessions.filter((s) =>
    s.calls.some((c) => c.action === 'block' || c.action === 'halt'),
  ).length;
  return {
    calls: calls.length,
    spans: calls.length + sessions.length,
    sessions: sessions.length,
    nudges: count('nudge'),
    warns: count('warn'),
    blocks: count('block'),
    halts: count('halt'),
    haltedSessions: halted,
  };
}

/** A session of `calls` calls in pairs: each pair repeats one call, so it is calls/2 runs of 2. */
export function pairsSession(scope: string, calls: number): SeedSession {
  return {
    service: 'demo-agent',
    scope,
    calls: Array.from({ length: calls }, (_, i) => ({
      tool: 'check',
      args: { step: String(Math.floor(i / 2)) },
      action: 'allow' as const,
    })),
  };
}
