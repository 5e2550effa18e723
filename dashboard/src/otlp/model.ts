import type { SpanRecord } from './span.js';

/** Spans decoded from one export request, and the spans rejected with why. */
export interface DecodedSpans {
  spans: SpanRecord[];
  rejected: Map<string, number>;
}

/** A malformed request: the whole body is refused with this reason. */
export class OtlpFormatError extends Error {
  override name = 'OtlpFormatError';
}

/** Span kind enum values, spelled as the ClickHouse exporter writes them. */
export const SPAN_KINDS = ['Unspecified', 'Internal', 'Server', 'Client', 'Producer', 'Consumer'];

/** Status code enum values, spelled as the ClickHouse exporter writes them. */
export const STATUS_CODES = ['Unset', 'Ok', 'Error'];

/** Reasons a single span is rejected (label values of loopguard_rejected_spans_total). */
export const REJECT_REASONS = [
  'invalid_trace_id',
  'invalid_span_id',
  'invalid_parent_span_id',
] as const;

/** One reason a span is rejected. */
export type RejectReason = (typeof REJECT_REASONS)[number];

const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

/** Checks the ids of a decoded span; undefined when it is valid. */
export function checkIds(span: SpanRecord): RejectReason | undefined {
  if (span.traceId.length !== 32 || span.traceId === ZERO_TRACE) return 'invalid_trace_id';
  if (span.spanId.length !== 16 || span.spanId === ZERO_SPAN) return 'invalid_span_id';
  if (span.parentSpanId !== '' && span.parentSpanId.length !== 16) return 'invalid_parent_span_id';
  return undefined;
}

/** Adds a span to the result, or counts it as rejected. */
export function accept(out: DecodedSpans, span: SpanRecord): void {
  const reason = checkIds(span);
  if (reason === undefined) out.spans.push(span);
  else out.rejected.set(reason, (out.rejected.get(reason) ?? 0) + 1);
}

/** A human summary of the rejected spans, for partial_success.error_message. */
export function rejectionMessage(rejected: Map<string, number>): string {
  return [...rejected].map(([reason, n]) => `${n} span(s) rejected: ${reason}`).join('; ');
}
