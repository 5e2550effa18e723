import { effect, type ReadonlySignal, signal } from '@preact/signals';
import { ApiError, getJson, token } from './api.js';
import { lastUpdated, tick } from './live.js';

/**
 * What a resource holds: data survives refetches so live refresh never blanks the page, except a
 * 401 answer, which drops it; `url` names the request the data came from.
 */
export type ResourceState<T> =
  | { status: 'loading'; data?: T; url?: string }
  | { status: 'ok'; data: T; url: string }
  | { status: 'error'; error: ApiError; data?: T; url?: string };

/** A JSON endpoint bound to signals: refetches when its URL changes, and on every live tick. */
export interface Resource<T> {
  readonly state: ReadonlySignal<ResourceState<T>>;
  /** Stops fetching and aborts the request in flight. */
  dispose(): void;
}

/** Options of a resource. */
export interface ResourceOptions {
  /** Wait this long after the URL changes before fetching (typing in a filter). */
  debounceMs?: number;
  /** Refetch on live ticks (default true). */
  live?: boolean;
}

/**
 * Creates a resource. `url()` reads signals and returns the URL to GET, or null for nothing.
 * A new URL aborts the request in flight (AbortController) and is debounced; a live tick
 * refetches the same URL at once (unless its request is still in flight) and keeps the old data
 * until the answer arrives.
 */
export function createResource<T>(
  url: () => string | null,
  options: ResourceOptions = {},
): Resource<T> {
  const debounceMs = options.debounceMs ?? 200;
  const state = signal<ResourceState<T>>({ status: 'loading' });
  let controller: AbortController | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lastUrl: string | null = null;
  let lastToken = token.peek();
  /** The request of `lastUrl` (with `lastToken`) has not answered yet. */
  let pending = false;

  const run = (target: string) => {
    controller?.abort();
    const ctl = new AbortController();
    controller = ctl;
    pending = true;
    getJson<T>(target, ctl.signal).then(
      (data) => {
        if (ctl.signal.aborted) return;
        pending = false;
        state.value = { status: 'ok', data, url: target };
        lastUpdated.value = Date.now();
      },
      (err: unknown) => {
        if (ctl.signal.aborted) return;
        pending = false;
        const error = err instanceof ApiError ? err : new ApiError(0, String(err));
        // data fetched with a token the server no longer takes (forgotten, rotated) is dropped
        const { data, url } = error.status === 401 ? {} : state.peek();
        state.value = { status: 'error', error, data, url };
      },
    );
  };

  const stop = effect(() => {
    const target = url();
    const bearer = token.value;
    if (options.live !== false) tick.value;
    clearTimeout(timer);
    if (target === null) {
      controller?.abort();
      lastUrl = null;
      return;
    }
    if (target !== lastUrl) {
      lastUrl = target;
      controller?.abort();
      const { data, url } = state.peek();
      state.value = { status: 'loading', data, url };
      pending = false;
      timer = setTimeout(() => run(target), debounceMs);
    } else if (!pending || bearer !== lastToken) {
      // A tick while the same request is still on its way waits for it (a slow server would
      // otherwise see every poll aborted and restarted, and the page would never update).
      run(target);
    }
    lastToken = bearer;
  });

  return {
    state,
    dispose() {
      stop();
      clearTimeout(timer);
      controller?.abort();
    },
  };
}
