import { describe, expect, it } from 'vitest';
import { createApp } from '../src/server/app.js';
import { MetricsExposition } from '../src/server/metrics.js';
import { JSON_CT, useIngestApp } from './helpers/ingest-app.js';

const lg = useIngestApp('cardinality');

/** An OTLP/JSON request of the spans, from service `svc`. */
function request(spans: unknown[]): string {
  const resource = { attributes: [{ key: 'service.name', value: { stringValue: 'svc' } }] };
  return JSON.stringify({ resourceSpans: [{ resource, scopeSpans: [{ spans }] }] });
}

function call(i: number, tool: string) {
  return {
    traceId: (i + 1).toString(16).padStart(32, '0'),
    spanId: (i + 1).toString(16).padStart(16, '0'),
    name: `execute_tool ${tool}`,
    startTimeUnixNano: String(1_700_000_000_000_000_000n + BigInt(i) * 1_000_000n),
    endTimeUnixNano: String(1_700_000_000_001_000_000n + BigInt(i) * 1_000_000n),
    attributes: [
      { key: 'gen_ai.operation.name', value: { stringValue: 'execute_tool' } },
      { key: 'gen_ai.tool.name', value: { stringValue: tool } },
      { key: 'loopguard.action', value: { stringValue: 'allow' } },
    ],
  };
}

/** The samples of one family: rendered labels to value. */
function family(text: string, name: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(name.length, at), Number(line.slice(at + 1)));
  }
  return out;
}

describe('/metrics with more tools than series it may show', () => {
  it('shows the largest series, sums the rest into other, and keeps both monotonic', async () => {
    const app = createApp({ store: lg.store, maxMetricSeries: 5 });
    // tool t<k> is called k + 1 times: t9 the most
    const spans = [];
    let i = 0;
    for (let k = 0; k < 10; k++) for (let n = 0; n <= k; n++) spans.push(call(i++, `t${k}`));
    const body = request(spans);
    const res = await app.request('/v1/traces', { method: 'POST', body, headers: JSON_CT });
    expect(res.status).toBe(200);

    const first = family(
      await (await app.request('/metrics')).text(),
      'loopguard_tool_calls_total',
    );
    const other = '{service="other",tool="other",action="other"}';
    expect([...first.keys()].sort()).toEqual(
      [
        ...['t5', 't6', 't7', 't8', 't9'].map((t) => `{service="svc",tool="${t}",action="allow"}`),
        other,
      ].sort(),
    );
    expect(first.get(other)).toBe(1 + 2 + 3 + 4 + 5);
    expect([...first.values()].reduce((a, b) => a + b, 0)).toBe(spans.length);

    // a new tool, called more than any other: it joins other, and no shown series goes away
    const more = Array.from({ length: 20 }, (_, n) => call(1000 + n, 'newcomer'));
    const again = request(more);
    expect(
      (await app.request('/v1/traces', { method: 'POST', body: again, headers: JSON_CT })).status,
    ).toBe(200);
    const second = family(
      await (await app.request('/metrics')).text(),
      'loopguard_tool_calls_total',
    );
    expect([...second.keys()].sort()).toEqual([...first.keys()].sort());
    expect(second.get(other)).toBe(15 + 20);
    for (const [key, value] of first) expect(second.get(key)).toBeGreaterThanOrEqual(value);
  });

  it('keeps a scrape small whatever the number of tools', () => {
    const exposition = new MetricsExposition();
    const toolCalls = Array.from({ length: 100_000 }, (_, k) => ({
      service: 'svc',
      tool: `tool-${k}`,
      action: 'allow',
      value: 1 + (k % 7),
    }));
    const text = exposition.render({
      toolCalls,
      decisions: [],
      haltedSessions: [],
      ingestedSpans: 0,
      rejectedSpans: [],
    });
    const calls = family(text, 'loopguard_tool_calls_total');
    expect(calls.size).toBe(2001);
    const total = toolCalls.reduce((sum, x) => sum + x.value, 0);
    expect([...calls.values()].reduce((a, b) => a + b, 0)).toBe(total);
    // the largest first: every shown tool was called 7 times
    for (const [key, value] of calls) if (!key.includes('"other"')) expect(value).toBe(7);
  });
});
