import { signal } from '@preact/signals';
import { hrefOf, parseHash, type Route } from '../routes.js';

/** The current route; follows hashchange. */
export const route = signal<Route>(parseHash(location.hash));

window.addEventListener('hashchange', () => {
  route.value = parseHash(location.hash);
});

/** Goes to a route (adds a history entry). */
export function navigate(to: Route): void {
  location.hash = hrefOf(to);
}
