import { batch, effect, signal } from '@preact/signals';
import { hashParams, hrefOf, parseHash, type Route } from '../routes.js';
import { applyViewParams, tableParams, viewParams } from './view-state.js';

/** The current route; follows hashchange. */
export const route = signal<Route>(parseHash(location.hash));

function followHash(): void {
  batch(() => {
    route.value = parseHash(location.hash);
    applyViewParams(hashParams(location.hash), route.value);
  });
}

followHash();
window.addEventListener('hashchange', followHash);

// The range, filters and a list's sort and page live in the hash too (reload and bookmarks keep
// them); a change of them replaces the current history entry instead of adding one.
effect(() => {
  const hash = hrefOf(route.value, { ...viewParams(), ...tableParams(route.value) });
  if (hash !== location.hash) history.replaceState(history.state, '', hash);
});

/**
 * The hash link of a route with the current range and filters (`overrides` win), and for a list
 * the sort it was left with and, when the link shows that same list, its page.
 */
export function linkTo(to: Route, overrides: Record<string, string> = {}): string {
  const view = { ...viewParams(), ...overrides };
  return hrefOf(to, { ...view, ...tableParams(to, view), ...overrides });
}

/** Goes to a route (adds a history entry), keeping the range and filters. */
export function navigate(to: Route, overrides: Record<string, string> = {}): void {
  location.hash = linkTo(to, overrides);
}
