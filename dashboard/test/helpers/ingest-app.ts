import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { createApp } from '../../src/server/app.js';
import type { Store } from '../../src/store/index.js';
import { openDuckDbStore } from '../../src/store/index.js';

/** Content-Type header of OTLP/HTTP protobuf. */
export const PROTO = { 'content-type': 'application/x-protobuf' };
/** Content-Type header of OTLP/HTTP JSON. */
export const JSON_CT = { 'content-type': 'application/json' };

/** The app and store of one test file: a real DuckDB file, opened before and removed after. */
export interface IngestFixture {
  readonly app: ReturnType<typeof createApp>;
  readonly store: Store;
  /** POST /v1/traces to the fixture's app (or another one). */
  post(
    body: RequestInit['body'],
    headers: Record<string, string>,
    app?: ReturnType<typeof createApp>,
  ): Promise<Response>;
}

/** Registers beforeAll/afterAll hooks that open a DuckDB store and an app on it. */
export function useIngestApp(name: string): IngestFixture {
  const dir = mkdtempSync(join(tmpdir(), `loopguard-${name}-`));
  let store: Store | undefined;
  let app: ReturnType<typeof createApp> | undefined;
  beforeAll(async () => {
    store = await openDuckDbStore({ path: join(dir, `${name}.duckdb`) });
    app = createApp({ store });
  });
  afterAll(async () => {
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const fixture: IngestFixture = {
    get app() {
      if (!app) throw new Error('the ingest fixture is used before beforeAll ran');
      return app;
    },
    get store() {
      if (!store) throw new Error('the ingest fixture is used before beforeAll ran');
      return store;
    },
    post: async (body, headers, a) =>
      (a ?? fixture.app).request('/v1/traces', { method: 'POST', body, headers }),
  };
  return fixture;
}
