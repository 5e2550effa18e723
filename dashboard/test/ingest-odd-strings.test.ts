import { describe, expect, it } from 'vitest';
import type { TraceSpan } from '../src/api/types.js';
import { JSON_CT, useIngestApp } from './helpers/ingest-app.js';
import { request, span } from './helpers/otlp-json.js';

// Strings that are valid OTLP but were once refused by the store with a 503 on every retry.

const lg = useIngestApp('strings');
const { post } = lg;

async function trace(traceId: string): Promise<TraceSpan[]> {
  return (await (await lg.app.request(`/api/traces/${traceId}`)).json()) as TraceSpan[];
}

describe('lone UTF-16 surrogates in OTLP/JSON', () => {
  it('are stored as U+FFFD in keys, values, names, events and resource attributes', async () => {
    const good = span();
    const odd = span({
      attrs: {
        note: 'NOTE',
        'KEY-x': 'v',
        list: { arrayValue: { values: [{ stringValue: 'A' }] } },
      },
      events: [{ timeUnixNano: '1', name: 'EVENT' }],
    });
    odd.name = 'execute_tool NAME';
    // a JS exporter cut an emoji in two: valid JSON, but no store takes the lone half
    const text = JSON.stringify(request([good, odd], 'svc-SVC'))
      .replace('"NOTE"', '"a\\ud800b"')
      .replace('"KEY-x"', '"k\\udc00"')
      .replace('"A"', '"\\ud83d"')
      .replace('"EVENT"', '"e\\udfff"')
      .replace('NAME', 'n\\ud800')
      .replace('svc-SVC', 'svc\\ud83d');
    for (let attempt = 0; attempt < 2; attempt++) {
      const res = await post(text, JSON_CT);
      expect(res.status, await res.clone().text()).toBe(200);
    }
    // both answered 200; the re-sent copy is recognised and stored once
    expect((await trace(good.traceId)).length).toBe(1);
    const [stored] = await trace(odd.traceId);
    expect(stored).toMatchObject({
      name: 'execute_tool n\ufffd',
      serviceName: 'svc\ufffd',
      attributes: { note: 'a\ufffdb', 'k\ufffd': 'v', list: '["\ufffd"]' },
    });
    expect(stored!.events[0]!.name).toBe('e\ufffd');
  });
});

describe('NUL characters in the names the counters key on', () => {
  it('are stored and counted: service, tool and halted scope', async () => {
    const service = 'nul\u0000svc';
    const call = span({
      attrs: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'gr\u0000ep',
        'loopguard.scope': 's\u0000x',
        'loopguard.action': 'block',
        'loopguard.axis': "it's",
      },
    });
    const res = await post(JSON.stringify(request([call], service)), JSON_CT);
    expect(res.status, await res.clone().text()).toBe(200);
    const [stored] = await trace(call.traceId);
    expect(stored!.serviceName).toBe(service);
    const counters = await lg.store.counters();
    expect(counters.toolCalls).toContainEqual({
      service,
      tool: 'gr\u0000ep',
      action: 'block',
      value: 1,
    });
    expect(counters.decisions).toContainEqual({
      service,
      tool: 'gr\u0000ep',
      axis: "it's",
      action: 'block',
      value: 1,
    });
    expect(counters.haltedSessions).toContainEqual({ service, value: 1 });
    const metrics = await (await lg.app.request('/metrics')).text();
    expect(metrics).toContain('loopguard_tool_calls_total');
  });
});
