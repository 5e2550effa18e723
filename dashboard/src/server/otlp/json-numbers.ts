/**
 * Numbers of the OTLP/JSON (ProtoJSON) encoding: int64/uint64 fields and doubles may be JSON
 * numbers or strings, strings in exponent form included ("1e3", "1.5e2").
 */

const DECIMAL_RE = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;
const PLAIN_RE = /^-?\d+$/;
const NUMBER_RE = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const NONZERO_RE = /[1-9]/;
const SPECIAL_DOUBLES = new Set(['NaN', 'Infinity', '-Infinity']);

/**
 * The integer a ProtoJSON integer denotes: a JSON integer, or a decimal string that may carry a
 * fraction and exponent as long as the value is whole. Undefined when it is not an integer, or
 * an exponent form beyond 20 digits (no 64-bit value needs more).
 */
export function parseInteger(value: unknown): bigint | undefined {
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : undefined;
  if (typeof value !== 'string') return undefined;
  if (PLAIN_RE.test(value)) return BigInt(value);
  const m = DECIMAL_RE.exec(value);
  if (!m) return undefined;
  const frac = m[3] ?? '';
  let digits = (m[2] ?? '') + frac;
  let shift = Number(m[4] ?? 0) - frac.length;
  if (shift < 0) {
    const keep = Math.max(digits.length + shift, 0);
    if (NONZERO_RE.test(digits.slice(keep))) return undefined;
    digits = digits.slice(0, keep) || '0';
    shift = 0;
  }
  const significant = digits.replace(/^0+/, '');
  if (significant === '') return 0n;
  if (significant.length + shift > 20) return undefined;
  const n = BigInt(significant) * 10n ** BigInt(shift);
  return m[1] === '-' ? -n : n;
}

/** The double a ProtoJSON double denotes (a JSON number, a numeric string, NaN, ±Infinity). */
export function parseDouble(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && (NUMBER_RE.test(value) || SPECIAL_DOUBLES.has(value)))
    return Number(value);
  return undefined;
}
