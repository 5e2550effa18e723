import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLoopingAgent, type Summary } from '../src/index.js';

interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: Record<string, unknown>;
  events: Array<{ name: string; attributes: Record<string, unknown> }>;
  status?: { code?: number };
  service: unknown;
}

type Json = Record<string, unknown>;

function value(v: Json | undefined): unknown {
  if (!v) return undefined;
  if ('stringValue' in v) return v.stringValue;
  if ('intValue' in v) return Number(v.intValue);
  if ('boolValue' in v) return v.boolValue;
  if ('doubleValue' in v) return v.doubleValue;
  return undefined;
}

function attrs(list: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const kv of (list as Array<{ key: string; value: Json }>) ?? [])
    out[kv.key] = value(kv.value);
  return out;
}

/** A real OTLP/HTTP receiver on 127.0.0.1 that keeps every span posted to /v1/traces. */
function startReceiver() {
  const spans: Span[] = [];
  const contentTypes = new Set<string>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      contentTypes.add(String(req.headers['content-type']));
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json;
      for (const rs of (body.resourceSpans as Json[]) ?? []) {
        const service = attrs((rs.resource as Json)?.attributes)['service.name'];
        for (const ss of (rs.scopeSpans as Json[]) ?? []) {
          for (const s of (ss.spans as Json[]) ?? []) {
            spans.push({
              traceId: String(s.traceId),
              spanId: String(s.spanId),
              parentSpanId: s.parentSpanId ? String(s.parentSpanId) : undefined,
              name: String(s.name),
              attributes: attrs(s.attributes),
              events: ((s.events as Json[]) ?? []).map((e) => ({
                name: String(e.name),
                attributes: attrs(e.attributes),
              })),
              status: s.status as Span['status'],
              service,
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return { server, spans, contentTypes };
}

let receiver: ReturnType<typeof startReceiver>;
let endpoint: string;
let summary: Summary;

beforeAll(async () => {
  receiver = startReceiver();
  await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(receiver.server.address() as AddressInfo).port}`;
  summary = await runLoopingAgent({ sessions: 6, endpoint });
});

afterAll(async () => {
  await new Promise<void>((resolve, reject) =>
    (receiver.server as Server).close((e) => (e ? reject(e) : resolve())),
  );
});

const toolSpans = () =>
  receiver.spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'execute_tool');

describe('the looping agent, exported over OTLP/HTTP to a local receiver', () => {
  it('runs six sessions with their own conversation ids and outcomes', () => {
    expect(summary.sessionCount).toBe(6);
    expect(summary.tracesUrl).toBe(`${endpoint}/v1/traces`);
    const ids = new Set(summary.sessions.map((s) => s.conversationId));
    expect(ids.size).toBe(6);
    const outcomes = summary.sessions.map((s) => s.outcome);
    expect(outcomes).toContain('halted');
    expect(outcomes).toContain('gave_up');
    expect(summary.sessions.filter((s) => !s.hardStop).every((s) => s.outcome === 'answered')).toBe(
      true,
    );
    expect([...receiver.contentTypes]).toEqual(['application/json']);
  });

  it('exports every tool call as an execute_tool span in its session scope', () => {
    const spans = toolSpans();
    const totalCalls = summary.sessions.reduce((n, s) => n + s.toolCalls, 0);
    expect(spans).toHaveLength(totalCalls);
    const scopes = new Set(spans.map((s) => s.attributes['loopguard.scope']));
    expect(scopes).toEqual(new Set(summary.sessions.map((s) => s.conversationId)));
    for (const span of spans) {
      expect(span.service).toBe('looping-agent');
      expect(span.attributes['gen_ai.conversation.id']).toBe(span.attributes['loopguard.scope']);
      expect(span.attributes['gen_ai.tool.call.arguments']).toEqual(expect.any(String));
      expect(span.attributes['loopguard.signature']).toMatch(/^[a-z_]+:[0-9a-f]{16}$/);
    }
    const actions = Object.fromEntries(
      ['allow', 'nudge', 'warn', 'block', 'halt'].map((a) => [
        a,
        spans.filter((s) => s.attributes['loopguard.action'] === a).length,
      ]),
    );
    expect(actions).toEqual(summary.actions);
  });

  it('carries nudges, warnings, a block and a halt, each with its event', () => {
    const spans = toolSpans();
    const withAction = (action: string) =>
      spans.filter((s) => s.attributes['loopguard.action'] === action);
    for (const action of ['nudge', 'warn', 'block', 'halt']) {
      const found = withAction(action);
      expect(found.length, action).toBeGreaterThan(0);
      expect(found.every((s) => s.events.some((e) => e.name === `loopguard.${action}`))).toBe(true);
    }
    const nudge = withAction('nudge')[0]!;
    expect(nudge.attributes['loopguard.nudge.level']).toBe(1);
    expect(nudge.attributes['loopguard.streak']).toBe(3);
    expect(spans.some((s) => s.attributes['loopguard.outcome'] === 'blocked')).toBe(true);
    const axes = new Set(spans.map((s) => s.attributes['loopguard.axis']).filter(Boolean));
    for (const axis of ['streak', 'exact_failure', 'no_progress', 'cycle', 'poll'])
      expect(axes).toContain(axis);
    const failed = spans.filter((s) => s.attributes['loopguard.outcome'] === 'error');
    expect(failed.map((s) => s.attributes['error.type'])).toContain('CommandFailedError');
    expect(failed.map((s) => s.attributes['error.type'])).toContain('NavigationError');
  });

  it('nests tool spans in the trace of their invoke_agent span', () => {
    const agents = receiver.spans.filter((s) => s.name === 'invoke_agent looping-agent');
    expect(agents).toHaveLength(6);
    const traceOf = new Map(agents.map((a) => [a.attributes['gen_ai.conversation.id'], a.traceId]));
    const byId = new Map(receiver.spans.map((s) => [s.spanId, s]));
    for (const span of toolSpans()) {
      expect(span.traceId).toBe(traceOf.get(span.attributes['loopguard.scope']));
      expect(byId.get(span.parentSpanId ?? '')?.name).toBe('ai.toolCall');
    }
  });
});
