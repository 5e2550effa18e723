import { signal } from '@preact/signals';
import type { LoopAction } from '../../api/types.js';
import type { Params } from './api.js';
import { range, rangeParams } from './range.js';

/** Every loopguard action, weakest first. */
export const ACTIONS: readonly LoopAction[] = ['allow', 'nudge', 'warn', 'block', 'halt'];

/** Service filter ('' = all). */
export const service = signal('');
/** Tool filter ('' = all). */
export const tool = signal('');
/** Action filter ('' = all). */
export const action = signal<LoopAction | ''>('');
/** Free-text search over scope / signature / tool. */
export const search = signal('');

/** Range and filter parameters shared by every list query (reads the signals). */
export function filterParams(): Params {
  return {
    ...rangeParams(range.value),
    service: service.value,
    tool: tool.value,
    action: action.value,
    search: search.value.trim(),
  };
}

/** Clears service, tool, action and search. */
export function clearFilters(): void {
  service.value = '';
  tool.value = '';
  action.value = '';
  search.value = '';
}

/** True when any filter besides the range is set. */
export function hasFilters(): boolean {
  return Boolean(service.value || tool.value || action.value || search.value.trim());
}
