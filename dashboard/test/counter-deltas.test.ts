import { describe, expect, it } from 'vitest';
import type { LoopAction } from '../src/api/types.js';
import type { SpanRecord } from '../src/otlp/span.js';
import { actionRank } from '../src/store/common/index.js';
import { HOUR_MS } from '../src/store/duckdb/schema.js';
import { computeDeltas } from '../src/store/duckdb/write/deltas.js';
import type { SpanFields } from '../src/store/duckdb/write/span-fields.js';
import { makePlainSpan, makeToolSpan } from './span-fixtures.js';

// computeDeltas groups without building key strings; the reference below groups by the exact
// tuple (JSON of its fields), in order of first appearance, summing as the rollups define.

function reference(spans: SpanRecord[], fields: SpanFields[]) {
  const group = <T>(map: Map<string, T>, key: unknown[], make: () => T): T => {
    const k = JSON.stringify(key);
    let row = map.get(k);
    if (row === undefined) {
      row = make();
      map.set(k, row);
    }
    return row;
  };
  const calls = new Map<
    string,
    { service: string; tool: string; action: string; shadow: boolean; value: number }
  >();
  const decisions = new Map<
    string,
    { service: string; tool: string; axis: string; action: string; shadow: boolean; value: number }
  >();
  const rollup = new Map<string, Record<string, number | string>>();
  const sessions = new Map<string, Record<string, number | string>>();
  spans.forEach((s, i) => {
    const f = fields[i]!;
    if (!f.isCall) return;
    const service = s.serviceName;
    const shadow = s.attributes['loopguard.shadow'] === 'true';
    group(calls, [service, f.tool, f.action, shadow], () => ({
      service,
      tool: f.tool,
      action: f.action,
      shadow,
      value: 0,
    })).value++;
    const found: [string, string][] = [];
    for (const e of s.events) {
      const action = e.name.startsWith('loopguard.') ? e.name.slice(10) : '';
      if (actionRank(action) > 0) found.push([e.attributes['loopguard.axis'] ?? f.axis, action]);
    }
    if (found.length === 0 && f.actionRank > 0) found.push([f.axis, f.action]);
    for (const [axis, action] of found)
      group(decisions, [service, f.tool, axis, action, shadow], () => ({
        service,
        tool: f.tool,
        axis,
        action,
        shadow,
        value: 0,
      })).value++;
    const hour = Math.floor(f.startMs / HOUR_MS) * HOUR_MS;
    const durationMs = Number(s.durationNs / 1_000_000n);
    if (f.signature !== '') {
      const r = group(rollup, [hour, service, f.tool, f.signature, f.action], () => ({
        hour,
        service,
        tool: f.tool,
        signature: f.signature,
        action: f.action,
        calls: 0,
        maxStreak: f.streak,
        repeatNs: 0,
        firstMs: f.startMs,
        lastMs: f.startMs,
        sampleArgs: '',
        nudges: 0,
        warns: 0,
        blocks: 0,
        halts: 0,
        shadowNudges: 0,
        shadowWarns: 0,
        shadowBlocks: 0,
        shadowHalts: 0,
      }));
      r.calls = (r.calls as number) + 1;
      r.maxStreak = Math.max(r.maxStreak as number, f.streak);
      if (f.count > 1) r.repeatNs = (r.repeatNs as number) + Number(s.durationNs);
      r.firstMs = Math.min(r.firstMs as number, f.startMs);
      r.lastMs = Math.max(r.lastMs as number, f.startMs);
      if (r.sampleArgs === '') r.sampleArgs = f.toolArgs;
      // one per finding, shadow ones apart
      for (const [, a] of found) {
        const key = shadow ? `shadow${a[0]!.toUpperCase()}${a.slice(1)}s` : `${a}s`;
        r[key] = (r[key] as number) + 1;
      }
    }
    if (f.scope !== '') {
      const r = group(sessions, [hour, f.scope, service], () => ({
        hour,
        scope: f.scope,
        service,
        conversationId: '',
        calls: 0,
        maxStreak: 0,
        maxRank: 0,
        nudges: 0,
        warns: 0,
        blocks: 0,
        startMs: f.startMs,
        endMs: f.startMs + durationMs,
        shadowRank: 0,
        shadowNudges: 0,
        shadowWarns: 0,
        shadowBlocks: 0,
        shadowHalts: 0,
      }));
      r.calls = (r.calls as number) + 1;
      r.maxStreak = Math.max(r.maxStreak as number, f.streak);
      // enforced findings and rank, shadow ones apart; one per finding, as the decisions counter
      const rank = shadow ? 'shadowRank' : 'maxRank';
      r[rank] = Math.max(r[rank] as number, f.actionRank);
      for (const [, a] of found) {
        const key = shadow ? `shadow${a[0]!.toUpperCase()}${a.slice(1)}s` : `${a}s`;
        if (shadow || a !== 'halt') r[key] = (r[key] as number) + 1;
      }
      if (f.conversationId > (r.conversationId as string)) r.conversationId = f.conversationId;
      r.startMs = Math.min(r.startMs as number, f.startMs);
      r.endMs = Math.max(r.endMs as number, f.startMs + durationMs);
    }
  });
  return {
    toolCalls: [...calls.values()],
    decisions: [...decisions.values()],
    rollup: [...rollup.values()],
    sessionRollup: [...sessions.values()],
  };
}

