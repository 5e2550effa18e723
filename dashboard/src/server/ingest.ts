import { isUtf8 } from 'node:buffer';
import { Hono } from 'hono';
import {
  type DecodedSpans,
  decodeJsonRequest,
  encodeExportResponse,
  encodeStatus,
  exportResponseJson,
  OtlpFormatError,
  ProtobufDecoder,
  rejectionMessage,
} from '../otlp/index.js';
import type { Store } from '../store/index.js';
import { type BodyLimits, readBody } from './body.js';
import { HttpError, methodNotAllowed } from './errors.js';
import type { InsertHealth } from './insert-health.js';
import type { IngestVariables } from './middleware.js';

/** The OTLP payload encodings the receiver accepts. */
export type OtlpEncoding = 'json' | 'protobuf';

/** The encoding of a Content-Type header, or undefined when unsupported. */
export function otlpEncoding(contentType: string | undefined): OtlpEncoding | undefined {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json') return 'json';
  if (type === 'application/x-protobuf' || type === 'application/protobuf') return 'protobuf';
  return undefined;
}

const GRPC_CODE: Record<number, number> = {
  400: 3,
  401: 16,
  403: 7,
  404: 12,
  405: 12,
  408: 4,
  413: 8,
  415: 3,
  429: 8,
  503: 14,
};

/**
 * Why OTLP metrics and logs are refused: an agent pointed at the dashboard with
 * OTEL_EXPORTER_OTLP_ENDPOINT sends them to the same host as its traces.
 */
function signalNotServed(signal: string): string {
  return (
    `this loopguard dashboard receives traces only (POST /v1/traces), not ${signal}; it derives ` +
    "loopguard's metrics from the spans at GET /metrics. Send OTLP metrics and logs to an " +
    'OpenTelemetry Collector, or turn their export off in the agent: OTEL_METRICS_EXPORTER=none ' +
    'OTEL_LOGS_EXPORTER=none'
  );
}

/** An OTLP error response (google.rpc.Status) in the request's encoding. */
export function otlpErrorResponse(
  req: Request,
  status: number,
  message: string,
  headers: Record<string, string>,
): Response {
  const code = GRPC_CODE[status] ?? 13;
  if (otlpEncoding(req.headers.get('content-type') ?? undefined) === 'protobuf') {
    return new Response(encodeStatus(code, message), {
      status,
      headers: { ...headers, 'Content-Type': 'application/x-protobuf' },
    });
  }
  return Response.json({ code, message }, { status, headers });
}

function decode(encoding: OtlpEncoding, body: Buffer, protobuf: ProtobufDecoder): DecodedSpans {
  try {
    if (encoding === 'protobuf') return protobuf.decode(body);
    // JSON text is UTF-8 (RFC 8259); decoding would replace other bytes with U+FFFD unseen
    if (!isUtf8(body)) throw new OtlpFormatError('invalid JSON: the body is not valid UTF-8');
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch (error) {
      throw new OtlpFormatError(`invalid JSON: ${(error as Error).message}`);
    }
    return decodeJsonRequest(parsed);
  } catch (error) {
    if (error instanceof OtlpFormatError) throw new HttpError(400, error.message);
    if (error instanceof RangeError)
      throw new HttpError(400, `malformed request: ${error.message}`);
    throw error;
  }
}

/** Options of the OTLP receiver. */
export interface IngestOptions {
  /** Size, deadline and minimum rate of a request body. */
  bodyLimits?: BodyLimits;
  /** Reports a failed insert (answered with a generic 503): the app's reporter. */
  onStoreError: (error: unknown) => void;
  /** Where each insert's outcome is recorded for `/healthz`. */
  health: InsertHealth;
}

/** `POST /v1/traces`: OTLP/HTTP trace receiver. A 200 means the spans are committed. */
export function ingestRoutes(
  store: Store,
  options: IngestOptions,
): Hono<{ Variables: IngestVariables }> {
  const app = new Hono<{ Variables: IngestVariables }>();
  const report = options.onStoreError;
  const protobuf = new ProtobufDecoder();
  app.post('/v1/traces', async (c) => {
    const encoding = otlpEncoding(c.req.header('content-type'));
    if (!encoding) {
      throw new HttpError(
        415,
        `unsupported Content-Type "${c.req.header('content-type') ?? ''}" (use application/json or application/x-protobuf)`,
      );
    }
    const body = await readBody(c.req.raw, {
      ...options.bodyLimits,
      reserve: c.get('reserveBody'),
    });
    c.get('admit')();
    const decoded = decode(encoding, body, protobuf);
    let rejected = 0;
    for (const count of decoded.rejected.values()) rejected += count;
    if (decoded.spans.length || rejected) {
      try {
        await store.insert(decoded.spans, decoded.rejected);
        options.health.committed();
      } catch (error) {
        options.health.failed();
        report(error);
        throw new HttpError(503, 'store unavailable, retry later', { 'Retry-After': '1' });
      }
    }
    const message = rejectionMessage(decoded.rejected);
    if (encoding === 'protobuf') {
      return c.body(encodeExportResponse(rejected, message), 200, {
        'Content-Type': 'application/x-protobuf',
      });
    }
    return c.json(exportResponseJson(rejected, message));
  });
  app.all('/v1/traces', methodNotAllowed('POST'));
  app.all('/v1/:signal{metrics|logs}', (c) => {
    throw new HttpError(404, signalNotServed(c.req.param('signal')));
  });
  return app;
}
