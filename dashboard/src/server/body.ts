import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { createGunzip } from 'node:zlib';
import { HttpError } from './errors.js';

/** Largest request body accepted, after decompression: 64 MiB. */
export const MAX_BODY_BYTES = 64 * 1024 * 1024;

/**
 * Reads a request body, inflating `Content-Encoding: gzip` as a stream and stopping as soon as
 * the output passes `limit` (so a gzip bomb is cut off while inflating, not after). `reserve` is
 * told of each chunk before it is kept, and may throw to stop the read.
 */
export async function readBody(
  req: Request,
  limit = MAX_BODY_BYTES,
  reserve?: (bytes: number) => void,
): Promise<Buffer> {
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
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > limit) {
        throw new HttpError(
          413,
          `body exceeds ${limit} bytes${gzip ? ' after decompression' : ''}`,
        );
      }
      reserve?.(chunk.length);
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
  }
  await piping;
  return Buffer.concat(chunks, total);
}