describe('computeDeltas', () => {
  it('groups calls, findings and rollup rows by their exact names, in order of first appearance', () => {
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return Math.floor((seed / 2 ** 31) * n);
    };
    // names that a joined key would confuse: a NUL inside a name, and the same text split differently
    const services = ['agent-a', 'agent-b', 'a\u0000b', 'a'];
    const tools = ['grep', 'read', 'b\u0000grep', 'grep\u0000'];
    const actions: LoopAction[] = ['allow', 'nudge', 'warn', 'block', 'halt'];
    const t0 = Date.UTC(2026, 11, 1, 10, 59, 0);
    const spans: SpanRecord[] = [];
    for (let i = 0; i < 4000; i++) {
      if (i % 11 === 0) {
        spans.push(makePlainSpan({ service: services[rand(4)], timeMs: t0 + i * 500 }));
        continue;
      }
      const tool = tools[rand(4)]!;
      const action = actions[rand(5)]!;
      const s = makeToolSpan({
        tool,
        service: services[rand(4)],
        signature: `${tools[rand(4)]}:${rand(30)}`,
        scope: rand(7) === 0 ? undefined : `run-${rand(20)}`,
        conversationId: rand(3) ? `conv-${rand(5)}` : undefined,
        args: rand(2) ? `{"q":${rand(4)}}` : undefined,
        action,
        axis: action === 'allow' ? undefined : rand(2) ? 'streak' : 'repetition',
        streak: rand(12),
        count: rand(4),
        timeMs: t0 + i * 500 + rand(1000),
        durationMs: rand(5000),
        findings:
          rand(4) === 0
            ? [
                { action: 'warn', axis: 'cycle' },
                { action: 'allow', axis: 'x' },
                { action: 'block', axis: rand(2) ? 'cycle' : 'streak' },
              ]
            : undefined,
      });
      if (rand(10) === 0) s.attributes['loopguard.action'] = 'bogus';
      if (rand(10) === 0) delete s.attributes['loopguard.scope'];
      if (rand(9) === 0) delete s.attributes['loopguard.signature'];
      // shadow calls are counted apart; another value of the attribute is not shadow
      if (rand(3) === 0) s.attributes['loopguard.shadow'] = rand(4) ? 'true' : 'false';
      spans.push(s);
    }
    const { fields, deltas } = computeDeltas(spans);
    const ref = reference(spans, fields);
    expect(deltas.toolCalls).toEqual(ref.toolCalls);
    expect(deltas.decisions).toEqual(ref.decisions);
    expect(deltas.rollup).toEqual(ref.rollup);
    expect(deltas.sessionRollup).toEqual(ref.sessionRollup);
    expect(deltas.ingested).toBe(spans.length);
    // the NUL names were kept apart
    expect(new Set(deltas.toolCalls.map((c) => JSON.stringify([c.service, c.tool]))).size).toBe(16);
  });
});
