import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { createGunzip } from 'node:zlib';
import { HttpError } from './errors.js';

/**
 * Largest request body accepted, after decompression: 20 MiB (`--max-body-bytes`), the OTLP/HTTP
 * receiver's default in the OpenTelemetry Collector, so nothing an exporter could send a
 * Collector is refused. Decoding and staging cost up to about 25 times a body's size in memory
 * (bench/hardening/memory.mjs).
 */
export const MAX_BODY_BYTES = 20 * 1024 * 1024;

/** How long a request body may take to arrive, whatever its rate: 60 s. */
export const BODY_TIMEOUT_MS = 60_000;

/** Slowest average rate a body may arrive at once its first BODY_GRACE_MS have passed: 16 KiB/s. */
export const MIN_BODY_BYTES_PER_SECOND = 16 * 1024;

/** How long a body may arrive at any rate before the minimum rate applies: 5 s. */
export const BODY_GRACE_MS = 5000;

/** Bounds of one body read; every field has the default of the constant of its name. */
export interface BodyLimits {
  /** Largest body after decompression. */
  maxBytes?: number;
  /** Longest time the whole body may take. */
  timeoutMs?: number;
  /** Slowest average rate (body bytes per second, after decompression) once `graceMs` have passed. */
  minBytesPerSecond?: number;
  graceMs?: number;
}

/** Options of `readBody`. */
export interface ReadBodyOptions extends BodyLimits {
  /** Told of each chunk (after decompression) before it is kept; may throw to stop the read. */
  reserve?: (bytes: number) => void;
}

/**
 * Reads a request body, inflating `Content-Encoding: gzip` as a stream and stopping as soon as
 * the output passes `maxBytes` (so a gzip bomb is cut off while inflating, not after). A body that
 * trickles (slower than `minBytesPerSecond` on average after `graceMs`, or longer than
 * `timeoutMs` in all) is answered 408, so a slow client cannot hold the receiver's memory or time.
 */
export async function readBody(req: Request, options: ReadBodyOptions = {}): Promise<Buffer> {
  const limit = options.maxBytes ?? MAX_BODY_BYTES;
  const encoding = (req.headers.get('content-encoding') ?? 'identity').trim().toLowerCase();
  if (!['identity', 'gzip', 'x-gzip', ''].includes(encoding)) {
    throw new HttpError(415, `unsupported Content-Encoding "${encoding}" (use gzip or none)`);
  }
  const declared = Number(req.headers.get('content-length') ?? '0');
  if (declared > limit) throw new HttpError(413, `body of ${declared} bytes exceeds ${limit}`);
  if (!req.body) return Buffer.alloc(0);
  const source = Readable.fromWeb(req.body as WebReadableStream<Uint8Array>);
  const gzip = encoding === 'gzip' || encoding === 'x-gzip';
  const gunzip = gzip ? createGunzip() : undefined;
  const stream: Readable = gunzip ?? source;
  const piping = gunzip ? pipeline(source, gunzip).catch(() => undefined) : undefined;
  const pace = new Pace(options);
  const chunks: Buffer[] = [];
  // progress counted after decompression: a gzip body inflates, so the rate is never under-counted
  let total = 0;
  const watch = setInterval(() => {
    const late = pace.late(total);
    if (late) stream.destroy(late);
  }, pace.checkEveryMs);
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > limit) {
        throw new HttpError(
          413,
          `body exceeds ${limit} bytes${gzip ? ' after decompression' : ''} (send smaller batches, ` +
            'or raise the limit with --max-body-bytes)',
        );
      }
      options.reserve?.(chunk.length);
      chunks.push(chunk);
    }
  } catch (error) {
    stream.destroy();
    source.destroy();
    if (error instanceof HttpError) throw error;
    throw new HttpError(
      400,
      gzip
        ? `invalid gzip body: ${String((error as Error).message)}`
        : `could not read body: ${String((error as Error).message)}`,
    );
  } finally {
    clearInterval(watch);
  }
  await piping;
  return Buffer.concat(chunks, total);
}

/** The deadline and minimum rate of one body read. */
class Pace {
  private readonly started = performance.now();
  private readonly timeoutMs: number;
  private readonly minRate: number;
  private readonly graceMs: number;
  readonly checkEveryMs: number;

  constructor(limits: BodyLimits) {
    this.timeoutMs = limits.timeoutMs ?? BODY_TIMEOUT_MS;
    this.minRate = limits.minBytesPerSecond ?? MIN_BODY_BYTES_PER_SECOND;
    this.graceMs = limits.graceMs ?? BODY_GRACE_MS;
    this.checkEveryMs = Math.max(10, Math.min(1000, this.graceMs / 2, this.timeoutMs / 2));
  }

  /** The 408 to answer when `received` bytes came too slowly so far, else undefined. */
  late(received: number): HttpError | undefined {
    const elapsed = performance.now() - this.started;
    if (elapsed > this.timeoutMs) {
      return new HttpError(408, `request body not received within ${this.timeoutMs} ms`);
    }
    if (elapsed > this.graceMs && received < (this.minRate * elapsed) / 1000) {
      return new HttpError(
        408,
        `request body arriving too slowly (${Math.round((received * 1000) / elapsed)} bytes/s; ` +
          `at least ${this.minRate} bytes/s after the first ${this.graceMs} ms)`,
      );
    }
    return undefined;
  }
}
