import type { ComponentChildren } from 'preact';
import type { TableState } from '../models/table.js';

/** One column: `key` is also the server-side sort name. */
export interface Column<T, K extends string> {
  key: K;
  label: string;
  numeric?: boolean;
  /** Column can be sorted by the server (default true). */
  sortable?: boolean;
  title?: string;
  render: (row: T) => ComponentChildren;
}

/** Where the mouse button went down last, to tell a click from a drag that selected text. */
let downAt = { x: 0, y: 0 };

function pressed(e: MouseEvent): void {
  downAt = { x: e.clientX, y: e.clientY };
}

/**
 * The click ended a drag (selecting text, to copy a signature) rather than a click in place; a
 * click without a pointer (`detail` 0: keyboard, assistive technology) never is.
 */
function dragged(e: MouseEvent): boolean {
  return e.detail > 0 && Math.hypot(e.clientX - downAt.x, e.clientY - downAt.y) > 4;
}

/**
 * A dense table with server-side sorting (headers are buttons, aria-sort set); `onRowClick` opens
 * a row on a click, not on a drag that selected text.
 */
export function DataTable<T, K extends string>(props: {
  label: string;
  columns: Column<T, K>[];
  rows: T[];
  rowKey: (row: T) => string;
  table: TableState<K>;
  onRowClick?: (row: T) => void;
  busy?: boolean;
}) {
  const { columns, rows, table, onRowClick } = props;
  const sort = table.sort.value;
  const order = table.order.value;
  return (
    <div class="table-wrap">
      <table class={`data-table${onRowClick ? ' clickable' : ''}`} aria-busy={props.busy}>
        <caption class="sr-only">{props.label}</caption>
        <thead>
          <tr>
            {columns.map((c) => {
              const sorted = c.key === sort;
              const ariaSort = sorted ? (order === 'asc' ? 'ascending' : 'descending') : 'none';
              return (
                <th
                  key={c.key}
                  scope="col"
                  class={c.numeric ? 'num' : undefined}
                  aria-sort={c.sortable === false ? undefined : ariaSort}
                  title={c.title}
                >
                  {c.sortable === false ? (
                    c.label
                  ) : (
                    <button type="button" class="sort" onClick={() => table.toggleSort(c.key)}>
                      {c.label}
                      <span class="sort-arrow" aria-hidden="true">
                        {sorted ? (order === 'asc' ? '▲' : '▼') : ''}
                      </span>
                    </button>
                  )}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr
              key={props.rowKey(row)}
              onMouseDown={pressed}
              onClick={
                onRowClick
                  ? (e) => {
                      if (!dragged(e) && !(e.target as Element).closest('a, button'))
                        onRowClick(row);
                    }
                  : undefined
              }
            >
              {columns.map((c) => (
                <td key={c.key} class={c.numeric ? 'num' : undefined}>
                  {c.render(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
