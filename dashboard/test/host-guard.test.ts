import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/server/app.js';
import { isLoopbackName, resolveAllowedHosts } from '../src/server/host-guard.js';
import { parseDashboardArgs, type RunningDashboard, startDashboard } from '../src/server/index.js';
import { openDuckDbStore } from '../src/store/index.js';

const dir = mkdtempSync(join(tmpdir(), 'loopguard-host-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const OTLP = JSON.stringify({ resourceSpans: [] });

/** A raw HTTP request with the given Host (and Origin) headers, as a browser would send it. */
function send(
  port: number,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: body === undefined ? 'GET' : 'POST',
        headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          text += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('Host and Origin checks (DNS rebinding)', () => {
  let running: RunningDashboard;
  let port: number;
  beforeAll(async () => {
    running = await startDashboard({ port: 0, db: join(dir, 'host.duckdb'), uiDir: dir });
    port = running.port;
  });
  afterAll(() => running.close());

  it('refuses a rebound name on the API, ingest, /metrics and the UI', async () => {
    const attacker = {
      host: `attacker.example:${port}`,
      origin: `http://attacker.example:${port}`,
    };
    const api = await send(port, '/api/facets?range=7d', attacker);
    expect(api.status).toBe(403);
    expect(JSON.parse(api.text).error).toBe(
      `Host "attacker.example:${port}" is not allowed: this dashboard answers to localhost, ` +
        '127.0.0.1, [::1] (any port); add a name with --allowed-host or LOOPGUARD_ALLOWED_HOSTS',
    );
    expect((await send(port, '/v1/traces', attacker, OTLP)).status).toBe(403);
    expect((await send(port, '/metrics', { host: attacker.host })).status).toBe(403);
    expect((await send(port, '/', { host: attacker.host })).status).toBe(403);
    expect((await running.store.counters()).ingestedSpans).toBe(0);
  });

  it('answers loopback names with any port', async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, 'localhost']) {
      expect((await send(port, '/api/facets?range=7d', { host })).status, host).toBe(200);
      expect((await send(port, '/v1/traces', { host }, OTLP)).status, host).toBe(200);
      expect((await send(port, '/metrics', { host })).status, host).toBe(200);
    }
  });

  it('refuses cross-origin browser requests and accepts same-origin ones', async () => {
    const host = `127.0.0.1:${port}`;
    const evil = { host, origin: 'https://evil.example' };
    expect((await send(port, '/api/summary', evil)).status).toBe(403);
    const post = await send(port, '/v1/traces', evil, OTLP);
    expect(post.status).toBe(403);
    expect(JSON.parse(post.text)).toEqual({
      code: 7,
      message: `cross-origin request from "https://evil.example" to "${host}" refused`,
    });
    expect((await send(port, '/metrics', { host, origin: 'null' })).status).toBe(403);
    expect((await send(port, '/api/summary', { host, origin: `http://${host}` })).status).toBe(200);
    const same = { host, origin: `http://${host}` };
    expect((await send(port, '/v1/traces', same, OTLP)).status).toBe(200);
    // same host and port, another scheme: another origin
    const otherScheme = await send(port, '/v1/traces', { host, origin: `https://${host}` }, OTLP);
    expect(otherScheme.status).toBe(403);
    expect(JSON.parse(otherScheme.text).message).toBe(
      `cross-origin request from "https://${host}" to "${host}" refused`,
    );
  });
});

