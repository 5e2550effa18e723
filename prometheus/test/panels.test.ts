import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root, run, stringifyYaml, which } from './support.js';

const promtool = which('promtool');

interface Panel {
  title: string;
  targets?: { expr?: string }[];
}

/** The PromQL of a Grafana panel with its macros filled in ($service all, 1h range, 10m steps). */
async function panelExpr(title: string): Promise<string> {
  const dashboard = JSON.parse(
    await readFile(join(root, 'grafana/dashboards/loopguard.json'), 'utf8'),
  ) as { panels: Panel[] };
  const expr = dashboard.panels.find((p) => p.title === title)?.targets?.[0]?.expr;
  if (!expr) throw new Error(`no panel "${title}"`);
  return expr
    .replaceAll('$service', '.*')
    .replaceAll('$__range', '1h')
    .replaceAll('$__interval', '10m');
}

// Counter series appear with their first count, which increase() cannot see: the panels that
// total a range must count a service's first halts and a tool's first blocks.
describe.skipIf(!promtool)('Grafana panels over counters that appear within the range', () => {
  it('count the first halts of a service and the first blocks of a tool, per range and per step', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'loopguard-panels-'));
    try {
      const rules = {
        groups: [
          {
            name: 'panels',
            rules: [
              { record: 'halted_in_range', expr: await panelExpr('Halted sessions') },
              { record: 'top_blocked', expr: await panelExpr('Top tools by blocks') },
              {
                record: 'halted_per_step',
                expr: await panelExpr('Halted sessions by service'),
              },
            ],
          },
        ],
      };
      const series = (values: string[]) => values.join(' ');
      const before = Array(12).fill('_');
      const tests = {
        rule_files: ['rules.yml'],
        evaluation_interval: '1m',
        tests: [
          {
            interval: '10m',
            input_series: [
              // 5 halts long ago, 2 more within the last hour
              {
                series: 'loopguard_halted_sessions_total{service="old"}',
                values: series([...Array(12).fill('5'), '6', '7', '7', '7', '7', '7']),
              },
              // a service's first halts, within the last hour: the series is born at 3
              {
                series: 'loopguard_halted_sessions_total{service="new"}',
                values: series([...before, '_', '3', '3', '3', '3', '3']),
              },
              {
                series: 'loopguard_tool_calls_total{service="new",tool="deploy",action="block"}',
                values: series([...before, '_', '9', '9', '9', '9', '9']),
              },
              {
                series: 'loopguard_tool_calls_total{service="old",tool="grep",action="block"}',
                values: series([...Array(12).fill('400'), ...Array(6).fill('401')]),
              },
            ],
            promql_expr_test: [
              {
                expr: 'halted_in_range',
                eval_time: '170m',
                exp_samples: [{ labels: 'halted_in_range', value: 5 }],
              },
              {
                // the step in which a service's series is born shows its first halts
                expr: 'halted_per_step',
                eval_time: '130m',
                exp_samples: [
                  { labels: 'halted_per_step{service="new"}', value: 3 },
                  { labels: 'halted_per_step{service="old"}', value: 1 },
                ],
              },
              {
                expr: 'halted_per_step',
                eval_time: '150m',
                exp_samples: [
                  { labels: 'halted_per_step{service="new"}', value: 0 },
                  { labels: 'halted_per_step{service="old"}', value: 0 },
                ],
              },
              {
                expr: 'top_blocked',
                eval_time: '170m',
                exp_samples: [
                  { labels: 'top_blocked{service="new",tool="deploy"}', value: 9 },
                  { labels: 'top_blocked{service="old",tool="grep"}', value: 1 },
                ],
              },
            ],
          },
        ],
      };
      await writeFile(join(dir, 'rules.yml'), stringifyYaml(rules));
      await writeFile(join(dir, 'test.yml'), stringifyYaml(tests));
      const result = await run(promtool as string, ['test', 'rules', join(dir, 'test.yml')]);
      expect(result.code, result.stdout + result.stderr).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
