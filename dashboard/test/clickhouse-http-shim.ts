import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type { Session } from 'chdb';

/**
 * A minimal ClickHouse HTTP interface served by embedded ClickHouse (chDB), so the real
 * @clickhouse/client runs against the real engine: `query` URL parameter + body as SQL,
 * `param_*` as bound parameters, basic auth checked. No Docker engine here to run a server.
 */
export async function startClickHouseHttpShim(opts: { user: string; password: string }): Promise<{
  url: string;
  requests: string[];
  /** The settings each request carried in its URL (not applied: chDB runs with its own). */
  settings: Record<string, string>[];
  close(): Promise<void>;
}> {
  const chdb = createRequire(import.meta.url)('chdb') as typeof import('chdb');
  const session: Session = new chdb.Session();
  const requests: string[] = [];
  const settings: Record<string, string>[] = [];
  let tail: Promise<unknown> = Promise.resolve();
  const expected = `Basic ${Buffer.from(`${opts.user}:${opts.password}`).toString('base64')}`;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (req.headers.authorization !== expected) {
        res.writeHead(403).end('Code: 516. Authentication failed');
        return;
      }
      const body = Buffer.concat(chunks).toString('utf8');
      const q = url.searchParams.get('query');
      const sql = q ? `${q}\n${body}` : body;
      const params: Record<string, string> = {};
      const given: Record<string, string> = {};
      for (const [k, v] of url.searchParams) {
        // the server reads a parameter in the escaped text format the client writes it in
        if (k.startsWith('param_')) params[k.slice(6)] = unescapeParam(v);
        else if (k !== 'query' && k !== 'database') given[k] = v;
      }
      requests.push(`${url.searchParams.get('database')}: ${sql.slice(0, 60)}`);
      settings.push(given);
      const run = tail.then(async () => {
        if (url.searchParams.get('database') !== 'loopguard') throw new Error('unknown database');
        return session.queryBind(sql, params);
      });
      tail = run.catch(() => undefined);
      run.then(
        (out) => res.writeHead(200, { 'content-type': 'text/plain' }).end(out),
        (e: Error) => res.writeHead(500).end(`Code: 1. DB::Exception: ${e.message}`),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `clickhouse://${opts.user}:${encodeURIComponent(opts.password)}@127.0.0.1:${port}/loopguard`,
    requests,
    settings,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await tail;
      session.close();
    },
  };
}

const ESCAPES: Readonly<Record<string, string>> = {
  t: '\t',
  n: '\n',
  r: '\r',
  b: '\b',
  f: '\f',
  '0': '\0',
};

/** A query parameter's value as the server reads it (@clickhouse/client escapes \\, \t, \n, \r, '). */
function unescapeParam(text: string): string {
  return text.replace(/\\(.)/gs, (_, c: string) => ESCAPES[c] ?? c);
}
