import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseYaml, readYaml, root, run, which } from './support.js';

const dockerCompose = which('docker-compose');

interface ComposeService {
  image?: string;
  command?: string[];
  ports?: string[];
  volumes?: string[];
  profiles?: string[];
  environment?: Record<string, string>;
}
type Pipelines = Record<
  string,
  { receivers: string[]; processors?: string[]; exporters: string[] }
>;
interface CollectorConfig {
  receivers?: Record<string, unknown>;
  processors?: Record<string, unknown>;
  exporters?: Record<string, { endpoint?: string; sending_queue?: SendingQueue }>;
  extensions?: Record<string, unknown>;
  service?: { extensions?: string[]; pipelines?: Pipelines };
}

interface SendingQueue {
  enabled?: boolean;
  sizer?: string;
  queue_size?: number;
  batch?: { min_size?: number; max_size?: number; flush_timeout?: string };
}

/**
 * The exporter helper's checks of a sending queue (collector 0.12x, queuebatch.Config.Validate):
 * a `batch` needs the `items` or `bytes` sizer (the default, `requests`, is refused), fits in the
 * queue, and keeps `max_size` at or above `min_size`.
 */
function checkQueue(queue: SendingQueue | undefined): string[] {
  if (!queue?.enabled || !queue.batch) return [];
  const problems: string[] = [];
  const sizer = queue.sizer ?? 'requests';
  if (sizer !== 'items' && sizer !== 'bytes') problems.push(`batch with the ${sizer} sizer`);
  const queueSize = queue.queue_size ?? 1000;
  const { min_size: min = 0, max_size: max = 0 } = queue.batch;
  if (min > queueSize) problems.push(`min_size ${min} over queue_size ${queueSize}`);
  if (max > 0 && max < min) problems.push(`max_size ${max} under min_size ${min}`);
  return problems;
}

/** Merges collector configs the way `otelcol --config a --config b` does: maps merge, lists replace. */
function merge(a: unknown, b: unknown): unknown {
  if (
    a &&
    b &&
    typeof a === 'object' &&
    typeof b === 'object' &&
    !Array.isArray(a) &&
    !Array.isArray(b)
  ) {
    const out: Record<string, unknown> = { ...(a as Record<string, unknown>) };
    for (const [k, v] of Object.entries(b)) out[k] = merge(out[k], v);
    return out;
  }
  return b === undefined ? a : b;
}

function checkPipelines(config: CollectorConfig): string[] {
  const errors: string[] = [];
  for (const [name, p] of Object.entries(config.service?.pipelines ?? {})) {
    for (const r of p.receivers) if (!config.receivers?.[r]) errors.push(`${name}: receiver ${r}`);
    for (const r of p.processors ?? [])
      if (!config.processors?.[r]) errors.push(`${name}: processor ${r}`);
    for (const r of p.exporters) if (!config.exporters?.[r]) errors.push(`${name}: exporter ${r}`);
  }
  for (const e of config.service?.extensions ?? [])
    if (!config.extensions?.[e]) errors.push(`extension ${e}`);
  return errors;
}

