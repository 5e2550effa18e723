import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningDashboard, startDashboard } from '../../dashboard/src/server/index.js';
import { loadRules, parseYaml, readYaml, root } from '../../prometheus/test/support.js';
import { parseExposition, promqlRefs } from './promql.js';

interface Datasource {
  uid: string;
  type: string;
}
interface AlertQuery {
  refId: string;
  datasourceUid: string;
  model: { expr?: string; expression?: string; type?: string };
}
interface AlertRule {
  uid: string;
  title: string;
  condition: string;
  for: string;
  data: AlertQuery[];
  labels: Record<string, string>;
  annotations: Record<string, string>;
}
interface Panel {
  title: string;
  type: string;
  datasource?: { uid: string; type: string };
  targets?: { expr: string; rawSql?: string; datasource?: { uid: string } }[];
}

async function files(dir: string): Promise<string[]> {
  const entries = await readdir(join(root, dir), { withFileTypes: true });
  const out: string[] = [];
  for (const e of entries) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory()) out.push(...(await files(path)));
    else out.push(path);
  }
  return out.sort();
}

const provisioning = async () => {
  const docs = new Map<string, Record<string, unknown>>();
  for (const f of await files('grafana/provisioning')) {
    docs.set(f, parseYaml(await readFile(join(root, f), 'utf8')) as Record<string, unknown>);
  }
  return docs;
};

const dashboards = async () => {
  const out = new Map<
    string,
    { uid: string; panels: Panel[]; templating: { list: { query: { query: string } }[] } }
  >();
  for (const f of await files('grafana/dashboards')) {
    out.set(f, JSON.parse(await readFile(join(root, f), 'utf8')));
  }
  return out;
};

const datasources = async (): Promise<Datasource[]> =>
  (await readYaml<{ datasources: Datasource[] }>('grafana/provisioning/datasources/loopguard.yml'))
    .datasources;

const alertRules = async (): Promise<AlertRule[]> =>
  (
    await readYaml<{ groups: { rules: AlertRule[] }[] }>(
      'grafana/provisioning/alerting/loopguard-rules.yml',
    )
  ).groups.flatMap((g) => g.rules);

