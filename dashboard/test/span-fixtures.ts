import { randomBytes } from 'node:crypto';
import type { LoopAction } from '../src/api/types.js';
import type { SpanRecord } from '../src/otlp/span.js';

/** Options of a fixture tool-call span; everything has a sensible default. */
export interface ToolSpanOptions {
  tool?: string;
  args?: string;
  signature?: string;
  scope?: string;
  service?: string;
  action?: LoopAction;
  axis?: string;
  streak?: number;
  count?: number;
  level?: number;
  outcome?: 'ok' | 'error' | 'blocked';
  /** Start in epoch ms. */
  timeMs?: number;
  durationMs?: number;
  traceId?: string;
  spanId?: string;
  parentSpanId?: string;
  conversationId?: string;
  /** Extra span attributes. */
  attributes?: Record<string, string>;
  /** Adds one loopguard.<action> event per finding (default: one for a non-allow action). */
  findings?: { action: LoopAction; axis: string }[];
}

/** A random lowercase hex id of `bytes` bytes. */
export function hexId(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

/** A tool-call span shaped as the loopguard instrumentation emits it (contract section 2). */
export function makeToolSpan(o: ToolSpanOptions = {}): SpanRecord {
  const tool = o.tool ?? 'grep';
  const signature = o.signature ?? `${tool}:${(o.args ?? 'a').padEnd(16, '0').slice(0, 16)}`;
  const action = o.action ?? 'allow';
  const timeMs = o.timeMs ?? Date.now();
  const start = BigInt(timeMs) * 1_000_000n;
  const outcome = o.outcome ?? (action === 'block' ? 'blocked' : 'ok');
  const attributes: Record<string, string> = {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': tool,
    'loopguard.signature': signature,
    'loopguard.args_hash': signature.split(':')[1]!.padEnd(64, '0'),
    'loopguard.scope': o.scope ?? 'scope-1',
    'loopguard.streak': String(o.streak ?? 1),
    'loopguard.count': String(o.count ?? 1),
    'loopguard.action': action,
    'loopguard.outcome': outcome,
  };
  if (o.axis) attributes['loopguard.axis'] = o.axis;
  if (o.level !== undefined) attributes['loopguard.nudge.level'] = String(o.level);
  if (o.conversationId) attributes['gen_ai.conversation.id'] = o.conversationId;
  if (o.args !== undefined) attributes['gen_ai.tool.call.arguments'] = o.args;
  if (outcome === 'blocked') attributes['error.type'] = 'loopguard.blocked';
  Object.assign(attributes, o.attributes);
  const findings = o.findings ?? (action === 'allow' ? [] : [{ action, axis: o.axis ?? 'streak' }]);
  return {
    traceId: o.traceId ?? hexId(16),
    spanId: o.spanId ?? hexId(8),
    parentSpanId: o.parentSpanId ?? '',
    traceState: '',
    name: `execute_tool ${tool}`,
    kind: 'Internal',
    serviceName: o.service ?? 'agent-a',
    scopeName: '@loopguard/otel',
    scopeVersion: '0.1.0',
    startTimeUnixNano: start,
    durationNs: BigInt(Math.round((o.durationMs ?? 10) * 1e6)),
    statusCode: outcome === 'ok' ? 'Unset' : 'Error',
    statusMessage: '',
    attributes,
    resourceAttributes: { 'service.name': o.service ?? 'agent-a' },
    events: findings.map((f, i) => ({
      timeUnixNano: start + BigInt(i),
      name: `loopguard.${f.action}`,
      attributes: {
        'loopguard.axis': f.axis,
        'loopguard.threshold': '3',
        'loopguard.count': String(o.count ?? 1),
        'loopguard.message': `${tool} repeated`,
      },
    })),
    links: [],
  };
}

/** A non-tool span (e.g. an LLM call or the agent's root span). */
export function makePlainSpan(
  o: {
    name?: string;
    service?: string;
    timeMs?: number;
    traceId?: string;
    spanId?: string;
    parentSpanId?: string;
  } = {},
): SpanRecord {
  const start = BigInt(o.timeMs ?? Date.now()) * 1_000_000n;
  return {
    traceId: o.traceId ?? hexId(16),
    spanId: o.spanId ?? hexId(8),
    parentSpanId: o.parentSpanId ?? '',
    traceState: 'k=v',
    name: o.name ?? 'chat gpt-test',
    kind: 'Client',
    serviceName: o.service ?? 'agent-a',
    scopeName: 'test',
    scopeVersion: '',
    startTimeUnixNano: start,
    durationNs: 5_000_000n,
    statusCode: 'Ok',
    statusMessage: '',
    attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-test' },
    resourceAttributes: { 'service.name': o.service ?? 'agent-a' },
    events: [],
    links: [{ traceId: hexId(16), spanId: hexId(8), traceState: '', attributes: { why: 'x' } }],
  };
}

/**
 * A looping session: `repeats` identical calls of one signature with rising streak and the
 * default nudge thresholds (3, 5, 8), then a block on the last one when `blocked`.
 */
export function makeLoop(o: {
  scope: string;
  tool?: string;
  args?: string;
  service?: string;
  repeats: number;
  startMs: number;
  stepMs?: number;
  blocked?: boolean;
}): SpanRecord[] {
  const spans: SpanRecord[] = [];
  const levels: Record<number, number> = { 3: 1, 5: 2, 8: 3 };
  for (let i = 1; i <= o.repeats; i++) {
    const last = i === o.repeats && o.blocked;
    const level = levels[i];
    spans.push(
      makeToolSpan({
        scope: o.scope,
        tool: o.tool,
        args: o.args ?? 'loop',
        service: o.service,
        streak: i,
        count: i,
        timeMs: o.startMs + (i - 1) * (o.stepMs ?? 1000),
        action: last ? 'block' : level ? 'nudge' : 'allow',
        axis: last ? 'repetition' : level ? 'streak' : undefined,
        level,
      }),
    );
  }
  return spans;
}
