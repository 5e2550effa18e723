// Tool-call spans of other instrumentations (OpenTelemetry GenAI, the AI SDK, OpenInference,
// OpenLLMetry) read as tool calls: the one mapper the dashboard's detection, `loopguard replay
// --otlp` and `loopguard eval` share.

export type { ToolCallConvention, ToolCallSource } from './conventions.js';
export {
  DETECTED_BY,
  DETECTED_BY_DASHBOARD,
  DETECTED_SOURCE,
  TOOL_CALL_CONVENTIONS,
} from './conventions.js';
export { LoopguardToolSpans } from './cover.js';
export type { EngineCall, ForeignToolCall, SpanToolCall } from './map.js';
export { conventionFor, engineCallOf, hasLoopguardDecision, mapToolCall } from './map.js';
