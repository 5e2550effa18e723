import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { queryHotspots } from '../dashboard/dist/store/duckdb-hotspots.js';

const { DuckDBInstance } = createRequire(
  createRequire(import.meta.url).resolve('@loopguard/dashboard'),
)('@duckdb/node-api');
const endMs = Number(readFileSync('/tmp/prof/q.end', 'utf8'));
const inst = await DuckDBInstance.create(process.env.DB ?? '/tmp/prof/q.duckdb');
const c = await inst.connect();
const filter = { from: endMs - 7 * 86_400_000, to: endMs + 1 };
const times = [];
const read = async (sql, params) => {
  const t0 = process.cpuUsage();
  const t = performance.now();
  const r = (await c.runAndReadAll(sql, params)).getRowObjectsJS();
  times.push([
    (() => {
      const u = process.cpuUsage(t0);
      return (u.user + u.system) / 1000;
    })(),
    sql.slice(0, 60).replace(/\s+/g, ' '),
  ]);
  return r;
};
for (let i = 0; i < 5; i++) {
  times.length = 0;
  const t = performance.now();
  await queryHotspots(read, filter);
  console.log(
    'total',
    (performance.now() - t).toFixed(1),
    times.map(([ms, s]) => `${ms.toFixed(1)} ${s}`),
  );
}
if (process.argv[2] === 'explain') {
  const sqls = [];
  const r2 = async (sql, params) => {
    sqls.push([sql, params]);
    return read(sql, params);
  };
  await queryHotspots(r2, filter);
  for (const [sql, params] of sqls) {
    const res = await c.runAndReadAll('EXPLAIN ANALYZE ' + sql, params);
    console.log(
      res
        .getRows()
        .map((r) => r[1])
        .join('\n'),
    );
  }
}