describe('docker-compose stack', () => {
  it.runIf(dockerCompose)('passes `docker-compose config`', async () => {
    const result = await run(dockerCompose as string, ['-f', 'docker-compose.yml', 'config', '-q']);
    expect(result.code, result.stderr).toBe(0);
  });

  it.runIf(dockerCompose)(
    'passes `docker-compose --profile clickhouse config` and has the profile',
    async () => {
      const result = await run(dockerCompose as string, [
        '-f',
        'docker-compose.yml',
        '--profile',
        'clickhouse',
        'config',
      ]);
      expect(result.code, result.stderr).toBe(0);
      const resolved = parseYaml(result.stdout) as { services: Record<string, ComposeService> };
      expect(resolved.services.clickhouse?.profiles).toEqual(['clickhouse']);
      expect(Object.keys(resolved.services).sort()).toEqual([
        'clickhouse',
        'collector',
        'dashboard',
        'grafana',
        'prometheus',
      ]);
    },
  );

  it.runIf(!dockerCompose)(
    'skips `docker-compose config`: docker-compose is not installed (apt-get install docker-compose)',
    () => {
      expect(dockerCompose).toBeUndefined();
    },
  );

  it('wires collector, dashboard, prometheus and grafana to each other', async () => {
    const compose = await readYaml<{ services: Record<string, ComposeService> }>(
      'docker-compose.yml',
    );
    const s = compose.services;
    // Every host port is published on loopback only.
    for (const [name, svc] of Object.entries(s)) {
      for (const port of svc.ports ?? []) expect(port, name).toMatch(/^127\.0\.0\.1:/);
    }
    // Every mounted repository file exists.
    for (const svc of Object.values(s)) {
      for (const volume of svc.volumes ?? []) {
        const source = volume.split(':')[0] as string;
        if (source.startsWith('./')) expect(existsSync(join(root, source)), source).toBe(true);
      }
    }
    expect(s.dashboard?.command?.join(' ')).toContain(
      'loopguard dashboard --host 0.0.0.0 --port 4319',
    );
    expect(s.dashboard?.ports).toContain('127.0.0.1:4319:4319');
    expect(s.collector?.ports).toEqual(
      expect.arrayContaining(['127.0.0.1:4317:4317', '127.0.0.1:4318:4318']),
    );

    const base = await readYaml<CollectorConfig>('collector/config.yaml');
    expect(base.exporters?.['otlphttp/loopguard']?.endpoint).toBe('http://dashboard:4319');
    expect(checkPipelines(base)).toEqual([]);
    for (const overlay of ['dashboard', 'clickhouse']) {
      const merged = merge(base, await readYaml(`collector/${overlay}.yaml`)) as CollectorConfig;
      expect(checkPipelines(merged), overlay).toEqual([]);
      const exporters = Object.values(merged.service?.pipelines ?? {}).flatMap((p) => p.exporters);
      expect(exporters, overlay).toEqual([
        overlay === 'clickhouse' ? 'clickhouse' : 'otlphttp/loopguard',
      ]);
    }
    const clickhouse = merge(base, await readYaml('collector/clickhouse.yaml')) as CollectorConfig;
    expect(clickhouse.exporters?.clickhouse?.endpoint).toMatch(/^tcp:\/\/clickhouse:9000/);
    for (const [name, exporter] of Object.entries(clickhouse.exporters ?? {})) {
      expect(checkQueue(exporter.sending_queue), name).toEqual([]);
    }
    // the check itself: the config as it was before (a batch counted in requests) is refused
    expect(checkQueue({ enabled: true, batch: { min_size: 5000, flush_timeout: '5s' } })).toEqual([
      'batch with the requests sizer',
      'min_size 5000 over queue_size 1000',
    ]);

    const prom = await readYaml<{ scrape_configs: { static_configs: { targets: string[] }[] }[] }>(
      'prometheus/prometheus.yml',
    );
    expect(prom.scrape_configs[0]?.static_configs[0]?.targets).toEqual(['dashboard:4319']);
    // the dashboard binds 0.0.0.0 in its container: the allowed hosts keep its Host check on and
    // must name the host the collector and prometheus reach it by
    expect(s.dashboard?.environment?.LOOPGUARD_ALLOWED_HOSTS).toMatch(/:-dashboard\}$/);
    const ds = await readYaml<{
      datasources: { uid: string; url?: string; jsonData?: { host?: string } }[];
    }>('grafana/provisioning/datasources/loopguard.yml');
    expect(ds.datasources.find((d) => d.uid === 'loopguard-prometheus')?.url).toBe(
      'http://prometheus:9090',
    );
    expect(ds.datasources.find((d) => d.uid === 'loopguard-clickhouse')?.jsonData?.host).toBe(
      'clickhouse',
    );

    const dockerfile = await readFile(join(root, 'dashboard/Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^FROM node:20-slim/m);
    expect(dockerfile).toContain('pnpm install --frozen-lockfile');
  });
});
