import { type JsonBytes, objectWriter, type RowWriter } from './json-bytes.js';

// A staged NDJSON row's columns are declared once, each with its key in the line, the DuckDB type
// read_json reads it as and the table column it is loaded into; the row's writer, read_json's
// column spec and the SELECT list are derived from them (the writer once, when it is declared).

/** One column of a staged row, written by its own function. */
export interface StagedColumn<O extends JsonBytes, A extends unknown[]> {
  /** Its key in the line (plain ASCII). */
  readonly key: string;
  /** The DuckDB type read_json reads its value as. */
  readonly type: string;
  /** The table column it is loaded into; default the key. */
  readonly column?: string;
  /** Writes its value. */
  readonly write: RowWriter<O, A>;
}

/**
 * Columns written by one function around their writer (`wrap` gets the writer of the columns,
 * keys and leading commas included), e.g. to copy their bytes from the line before.
 */
export interface StagedRun<O extends JsonBytes, A extends unknown[]> {
  readonly columns: readonly StagedColumn<O, A>[];
  readonly wrap: (writeColumns: RowWriter<O, A>) => RowWriter<O, A>;
}

/** A staged row: its columns, its writer and the SQL that reads its files. */
export interface StagedShape<O extends JsonBytes, A extends unknown[]> {
  /** Key, type and table column of each column, in line order. */
  readonly columns: readonly { key: string; type: string; column: string }[];
  /** Writes a row as a JSON object (no newline). */
  readonly write: RowWriter<O, A>;
  /** The columns as read_json's `columns` struct. */
  readonly jsonColumns: string;
  /** The keys, in order, as a SELECT list. */
  readonly keys: string;
  /** Each key as its table column (`key AS "Column"`), as a SELECT list. */
  readonly select: string;
  /** The table columns, quoted, as an INSERT's column list. */
  readonly targets: string;
  /** The row as a DuckDB STRUCT type, keys as its fields (for a list of rows inside a column). */
  readonly struct: string;
}

function shapeOf<O extends JsonBytes, A extends unknown[]>(
  columns: readonly { key: string; type: string; column?: string }[],
  write: RowWriter<O, A>,
): StagedShape<O, A> {
  const cols = columns.map(({ key, type, column }) => ({ key, type, column: column ?? key }));
  const sqlText = (text: string) => `'${text.replaceAll("'", "''")}'`;
  return {
    columns: cols,
    write,
    jsonColumns: cols.map((c) => `${c.key}: ${sqlText(c.type)}`).join(', '),
    keys: cols.map((c) => c.key).join(', '),
    select: cols.map((c) => `${c.key} AS "${c.column}"`).join(', '),
    targets: cols.map((c) => `"${c.column}"`).join(', '),
    struct: `STRUCT(${cols.map((c) => `"${c.key}" ${c.type}`).join(', ')})`,
  };
}

/** A staged row of columns (and runs of columns) written by their own functions, in this order. */
export function stagedRow<O extends JsonBytes, A extends unknown[]>(
  parts: readonly (StagedColumn<O, A> | StagedRun<O, A>)[],
): StagedShape<O, A> {
  const members = parts.map((p) =>
    'wrap' in p ? { write: p.wrap(objectWriter(p.columns, false)) } : p,
  );
  const columns = parts.flatMap((p) => ('wrap' in p ? p.columns : [p]));
  return shapeOf(columns, objectWriter<O, A>(members));
}

/** The integer DuckDB types a staged number is read as. */
type IntegerType = 'BIGINT' | 'INTEGER' | 'TINYINT';

/**
 * The columns of a flat row type, in the order its rows are built: each property's DuckDB type
 * (VARCHAR for a string, an integer type for a number) and the table column it is loaded into.
 */
export type FlatColumns<R> = {
  readonly [K in keyof R]-?: readonly [
    R[K] extends string ? 'VARCHAR' : R[K] extends number ? IntegerType : never,
    string,
  ];
};

/** A staged flat row: each property of `R` under its own name, in the order declared. */
export function flatRow<R extends object>(columns: FlatColumns<R>): StagedShape<JsonBytes, [R]> {
  const entries = Object.entries(columns) as [keyof R & string, readonly [string, string]][];
  const write = objectWriter<JsonBytes, [R]>(
    entries.map(([key, [type]]) => ({
      key,
      field: key,
      as: type === 'VARCHAR' ? 'string' : 'number',
    })),
  );
  return shapeOf(
    entries.map(([key, [type, column]]) => ({ key, type, column })),
    write,
  );
}

/**
 * read_json's `maximum_object_size` for a staged file whose longest line has `longestLine` bytes:
 * that line and its newline, rounded up to whole MiB (its default of 16 MiB refuses longer lines;
 * DuckDB allocates a buffer of this size, so slack costs memory as large as the line).
 */
export function objectSize(longestLine: number): number {
  const MiB = 1 << 20;
  return Math.max(1, Math.ceil((longestLine + 2) / MiB)) * MiB;
}

/**
 * `read_json` of staged NDJSON files of a shape (the paths bound as literals, quotes doubled);
 * `longestLine` is the longest line's bytes in any of them.
 */
export function readStaged(
  shape: { readonly jsonColumns: string },
  files: readonly string[],
  longestLine: number,
): string {
  const list = files.map((file) => `'${file.replaceAll("'", "''")}'`).join(', ');
  return `read_json([${list}], format = 'newline_delimited', maximum_object_size = ${objectSize(longestLine)}, columns = {${shape.jsonColumns}})`;
}
