import type { Signal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import type { Page } from '../../api/types.js';
import type { ResourceState } from './resource.js';

/**
 * Moves a list whose page lies past its end (a link or reload of a list that has since shrunk) to
 * its last page, once the answer for `url` (the request of the current page) says how long it is.
 */
export function usePageInRange(
  offset: Signal<number>,
  state: ResourceState<Page<unknown>>,
  url: string,
  limit: number,
): void {
  useEffect(() => {
    if (state.status !== 'ok' || state.url !== url) return;
    const { total } = state.data;
    if (total > 0 && offset.peek() >= total) offset.value = Math.floor((total - 1) / limit) * limit;
  });
}
