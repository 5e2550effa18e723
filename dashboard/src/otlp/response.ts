/** Encodes a string or varint field of a protobuf message. */
function varint(n: number): number[] {
  const out: number[] = [];
  let v = n;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
  return out;
}

function lenField(field: number, bytes: Uint8Array | number[]): number[] {
  return [(field << 3) | 2, ...varint(bytes.length), ...bytes];
}

/** ExportTraceServiceResponse as protobuf; partial_success only when spans were rejected. */
export function encodeExportResponse(rejected: number, message: string): Uint8Array<ArrayBuffer> {
  if (rejected === 0 && message === '') return new Uint8Array(0);
  const partial = [
    ...(rejected ? [(1 << 3) | 0, ...varint(rejected)] : []),
    ...(message ? lenField(2, Buffer.from(message, 'utf8')) : []),
  ];
  return Uint8Array.from(lenField(1, partial));
}

/** ExportTraceServiceResponse as OTLP/JSON. */
export function exportResponseJson(rejected: number, message: string): Record<string, unknown> {
  if (rejected === 0 && message === '') return {};
  return { partialSuccess: { rejectedSpans: String(rejected), errorMessage: message } };
}

/** google.rpc.Status as protobuf (the body of OTLP error responses). */
export function encodeStatus(code: number, message: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from([
    (1 << 3) | 0,
    ...varint(code),
    ...lenField(2, Buffer.from(message, 'utf8')),
  ]);
}
