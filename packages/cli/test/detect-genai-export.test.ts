import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  decisionsOf,
  detectingDashboard,
  replayedDecisions,
  replayOtlp,
  sessionCalls,
  until,
} from './detect-helpers.js';

// An OTLP/JSON export shaped as the OpenTelemetry GenAI conventions' examples (a Python agent's
// invoke_agent, chat and execute_tool spans; a Go agent that records no arguments), no loopguard.
const EXPORT = readFileSync(
  new URL('../../../dashboard/test/fixtures/genai-semconv-export.json', import.meta.url),
  'utf8',
);
const CONVERSATION = 'conv_5j66UpCpwteGg4YSxUnt7lPY';
const TRAVEL_TRACE = '0af7651916cd43dd8448eb211c80319c';

interface Hotspot {
  service: string;
  tool: string;
  signature: string;
  calls: number;
  longestStreak: number;
  nudges: number;
  warns: number;
}

describe('detection of loops in GenAI-convention spans from other languages', () => {
  it('decides them at ingest as replay --otlp does, and counts calls sent without arguments', async () => {
    const { dashboard, api } = await detectingDashboard();
    const res = await fetch(`${dashboard.url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: EXPORT,
    });
    expect(res.status).toBe(200);
    const range = `from=0&to=${Date.now() + 86_400_000}`;
    const hotspots = await until(
      () => api<{ rows: Hotspot[] }>(`/api/hotspots?${range}`),
      (p) => p.rows.some((h) => h.tool === 'get_weather'),
    );
    const weather = hotspots.rows.find((h) => h.tool === 'get_weather')!;
    expect(weather).toMatchObject({ service: 'weather-agent-py', calls: 6, longestStreak: 6 });
    expect(weather.signature).toMatch(/^get_weather:[0-9a-f]{16}$/);
    expect(weather.nudges + weather.warns).toBeGreaterThan(0);
    // no signature is invented for calls without arguments
    expect(hotspots.rows.some((h) => h.tool === 'search_flights')).toBe(false);

    const calls = await sessionCalls(api, CONVERSATION);
    expect(calls).toHaveLength(6);
    expect(calls.map((c) => c.streak)).toEqual([1, 2, 3, 4, 5, 6]);
    // the same forecast six times: the first two calls are fine, from the 3rd they are flagged
    // (streak nudge and no_progress warn at 3)
    expect(calls.slice(0, 2).map((c) => c.action)).toEqual(['allow', 'allow']);
    expect(calls.slice(2).every((c) => c.action !== 'allow')).toBe(true);
    for (const c of calls) {
      expect(c.attributes['loopguard.detected_by']).toBe('dashboard');
      expect(c.attributes['loopguard.detected_source']).toBe('gen_ai');
    }
    const replayed = await replayOtlp(EXPORT);
    expect(decisionsOf(calls)).toEqual(replayedDecisions(replayed, CONVERSATION));
    expect(replayed.some((r) => r.tool === 'search_flights')).toBe(false);

    const travel = await sessionCalls(api, TRAVEL_TRACE);
    expect(travel.map((c) => [c.tool, c.signature, c.action])).toEqual(
      Array.from({ length: 4 }, () => ['search_flights', '', 'allow']),
    );

    // the UI names the service that sends no arguments, and how to capture them
    const detection = await api<{
      enabled: boolean;
      uncaptured: { service: string; source: string; calls: number; hint: string }[];
    }>('/api/detection');
    expect(detection.enabled).toBe(true);
    expect(detection.uncaptured).toEqual([
      {
        service: 'travel-agent-go',
        source: 'gen_ai',
        calls: 4,
        hint: expect.stringContaining('OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true'),
      },
    ]);

    const metrics = await (await fetch(`${dashboard.url}/metrics`)).text();
    expect(metrics).toContain(
      'loopguard_tool_calls_total{service="travel-agent-go",tool="search_flights",action="allow",detected_by="dashboard"} 4',
    );
    expect(metrics).toMatch(
      /loopguard_decisions_total\{service="weather-agent-py",tool="get_weather",axis="streak",action="nudge",detected_by="dashboard"\} [1-9]/,
    );
  });
});
