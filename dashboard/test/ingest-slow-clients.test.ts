import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ServerType, serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/server/app.js';
import { startDashboard } from '../src/server/index.js';
import type { Store } from '../src/store/index.js';
import { openDuckDbStore } from '../src/store/index.js';

const dir = mkdtempSync(join(tmpdir(), 'loopguard-slow-'));
let store: Store;
let server: ServerType;
let port: number;

beforeAll(async () => {
  store = await openDuckDbStore({ path: join(dir, 'slow.duckdb') });
  const app = createApp({ store, maxInFlight: 4, bodyGraceMs: 300, minBodyBytesPerSecond: 1024 });
  port = await new Promise<number>((resolve) => {
    server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) =>
      resolve(info.port),
    );
  });
  expect((server.address() as AddressInfo).port).toBe(port);
});

afterAll(async () => {
  await new Promise<void>((resolve) => {
    if ('closeAllConnections' in server) server.closeAllConnections();
    server.close(() => resolve());
  });
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A client that declares a 100 000-byte body and sends it one byte every 50 ms. */
function trickle(): { socket: Socket; answer: Promise<string> } {
  const socket = connect(port, '127.0.0.1');
  socket.write(
    `POST /v1/traces HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
      'Content-Length: 100000\r\n\r\n{',
  );
  const timer = setInterval(() => socket.write(' '), 50);
  const answer = new Promise<string>((resolve) => {
    let text = '';
    socket.on('data', (d) => {
      text += d.toString('latin1');
    });
    const done = () => {
      clearInterval(timer);
      resolve(text);
    };
    socket.on('close', done);
    socket.on('error', done);
  });
  return { socket, answer };
}

const SPAN = JSON.stringify({
  resourceSpans: [
    {
      scopeSpans: [
        { spans: [{ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331' }] },
      ],
    },
  ],
});

describe('clients that send their bodies slowly', () => {
  it('hold no ingest place: an exporter is answered 200 while they trickle, they get 408', async () => {
    const slow = Array.from({ length: 8 }, trickle);
    await new Promise((r) => setTimeout(r, 150));
    const res = await fetch(`http://127.0.0.1:${port}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: SPAN,
    });
    expect(res.status, await res.clone().text()).toBe(200);
    const answers = await Promise.all(slow.map((s) => s.answer));
    for (const answer of answers) {
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(answer).toContain('request body arriving too slowly');
    }
    for (const s of slow) s.socket.destroy();
    expect((await store.counters()).ingestedSpans).toBe(1);
  });
});

describe('a client that never finishes its headers', () => {
  it('is answered 408 and disconnected by the dashboard server', async () => {
    const running = await startDashboard({ port: 0, db: join(dir, 'headers.duckdb'), uiDir: dir });
    try {
      const socket = connect(running.port, '127.0.0.1');
      socket.write(`POST /v1/traces HTTP/1.1\r\nHost: 127.0.0.1:${running.port}\r\n`);
      const answer = await new Promise<string>((resolve) => {
        let text = '';
        socket.on('data', (d) => {
          text += d.toString('latin1');
        });
        socket.on('close', () => resolve(text));
        socket.on('error', () => resolve(text));
      });
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    } finally {
      await running.close();
    }
  }, 30_000);
});
