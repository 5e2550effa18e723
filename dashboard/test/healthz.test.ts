import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/server/app.js';
import type { Store } from '../src/store/index.js';
import { openDuckDbStore } from '../src/store/index.js';
import { JSON_CT } from './helpers/ingest-app.js';
import { request, span } from './helpers/otlp-json.js';

// A load balancer or a Docker healthcheck asks /healthz: it must not answer 200 while every
// insert fails. The failure here is a real one: the staging directory beside the DuckDB file is
// gone (as when its disk is full or unwritable), so the store cannot stage and commit a batch.

const dir = mkdtempSync(join(tmpdir(), 'loopguard-healthz-'));
const db = join(dir, 'health.duckdb');
let store: Store;
let app: ReturnType<typeof createApp>;
const reported: unknown[] = [];

beforeAll(async () => {
  store = await openDuckDbStore({ path: db });
  app = createApp({ store, onInternalError: (e) => reported.push(e) });
});
afterAll(async () => {
  mkdirSync(`${db}.stage`, { recursive: true });
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const ingest = () =>
  app.request('/v1/traces', {
    method: 'POST',
    body: JSON.stringify(request([span()])),
    headers: JSON_CT,
  });

describe('/healthz and the store', () => {
  it('answers 200 while inserts commit', async () => {
    expect((await ingest()).status).toBe(200);
    const res = await app.request('/healthz');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('answers 503 with a reason once an insert failed, without the store error', async () => {
    rmSync(`${db}.stage`, { recursive: true, force: true });
    const before = Date.now();
    expect((await ingest()).status).toBe(503);
    expect((await ingest()).status).toBe(503);
    expect(reported).toHaveLength(2);
    const res = await app.request('/healthz');
    expect(res.status).toBe(503);
    const body = (await res.json()) as { status: string; reason: string; failingSince: number };
    expect(body.status).toBe('unavailable');
    expect(body.reason).toMatch(/insert/);
    // the first failure of the run dates it; the cause (a path here) stays in the server log
    expect(body.failingSince).toBeGreaterThanOrEqual(before);
    expect(body.failingSince).toBeLessThanOrEqual(Date.now());
    expect(JSON.stringify(body)).not.toContain('.stage');
    expect((await app.request('/healthz', { method: 'HEAD' })).status).toBe(503);
  });

  it('answers 200 again as soon as an insert commits', async () => {
    mkdirSync(`${db}.stage`);
    expect((await ingest()).status).toBe(200);
    const res = await app.request('/healthz');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });
});
