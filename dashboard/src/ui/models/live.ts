import { effect, signal } from '@preact/signals';

/** How often live mode refetches, in milliseconds. */
export const POLL_MS = 5000;

/** Whether the UI polls the API. */
export const live = signal(true);

/** Bumped on every poll; resources that read it refetch without clearing their data. */
export const tick = signal(0);

/** Epoch ms of the last completed fetch, for the "updated" label. */
export const lastUpdated = signal<number | undefined>(undefined);

effect(() => {
  if (!live.value) return;
  const timer = setInterval(() => {
    if (!document.hidden) tick.value++;
  }, POLL_MS);
  return () => clearInterval(timer);
});
