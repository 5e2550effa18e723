import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DELTA_SCHEMA_SQL } from '../src/store/duckdb/rollups/deltas.js';
import { SCHEMA_SQL } from '../src/store/duckdb/schema.js';
import { SPAN_LINE } from '../src/store/duckdb/write/stage.js';
import {
  COUNTER_ROW,
  HALTED_ROW,
  ROLLUP_ROW,
  SESSION_ROW,
} from '../src/store/duckdb/write/staged-rows.js';

// Each staged row declares its columns once (key, read_json type, table column); the tables are
// declared in the DDL. Both must agree, column for column and type for type, in the tables' order
// (the delta rows are inserted by name, the folds name their columns; the order is kept so that
// a table and its delta read alike).

let instance: DuckDBInstance;
let columnsOf: (table: string) => Promise<[string, string][]>;

beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:');
  const c = await instance.connect();
  await c.run(SCHEMA_SQL);
  await c.run(DELTA_SCHEMA_SQL);
  columnsOf = async (table) =>
    (await c.runAndReadAll(`DESCRIBE ${table}`))
      .getRowObjectsJS()
      .map((r) => [String(r.column_name), unquoted(String(r.column_type))]);
});
afterAll(() => instance.closeSync());

/** A type as DuckDB prints it (it quotes only the struct fields that need it). */
const unquoted = (type: string) => type.replaceAll('"', '');

const declared = (shape: { columns: readonly { column: string; type: string }[] }) =>
  shape.columns.map((c): [string, string] => [c.column, unquoted(c.type)]);

describe('staged rows', () => {
  it('have the columns and types of otel_traces, the hotspot key aside', async () => {
    expect([...declared(SPAN_LINE), ['HotspotKey', 'UHUGEINT']]).toEqual(
      await columnsOf('otel_traces'),
    );
  });

  it('have the columns and types of the delta tables and the halted scopes, in order', async () => {
    // the hotspot delta has the hourly table's layout: the key (computed in SQL, not staged)
    // after SampleArgs, before the finding columns
    const rollup = declared(ROLLUP_ROW);
    const afterArgs = rollup.findIndex(([c]) => c === 'SampleArgs') + 1;
    expect(afterArgs).toBeGreaterThan(0);
    rollup.splice(afterArgs, 0, ['Key', 'UHUGEINT']);
    expect(rollup).toEqual(await columnsOf('loopguard_hotspots_delta'));
    expect(declared(SESSION_ROW)).toEqual(await columnsOf('loopguard_sessions_delta'));
    expect(declared(COUNTER_ROW)).toEqual(await columnsOf('loopguard_counters_delta'));
    expect(declared(HALTED_ROW)).toEqual(await columnsOf('loopguard_halted_scopes'));
  });
});
