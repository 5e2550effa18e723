import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningDashboard, startDashboard } from '../../dashboard/src/server/index.js';
import { loadRules, root, run, stringifyYaml, which } from './support.js';

const prometheus = which('prometheus');
const AGENT = join(root, 'examples/looping-agent/dist/main.js');
const OFFSET_S = 20;

/** A free loopback port (Prometheus cannot report the port it picked for :0). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

async function until<T>(
  what: string,
  timeoutMs: number,
  probe: () => Promise<T | undefined>,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(
    `timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`,
  );
}

interface PromAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  state: string;
}

describe.skipIf(!prometheus)(
  'halt alert end to end: looping agent -> dashboard /metrics -> prometheus',
  () => {
    let dir: string;
    let dashboard: RunningDashboard;
    let prom: ChildProcess | undefined;
    let promUrl: string;

    beforeAll(async () => {
      if (!existsSync(AGENT)) {
        const built = await run(
          'pnpm',
          ['--filter', '@loopguard/example-looping-agent...', 'run', 'build'],
          { timeoutMs: 115_000 },
        );
        expect(built.code, built.stderr + built.stdout).toBe(0);
      }
      dir = await mkdtemp(join(tmpdir(), 'loopguard-prom-e2e-'));
      dashboard = await startDashboard({
        port: 0,
        host: '127.0.0.1',
        db: join(dir, 'db.duckdb'),
        token: '',
      });
      // The real halt rule with `for: 0s` and its 5m windows shortened, so it fires within seconds.
      const halt = (await loadRules()).find((r) => r.alert === 'LoopguardRunHalted');
      expect(halt?.expr).toContain('offset 5m');
      const expr = (halt?.expr ?? '')
        .replaceAll('[5m]', '[30s]')
        .replaceAll('offset 5m', `offset ${OFFSET_S}s`);
      await writeFile(
        join(dir, 'rules.yml'),
        stringifyYaml({
          groups: [{ name: 'e2e', interval: '1s', rules: [{ ...halt, expr, for: '0s' }] }],
        }),
      );
      await writeFile(
        join(dir, 'prometheus.yml'),
        stringifyYaml({
          // 2 s scrapes with a 2 s timeout: a loaded machine must not turn /metrics into stale gaps
          global: { scrape_interval: '2s', scrape_timeout: '2s', evaluation_interval: '1s' },
          rule_files: [join(dir, 'rules.yml')],
          scrape_configs: [
            {
              job_name: 'loopguard-dashboard',
              static_configs: [{ targets: [new URL(dashboard.url).host] }],
            },
          ],
        }),
      );
      const port = await freePort();
      promUrl = `http://127.0.0.1:${port}`;
      prom = spawn(
        prometheus as string,
        [
          `--config.file=${join(dir, 'prometheus.yml')}`,
          `--storage.tsdb.path=${join(dir, 'tsdb')}`,
          `--web.listen-address=127.0.0.1:${port}`,
          '--log.level=warn',
        ],
        { stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let stderr = '';
      prom.stderr?.on('data', (c: Buffer) => {
        stderr = (stderr + c.toString()).slice(-4000);
      });
      // The dashboard must have been scraped for longer than the rule's offset before the halt.
      await until(`prometheus to scrape the dashboard (${stderr})`, 60_000, async () => {
        const res = await fetch(
          `${promUrl}/api/v1/query?query=${encodeURIComponent(`loopguard_ingested_spans_total offset ${OFFSET_S}s`)}`,
        );
        const body = (await res.json()) as { data?: { result?: unknown[] } };
        return body.data?.result?.length ? true : undefined;
      });
    });

    afterAll(async () => {
      if (prom && prom.exitCode === null) {
        const exited = new Promise((r) => prom?.once('exit', r));
        prom.kill('SIGTERM');
        await exited;
      }
      await dashboard?.close();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it('fires LoopguardRunHalted for the agent whose run loopguard halted', async () => {
      const agent = spawn(process.execPath, [AGENT, '--sessions', '6'], {
        env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: dashboard.url },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      agent.stdout?.on('data', (c: Buffer) => {
        output += c.toString();
      });
      agent.stderr?.on('data', (c: Buffer) => {
        output += c.toString();
      });
      const exit = new Promise<number | null>((resolve) => agent.once('exit', resolve));
      const timer = setTimeout(() => agent.kill('SIGKILL'), 60_000);
      const alert = await until('the LoopguardRunHalted alert to fire', 90_000, async () => {
        const res = await fetch(`${promUrl}/api/v1/alerts`);
        const body = (await res.json()) as { data: { alerts: PromAlert[] } };
        return body.data.alerts.find(
          (a) => a.labels.alertname === 'LoopguardRunHalted' && a.state === 'firing',
        );
      })
        .catch(async (error: Error) => {
          const rules = await (await fetch(`${promUrl}/api/v1/rules`)).text();
          const metrics = await (await fetch(`${dashboard.url}/metrics`)).text();
          throw new Error(
            `${error.message}\nagent: ${output}\nrules: ${rules}\nmetrics: ${metrics}`,
          );
        })
        .finally(async () => {
          await exit;
          clearTimeout(timer);
        });
      expect(await exit, output).toBe(0);
      expect(output).toMatch(/hard_stop=true/);
      expect(alert.labels).toMatchObject({ service: 'looping-agent', severity: 'critical' });
      expect(alert.annotations.description).toMatch(/of service looping-agent were halted/);
      // The annotation names the most blocked tool, queried from loopguard_decisions_total. At the
      // first evaluations it may say "unknown": increase() needs two samples of a block series
      // born with the halt. It must name a tool that blocked once the series has been scraped again.
      const tool = await until(
        'the alert description to name the blocked tool',
        30_000,
        async () => {
          const res = await fetch(`${promUrl}/api/v1/alerts`);
          const body = (await res.json()) as { data: { alerts: PromAlert[] } };
          const description = body.data.alerts.find(
            (a) => a.labels.alertname === 'LoopguardRunHalted' && a.state === 'firing',
          )?.annotations.description;
          const named = /most blocked tool in the last hour: ([^\s.]+)\.$/.exec(
            description ?? '',
          )?.[1];
          return named === undefined || named === 'unknown' ? undefined : named;
        },
      );
      const metrics = await (await fetch(`${dashboard.url}/metrics`)).text();
      expect(metrics).toMatch(
        new RegExp(
          `^loopguard_decisions_total\\{service="looping-agent",tool="${tool}",axis="[a-z_]+",action="(block|halt)"\\} [1-9]`,
          'm',
        ),
      );
      expect(metrics).toMatch(/^loopguard_halted_sessions_total\{service="looping-agent"\} [1-9]/m);
    }, 150_000);
  },
);

it.runIf(!prometheus)(
  'skips the Prometheus end-to-end test: the prometheus binary is not installed (apt-get install prometheus)',
  () => {
    expect(prometheus).toBeUndefined();
  },
);
