import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLoopingAgent, type Summary, stepTokens } from '../src/index.js';
import { startOtlpReceiver, toolSpans as toolSpansOf } from './helpers/otlp-receiver.js';

let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
let endpoint: string;
let summary: Summary;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  endpoint = receiver.endpoint;
  summary = await runLoopingAgent({ sessions: 6, endpoint });
});

afterAll(() => receiver.close());

const toolSpans = () => toolSpansOf(receiver.spans);

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
      expect(
        found.every((s) => s.events.some((e) => e.name === `loopguard.${action}`)),
        action,
      ).toBe(true);
    }
    const nudge = withAction('nudge')[0]!;
    expect(nudge.attributes['loopguard.nudge.level']).toBe(1);
    expect(nudge.attributes['loopguard.streak']).toBe(3);
    // a refused call (onHalt: 'return') ends its run with loopguard's message as the text
    const refused = summary.sessions.filter((s) => s.hardStop && s.onHalt === 'return');
    expect(refused.length).toBeGreaterThan(0);
    for (const session of refused) expect(session.outcome).toBe('gave_up');
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

  it('gives each tool span the tokens and model of the step that made it', () => {
    // the scripted model makes call k of a session at its model step k
    for (const span of toolSpans()) {
      const callId = String(span.attributes['gen_ai.tool.call.id']);
      const k = Number(/-call-(\d+)$/.exec(callId)?.[1]);
      const tokens = stepTokens(k);
      expect(span.attributes).toMatchObject({
        'gen_ai.usage.input_tokens': tokens.inputTokens,
        'gen_ai.usage.output_tokens': tokens.outputTokens,
        'gen_ai.usage.cache_read.input_tokens': tokens.cachedInputTokens,
        'gen_ai.request.model': expect.stringMatching(/^looping-agent-/),
        'gen_ai.response.model': expect.stringMatching(/^looping-agent-/),
      });
      expect(span.attributes['loopguard.step.id']).toEqual(expect.any(String));
    }
  });

  it('sums the tokens of the steps behind flagged calls per session, as exported', () => {
    const flagged = toolSpans().filter((s) => s.attributes['loopguard.action'] !== 'allow');
    expect(flagged.length).toBeGreaterThan(0);
    for (const session of summary.sessions) {
      const mine = flagged.filter(
        (s) => s.attributes['loopguard.scope'] === session.conversationId,
      );
      const steps = mine.map((s) =>
        Number(/-call-(\d+)$/.exec(String(s.attributes['gen_ai.tool.call.id']))?.[1]),
      );
      const expected = steps.map(stepTokens);
      expect(session.loopTokens).toEqual({
        steps: steps.length,
        inputTokens: expected.reduce((n, t) => n + t.inputTokens, 0),
        outputTokens: expected.reduce((n, t) => n + t.outputTokens, 0),
        cachedInputTokens: expected.reduce((n, t) => n + t.cachedInputTokens, 0),
      });
    }
    const total = summary.sessions.reduce((n, s) => n + s.loopTokens.inputTokens, 0);
    expect(summary.loopTokens.inputTokens).toBe(total);
    expect(total).toBeGreaterThan(0);
  });
});
