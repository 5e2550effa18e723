import { describe, expect, it } from 'vitest';
import type { SessionDetail } from '../src/api/types.js';
import { JSON_CT, useIngestApp } from './helpers/ingest-app.js';
import { request, span } from './helpers/otlp-json.js';

const lg = useIngestApp('shadow');

/** An OTLP/JSON call span of `deploy` in `scope`, decided `action` (one finding event for a stop). */
function call(scope: string, action: string, shadow: boolean) {
  const attrs: Record<string, string | Record<string, unknown>> = {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': 'deploy',
    'loopguard.signature': 'deploy:0123456789abcdef',
    'loopguard.scope': scope,
    'loopguard.action': action,
    'loopguard.outcome': shadow || action !== 'block' ? 'error' : 'blocked',
  };
  if (action !== 'allow') attrs['loopguard.axis'] = 'exact_failure';
  if (shadow) attrs['loopguard.shadow'] = { boolValue: true };
  const events =
    action === 'allow'
      ? []
      : [
          {
            timeUnixNano: String(BigInt(Date.now()) * 1_000_000n),
            name: `loopguard.${action}`,
            attributes: [{ key: 'loopguard.axis', value: { stringValue: 'exact_failure' } }],
          },
        ];
  return span({ attrs, events });
}

describe('shadow decisions through OTLP ingest', () => {
  it('get a shadow="true" label on /metrics and a shadow flag on the timeline', async () => {
    const spans = ['allow', 'warn', 'block'].flatMap((action) => [
      call('live-run', action, false),
      call('shadow-run', action, true),
    ]);
    const res = await lg.post(JSON.stringify(request(spans, 'svc')), JSON_CT);
    expect(res.status).toBe(200);

    const text = await (await lg.app.request('/metrics')).text();
    for (const action of ['allow', 'warn', 'block']) {
      expect(text).toContain(
        `loopguard_tool_calls_total{service="svc",tool="deploy",action="${action}"} 1`,
      );
      expect(text).toContain(
        `loopguard_tool_calls_total{service="svc",tool="deploy",action="${action}",shadow="true"} 1`,
      );
    }
    for (const action of ['warn', 'block']) {
      const labels = `service="svc",tool="deploy",axis="exact_failure",action="${action}"`;
      expect(text).toContain(`loopguard_decisions_total{${labels}} 1`);
      expect(text).toContain(`loopguard_decisions_total{${labels},shadow="true"} 1`);
    }
    // the shadow run was never halted
    expect(text).toContain('loopguard_halted_sessions_total{service="svc"} 1');

    const now = Date.now();
    const range = `from=${now - 3_600_000}&to=${now + 60_000}`;
    const detail = (await (
      await lg.app.request(`/api/sessions/shadow-run?${range}`)
    ).json()) as SessionDetail;
    expect(detail.calls.map((c) => [c.action, c.shadow]).sort()).toEqual([
      ['allow', true],
      ['block', true],
      ['warn', true],
    ]);
  });
});