describe('grafana provisioning', () => {
  it('parses every file with apiVersion 1', async () => {
    const docs = await provisioning();
    expect([...docs.keys()]).toEqual([
      'grafana/provisioning/alerting/contact-points.yml',
      'grafana/provisioning/alerting/loopguard-rules.yml',
      'grafana/provisioning/alerting/policies.yml',
      'grafana/provisioning/dashboards/loopguard.yml',
      'grafana/provisioning/datasources/loopguard.yml',
    ]);
    for (const [file, doc] of docs) expect(doc.apiVersion, file).toBe(1);
    expect((await dashboards()).size).toBeGreaterThan(0);
  });

  it('declares the Prometheus and ClickHouse datasources', async () => {
    const ds = await datasources();
    expect(ds.map((d) => [d.uid, d.type])).toEqual([
      ['loopguard-prometheus', 'prometheus'],
      ['loopguard-clickhouse', 'grafana-clickhouse-datasource'],
    ]);
  });

  it('points every panel, target and alert query at a provisioned datasource', async () => {
    const byUid = new Map((await datasources()).map((d) => [d.uid, d.type]));
    for (const [file, dash] of await dashboards()) {
      for (const panel of dash.panels) {
        if (panel.datasource) {
          expect(byUid.get(panel.datasource.uid), `${file}: ${panel.title}`).toBe(
            panel.datasource.type,
          );
        }
        for (const t of panel.targets ?? []) {
          expect(
            byUid.has(t.datasource?.uid ?? panel.datasource?.uid ?? ''),
            `${file}: ${panel.title}`,
          ).toBe(true);
        }
      }
    }
    for (const rule of await alertRules()) {
      const refIds = new Set(rule.data.map((q) => q.refId));
      expect(refIds.has(rule.condition), rule.title).toBe(true);
      for (const q of rule.data) {
        if (q.datasourceUid === '__expr__') {
          expect(refIds.has(q.model.expression ?? ''), `${rule.title} ${q.refId}`).toBe(true);
        } else {
          expect(byUid.get(q.datasourceUid), rule.title).toBe('prometheus');
        }
      }
    }
  });

  it('has panels for decisions, top blocked tools, halted sessions and ingest health', async () => {
    const dash = (await dashboards()).get('grafana/dashboards/loopguard.json');
    const titles = dash?.panels.map((p) => p.title) ?? [];
    expect(titles).toEqual(
      expect.arrayContaining([
        'Decisions over time',
        'Top tools by blocks',
        'Halted sessions',
        'Ingest health',
      ]),
    );
  });

  it('alerts with exactly the PromQL, `for` and severity of the promtool-tested rules', async () => {
    const prom = await loadRules();
    const grafana = await alertRules();
    expect(grafana.map((r) => r.title)).toEqual(prom.map((r) => r.alert));
    for (const rule of grafana) {
      const source = prom.find((r) => r.alert === rule.title);
      const queries = rule.data.filter((q) => q.datasourceUid !== '__expr__');
      expect(queries, rule.title).toHaveLength(1);
      expect(queries[0]?.model.expr, rule.title).toBe(source?.expr);
      expect(rule.for, rule.title).toBe(source?.for);
      expect(rule.labels.severity, rule.title).toBe(source?.labels?.severity);
      expect(rule.annotations.runbook_url, rule.title).toBe(source?.annotations?.runbook);
    }
  });

  it('routes alerts to a provisioned contact point', async () => {
    const cps = await readYaml<{ contactPoints: { name: string }[] }>(
      'grafana/provisioning/alerting/contact-points.yml',
    );
    const pol = await readYaml<{
      policies: { receiver: string; routes?: { receiver: string }[] }[];
    }>('grafana/provisioning/alerting/policies.yml');
    const names = new Set(cps.contactPoints.map((c) => c.name));
    for (const p of pol.policies) {
      expect(names.has(p.receiver)).toBe(true);
      for (const r of p.routes ?? []) expect(names.has(r.receiver)).toBe(true);
    }
  });

  it('loads dashboards from the directory docker-compose mounts grafana/dashboards at', async () => {
    const provider = await readYaml<{ providers: { options: { path: string } }[] }>(
      'grafana/provisioning/dashboards/loopguard.yml',
    );
    const compose = await readYaml<{ services: { grafana: { volumes: string[] } } }>(
      'docker-compose.yml',
    );
    expect(compose.services.grafana.volumes).toContain(
      `./grafana/dashboards:${provider.providers[0]?.options.path}:ro`,
    );
  });
});

