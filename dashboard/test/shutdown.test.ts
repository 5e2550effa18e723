import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startDashboard } from '../src/server/index.js';
import { openDuckDbStore } from '../src/store/index.js';
import { sdkSpans, toJson } from './otlp-helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'loopguard-shutdown-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A raw HTTP/1.1 connection: what the server sent so far, and a wait for more. */
class RawConnection {
  text = '';
  closed = false;
  private waiters: (() => void)[] = [];
  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) =>
      this.update(() => (this.text += chunk.toString('latin1'))),
    );
    socket.on('close', () => this.update(() => (this.closed = true)));
    socket.on('error', () => {}); // seen as `closed`
  }

  static open(port: number): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => resolve(new RawConnection(socket)));
      socket.once('error', reject);
    });
  }

  private update(change: () => void): void {
    change();
    for (const wake of this.waiters.splice(0)) wake();
  }

  /** Resolves once the server sent `text`, or the connection closed. */
  async until(text: string): Promise<void> {
    while (!this.text.includes(text) && !this.closed) {
      await new Promise<void>((wake) => this.waiters.push(wake));
    }
  }
}

/** Resolves once nothing accepts connections on `port` any more. */
async function untilRefused(port: number): Promise<void> {
  for (;;) {
    const refused = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(false);
      });
      socket.once('error', () => resolve(true));
    });
    if (refused) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('closing the dashboard', () => {
  it('answers the requests in flight, commits what it answered 200, then closes the store', async () => {
    const db = join(dir, 'drain.duckdb');
    const running = await startDashboard({ port: 0, db, uiDir: join(dir, 'none') });
    const spans = await sdkSpans(20, { service: 'drain', scope: 'in-flight' });
    const body = Buffer.from(toJson(spans));
    // an exporter's keep-alive connection, idle when the dashboard closes
    const idle = await RawConnection.open(running.port);
    idle.socket.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${running.port}\r\n\r\n`);
    await idle.until('{"status":"ok"}');
    // a request whose body is half sent when the dashboard closes; 100-continue shows the server
    // has taken the request
    const upload = await RawConnection.open(running.port);
    upload.socket.write(
      `POST /v1/traces HTTP/1.1\r\nHost: 127.0.0.1:${running.port}\r\n` +
        'Content-Type: application/json\r\nExpect: 100-continue\r\n' +
        `Content-Length: ${body.length}\r\n\r\n`,
    );
    await upload.until('100 Continue');
    const half = Math.floor(body.length / 2);
    upload.socket.write(body.subarray(0, half));

    const closing = running.close();
    await untilRefused(running.port); // new connections are refused from now on
    expect(upload.closed).toBe(false);
    upload.socket.write(body.subarray(half));
    await upload.until('\r\n\r\n{');
    await upload.until('}');
    expect(upload.text).toMatch(/HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);
    await closing;
    await idle.until('never sent');
    expect(idle.closed).toBe(true);

    const store = await openDuckDbStore({ path: db });
    try {
      const summary = await store.summary({ from: 0, to: Date.now() + 60_000 });
      expect(summary.spans).toBe(spans.length);
      expect((await store.counters()).ingestedSpans).toBe(spans.length);
    } finally {
      await store.close();
    }
  });
});