describe('allowed hosts', () => {
  it('accepts listed names, such as a compose service name, besides loopback', async () => {
    const running = await startDashboard({
      port: 0,
      db: join(dir, 'allowed.duckdb'),
      uiDir: dir,
      allowedHosts: ['dashboard', 'Metrics.Internal'],
    });
    try {
      const { port } = running;
      expect((await send(port, '/v1/traces', { host: 'dashboard:4319' }, OTLP)).status).toBe(200);
      expect((await send(port, '/metrics', { host: 'metrics.internal:4319' })).status).toBe(200);
      expect((await send(port, '/metrics', { host: `localhost:${port}` })).status).toBe(200);
      const other = await send(port, '/metrics', { host: 'attacker.example' });
      expect(other.status).toBe(403);
      expect(other.text).toMatch(/answers to localhost, 127\.0\.0\.1, \[::1\], dashboard/);
    } finally {
      await running.close();
    }
  });

  it('takes the list from LOOPGUARD_ALLOWED_HOSTS', async () => {
    process.env.LOOPGUARD_ALLOWED_HOSTS = 'a.example, b.example';
    const running = await startDashboard({ port: 0, db: join(dir, 'env.duckdb'), uiDir: dir });
    delete process.env.LOOPGUARD_ALLOWED_HOSTS;
    try {
      expect((await send(running.port, '/metrics', { host: 'b.example' })).status).toBe(200);
      expect((await send(running.port, '/metrics', { host: 'c.example' })).status).toBe(403);
    } finally {
      await running.close();
    }
  });

  it('checks Host when bound to loopback or given a list; a wildcard bind alone does not', () => {
    expect(resolveAllowedHosts('127.0.0.1')).toEqual(['127.0.0.1']);
    expect(resolveAllowedHosts('::1')).toEqual(['::1']);
    expect(resolveAllowedHosts('0.0.0.0')).toEqual(['*']);
    expect(resolveAllowedHosts('0.0.0.0', ['dashboard'])).toEqual(['dashboard']);
    expect(resolveAllowedHosts('10.0.0.5', ['dashboard'])).toEqual(['dashboard', '10.0.0.5']);
    expect(['localhost', 'app.localhost', '127.0.0.2', '::1', '[::1]'].every(isLoopbackName)).toBe(
      true,
    );
    expect(['localhost.evil.example', '10.0.0.1', '0.0.0.0', ''].some(isLoopbackName)).toBe(false);
  });

  it('createApp accepts any Host with "*" and only loopback names by default', async () => {
    const store = await openDuckDbStore({ path: ':memory:' });
    try {
      const headers = { host: 'anything.example' };
      const strict = createApp({ store, uiDir: dir });
      expect((await strict.request('/api/facets', { headers })).status).toBe(403);
      expect((await strict.request('/api/facets')).status).toBe(200);
      const open = createApp({ store, uiDir: dir, allowedHosts: ['*'] });
      expect((await open.request('/api/facets', { headers })).status).toBe(200);
    } finally {
      await store.close();
    }
  });

  it('takes an allowed name written with a port, and refuses one that is no host name', async () => {
    const store = await openDuckDbStore({ path: ':memory:' });
    try {
      const app = createApp({
        store,
        uiDir: dir,
        allowedHosts: ['dashboard:4318', 'Other.Example.:80'],
      });
      for (const host of ['dashboard:4318', 'dashboard:9000', 'other.example']) {
        expect((await app.request('/api/facets', { headers: { host } })).status, host).toBe(200);
      }
      expect(() => createApp({ store, uiDir: dir, allowedHosts: ['http://dashboard/'] })).toThrow(
        'allowed host "http://dashboard/" is not a host name',
      );
    } finally {
      await store.close();
    }
  });

  it('startDashboard refuses an allowed host that is no host name and closes the store it opened', async () => {
    let closed = false;
    const createStore = async () => {
      const store = await openDuckDbStore({ path: join(dir, 'refused.duckdb') });
      const close = store.close.bind(store);
      store.close = async () => {
        closed = true;
        await close();
      };
      return store;
    };
    await expect(
      startDashboard({
        port: 0,
        storeUrl: 'custom://x',
        createStore,
        uiDir: dir,
        allowedHosts: ['dash board'],
      }),
    ).rejects.toThrow('allowed host "dash board" is not a host name');
    expect(closed).toBe(true);
  });

  it('parses --allowed-host, repeated or comma-separated', () => {
    expect(
      parseDashboardArgs(['--allowed-host', 'dashboard', '--allowed-host=a.example,b.example']),
    ).toEqual({ allowedHosts: ['dashboard', 'a.example', 'b.example'] });
  });
});
