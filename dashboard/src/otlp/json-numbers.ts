/**
 * Numbers of the OTLP/JSON (ProtoJSON) encoding: int64/uint64 fields and doubles may be JSON
 * numbers or strings, strings in exponent form included ("1e3", "1.5e2").
 */

const DECIMAL_RE = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;
const PLAIN_RE = /^-?\d+$/;
const NUMBER_RE = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const NONZERO_RE = /[1-9]/;
const SPECIAL_DOUBLES = new Set(['NaN', 'Infinity', '-Infinity']);

/** Most significant digits a 64-bit value has (2^64 - 1 has 20). */
const MAX_DIGITS = 20;

/** True when a plain decimal string has more significant digits than a 64-bit value. */
function tooLong(plain: string): boolean {
  const start = plain.charCodeAt(0) === 45 ? 1 : 0;
  if (plain.length - start <= MAX_DIGITS) return false;
  let first = start;
  while (first < plain.length && plain.charCodeAt(first) === 48) first++;
  return plain.length - first > MAX_DIGITS;
}

/**
 * The integer a ProtoJSON integer denotes: a JSON integer, or a decimal string that may carry a
 * fraction and exponent as long as the value is whole. Undefined when it is not an integer, or
 * has more than 20 significant digits in either form (no 64-bit value needs more, and parsing a
 * megabyte of digits into a BigInt would hold the event loop for seconds).
 */
export function parseInteger(value: unknown): bigint | undefined {
  if (typeof value === 'number')
    return Number.isInteger(value) && Math.abs(value) < 1e20 ? BigInt(value) : undefined;
  if (typeof value !== 'string') return undefined;
  if (PLAIN_RE.test(value)) return tooLong(value) ? undefined : BigInt(value);
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
  if (significant.length + shift > MAX_DIGITS) return undefined;
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
