/** How long repeats of one error message are counted instead of printed. */
export const REPEAT_WINDOW_MS = 60_000;

/**
 * A reporter that prints an error the first time its message (numbers aside) is seen, then at most
 * once per `windowMs` while it repeats, saying how many repeats it held back (a full disk fails every insert,
 * and exporters retry every second).
 */
export function quietRepeats(
  print: (...args: unknown[]) => void,
  windowMs = REPEAT_WINDOW_MS,
  now: () => number = Date.now,
): (error: unknown) => void {
  const seen = new Map<string, { printedAt: number; held: number }>();
  return (error) => {
    const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    // numbers aside: the store's errors name a staging file of their own each time
    const message = text.replace(/\d+/g, '#');
    const t = now();
    const entry = seen.get(message);
    if (entry !== undefined && t - entry.printedAt < windowMs) {
      entry.held++;
      return;
    }
    const held = entry?.held ?? 0;
    if (seen.size >= 100 && entry === undefined) seen.clear();
    seen.set(message, { printedAt: t, held: 0 });
    const suffix = held > 0 ? ` (and ${held} more times since it was last printed)` : '';
    print(`loopguard dashboard${suffix}:`, error);
  };
}
