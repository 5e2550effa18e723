// The one OTLP reader: trace export requests as protobuf or OTLP/JSON, decoded to SpanRecords,
// and the export responses. The store, the server and the CLI (`@loopguard/dashboard/otlp`)
// import it through this face only.

export type {
  EngineCall,
  ForeignToolCall,
  SpanToolCall,
  ToolCallConvention,
  ToolCallSource,
} from './genai/index.js';
export {
  conventionFor,
  DETECTED_BY,
  DETECTED_BY_DASHBOARD,
  DETECTED_SOURCE,
  engineCallOf,
  hasLoopguardDecision,
  LoopguardToolSpans,
  mapToolCall,
  TOOL_CALL_CONVENTIONS,
} from './genai/index.js';
export type { JsonReadOptions } from './json.js';
export { decodeJsonRequest } from './json.js';
export type { DecodedSpans, RejectReason } from './model.js';
export { OtlpFormatError, REJECT_REASONS, rejectionMessage } from './model.js';
export { decodeProtobufRequest, ProtobufDecoder } from './protobuf.js';
export { encodeExportResponse, encodeStatus, exportResponseJson } from './response.js';
export type { SpanRecord } from './span.js';
