// Attribute values as the Collector's ClickHouse exporter stores them: AnyValue flattened to text.
// Both readers (JSON and protobuf) decode an AnyValue to a JavaScript value (a string, boolean,
// bigint for int64, number for double, array or plain object) and flatten it here.

/** Formats a double the way the exporter's AsString does (shortest round-trip form). */
export function doubleString(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Number.POSITIVE_INFINITY) return '+Inf';
  if (value === Number.NEGATIVE_INFINITY) return '-Inf';
  return String(value);
}

/** Attribute value as the exporter stores it: scalars as text, arrays and maps as JSON. */
export function valueString(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') return doubleString(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return jsonText(value);
}

/**
 * JSON text of a decoded array or map, int64 values written exactly, and NaN and ±Infinity (which
 * JSON has no number for; JSON.stringify writes null) as strings in the scalar text: "NaN", "+Inf".
 */
function jsonText(value: unknown): string {
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number' && !Number.isFinite(value)) return `"${doubleString(value)}"`;
  if (Array.isArray(value)) return `[${value.map(jsonText).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const parts = Object.keys(record).map((k) => `${JSON.stringify(k)}:${jsonText(record[k])}`);
    return `{${parts.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
