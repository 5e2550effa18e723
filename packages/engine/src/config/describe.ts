import { inspect } from 'node:util';

/**
 * A value as a config message shows it: JSON where it has one, else what Node's inspect shows
 * (`10n`, `Infinity`, `<ref *1> { a: [Circular *1] }`). JSON wrote a non-finite number as `null`,
 * and threw on a bigint or on a cycle, which a YAML alias to itself makes.
 */
export function describe(value: unknown): string {
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  try {
    const json = JSON.stringify(value);
    if (json !== undefined) return json;
  } catch {
    // falls through to inspect
  }
  return inspect(value, { depth: 2, breakLength: Number.POSITIVE_INFINITY });
}