describe('PromQL against the real /metrics of the dashboard', () => {
  let dashboard: RunningDashboard;
  let dir: string;
  let exposition: Map<string, Set<string>>;
  let types: Map<string, string>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'loopguard-grafana-'));
    dashboard = await startDashboard({
      port: 0,
      host: '127.0.0.1',
      db: join(dir, 'db.duckdb'),
      token: '',
    });
    const now = BigInt(Date.now()) * 1_000_000n;
    const str = (key: string, value: string) => ({ key, value: { stringValue: value } });
    const span = (i: number, action: string, spanId: string) => ({
      traceId: '5b8efff798038103d269b633813fc60c',
      spanId,
      name: 'execute_tool grep',
      kind: 1,
      startTimeUnixNano: String(now + BigInt(i) * 1_000_000n),
      endTimeUnixNano: String(now + BigInt(i) * 1_000_000n + 500_000n),
      attributes: [
        str('gen_ai.operation.name', 'execute_tool'),
        str('gen_ai.tool.name', 'grep'),
        str('loopguard.signature', 'grep:3fa94c1e0b2d7a55'),
        str('loopguard.scope', 'run-1'),
        str('loopguard.action', action),
        str('loopguard.axis', 'repetition'),
      ],
      events:
        action === 'allow'
          ? []
          : [
              {
                timeUnixNano: String(now),
                name: `loopguard.${action}`,
                attributes: [str('loopguard.axis', 'repetition')],
              },
            ],
      status: { code: action === 'block' ? 2 : 0 },
    });
    const body = {
      resourceSpans: [
        {
          resource: { attributes: [str('service.name', 'agent-a')] },
          scopeSpans: [
            {
              scope: { name: '@loopguard/otel' },
              spans: [
                span(0, 'allow', '1111111111111111'),
                span(1, 'nudge', '2222222222222222'),
                span(2, 'block', '3333333333333333'),
                {
                  ...span(3, 'allow', '4444444444444444'),
                  traceId: '00000000000000000000000000000000',
                },
              ],
            },
          ],
        },
      ],
    };
    const res = await fetch(`${dashboard.url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    const metrics = await fetch(`${dashboard.url}/metrics`);
    expect(metrics.status).toBe(200);
    const text = await metrics.text();
    exposition = parseExposition(text);
    types = new Map([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
  });

  afterAll(async () => {
    await dashboard?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('exposes every contract metric with its labels', () => {
    expect(Object.fromEntries([...exposition].map(([k, v]) => [k, [...v].sort()]))).toEqual({
      loopguard_tool_calls_total: ['action', 'service', 'tool'],
      loopguard_decisions_total: ['action', 'axis', 'service', 'tool'],
      loopguard_halted_sessions_total: ['service'],
      loopguard_ingested_spans_total: [],
      loopguard_rejected_spans_total: ['reason'],
      // the dashboard's own loop detection (docs/telemetry.md), beside the contract's five
      loopguard_detection_early_settled_scopes_total: [],
      loopguard_detection_late_calls_total: [],
      loopguard_detection_redecided_calls_total: [],
      loopguard_detection_forgotten_scopes_total: [],
      loopguard_detection_covered_calls_total: [],
      loopguard_detection_pending_calls: [],
    });
    // the contract's five are counters (contract section 4); the waiting calls a gauge
    expect(Object.fromEntries(types)).toEqual({
      loopguard_tool_calls_total: 'counter',
      loopguard_decisions_total: 'counter',
      loopguard_halted_sessions_total: 'counter',
      loopguard_ingested_spans_total: 'counter',
      loopguard_rejected_spans_total: 'counter',
      loopguard_detection_early_settled_scopes_total: 'counter',
      loopguard_detection_late_calls_total: 'counter',
      loopguard_detection_redecided_calls_total: 'counter',
      loopguard_detection_forgotten_scopes_total: 'counter',
      loopguard_detection_covered_calls_total: 'counter',
      loopguard_detection_pending_calls: 'gauge',
    });
    expect([...types.keys()].sort()).toEqual([...exposition.keys()].sort());
  });

  it('uses only exposed metric names and their labels in every query', async () => {
    const exprs: { where: string; expr: string }[] = [];
    for (const rule of await loadRules()) {
      exprs.push({ where: `prometheus ${rule.alert}`, expr: rule.expr });
      for (const m of JSON.stringify(rule.annotations ?? {}).matchAll(/printf \\"([^\\]+)\\"/g)) {
        exprs.push({ where: `prometheus ${rule.alert} annotation`, expr: m[1] as string });
      }
    }
    for (const rule of await alertRules()) {
      for (const q of rule.data)
        if (q.model.expr) exprs.push({ where: `grafana ${rule.title}`, expr: q.model.expr });
    }
    for (const [file, dash] of await dashboards()) {
      for (const p of dash.panels)
        for (const t of p.targets ?? [])
          if (p.datasource?.type !== 'grafana-clickhouse-datasource')
            exprs.push({ where: `${file} ${p.title}`, expr: t.expr });
      for (const v of dash.templating.list)
        exprs.push({ where: `${file} variable`, expr: v.query.query });
    }
    expect(exprs.length).toBeGreaterThan(15);
    for (const { where, expr } of exprs) {
      const refs = promqlRefs(expr);
      expect(refs.metrics.size, `${where}: no metric in ${expr}`).toBeGreaterThan(0);
      const known = new Set<string>();
      for (const metric of refs.metrics) {
        expect(exposition.has(metric), `${where}: ${metric} is not exposed by /metrics`).toBe(true);
        for (const l of exposition.get(metric) ?? []) known.add(l);
      }
      for (const label of refs.labels) {
        expect(
          known.has(label),
          `${where}: label ${label} is on none of ${[...refs.metrics]}`,
        ).toBe(true);
      }
    }
  });
});
