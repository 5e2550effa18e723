import { effect, type Signal, signal } from '@preact/signals';
import type { Params } from './api.js';
import { filterParams } from './filters.js';

/** Rows per page of every server-side paged table. */
export const PAGE_SIZE = 50;

/** Sort and paging state of one table; the offset goes back to 0 whenever filters change. */
export interface TableState<K extends string> {
  sort: Signal<K>;
  order: Signal<'asc' | 'desc'>;
  offset: Signal<number>;
  /** Range, filters, sort and page as query parameters (reads the signals). */
  params(extra?: Params): Params;
  /** Sorts by a column; a second click flips the order. */
  toggleSort(key: K): void;
  /** Sets sort, order and offset from a link or history entry, kept through its filter change. */
  restore(sort: K, order: 'asc' | 'desc', offset: number): void;
}

/** Creates the state of a table, sorted by `sort` descending at first. */
export function createTableState<K extends string>(sort: K): TableState<K> {
  /** The filters the offset belongs to. */
  let filters = '';
  const state: TableState<K> = {
    sort: signal(sort),
    order: signal<'asc' | 'desc'>('desc'),
    offset: signal(0),
    params(extra = {}) {
      return {
        ...filterParams(),
        ...extra,
        sort: state.sort.value,
        order: state.order.value,
        limit: PAGE_SIZE,
        offset: state.offset.value,
      };
    },
    toggleSort(key) {
      if (state.sort.peek() === key) {
        state.order.value = state.order.peek() === 'desc' ? 'asc' : 'desc';
      } else {
        state.sort.value = key;
        state.order.value = 'desc';
      }
      state.offset.value = 0;
    },
    restore(sort, order, offset) {
      filters = JSON.stringify(filterParams());
      state.sort.value = sort;
      state.order.value = order;
      state.offset.value = offset;
    },
  };
  effect(() => {
    const next = JSON.stringify(filterParams());
    if (next === filters) return;
    filters = next;
    state.offset.value = 0;
  });
  return state;
}
