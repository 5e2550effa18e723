export type { AiSdkGuardOptions } from './adapters/ai-sdk/index.js';
export {
  guardAiSdkTools,
  guardedAiSdkExports,
  loopHalted,
  patchAiSdk,
  ToolCallBlockedError,
} from './adapters/ai-sdk/index.js';
export type { LangChainGuardOptions, LangChainToolLike } from './adapters/langchain/index.js';
export {
  guardLangChainTool,
  loopguardMiddleware,
  patchLangChain,
} from './adapters/langchain/index.js';
export type {
  McpCallToolParamsLike,
  McpCallToolResultLike,
  McpClientLike,
  McpInstrumentOptions,
} from './adapters/mcp/index.js';
export {
  instrumentMcpClient,
  mcpResultAdapter,
  patchMcpClientClass,
} from './adapters/mcp/index.js';
export type { AgentsGuardOptions, AgentsToolCallDetails } from './adapters/openai-agents/index.js';
export {
  AGENTS_DEFAULT_TOOL_ERROR,
  guardAgentsTool,
  patchOpenAIAgents,
} from './adapters/openai-agents/index.js';
export type { GuardToolOptions } from './adapters/plain.js';
export { guardTool } from './adapters/plain.js';
export { defaultRedact } from './capture.js';
export { defaultResultAdapter } from './default-adapter.js';
export { LoopHaltError, loopHaltOf } from './errors.js';
export { createGuard, getGuard, setGuard } from './guard.js';
export { LoopguardInstrumentation } from './instrumentation.js';
export { withScope } from './scope.js';
export {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_AGENT_ID,
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_TOOL_TYPE,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_LOOPGUARD_ACTION,
  ATTR_LOOPGUARD_ARGS_HASH,
  ATTR_LOOPGUARD_AXIS,
  ATTR_LOOPGUARD_COUNT,
  ATTR_LOOPGUARD_MESSAGE,
  ATTR_LOOPGUARD_NUDGE_LEVEL,
  ATTR_LOOPGUARD_OUTCOME,
  ATTR_LOOPGUARD_RUN_HALT_AXIS,
  ATTR_LOOPGUARD_RUN_HALT_SIGNATURE,
  ATTR_LOOPGUARD_RUN_OUTCOME,
  ATTR_LOOPGUARD_SCOPE,
  ATTR_LOOPGUARD_SEQUENCE,
  ATTR_LOOPGUARD_SIGNATURE,
  ATTR_LOOPGUARD_STEP_ID,
  ATTR_LOOPGUARD_STREAK,
  ATTR_LOOPGUARD_THRESHOLD,
  ERROR_TYPE_BLOCKED,
  EVENT_LOOPGUARD_BLOCK,
  EVENT_LOOPGUARD_HALT,
  EVENT_LOOPGUARD_NUDGE,
  EVENT_LOOPGUARD_WARN,
  GEN_AI_OPERATION_INVOKE_AGENT,
  METRIC_GEN_AI_EXECUTE_TOOL_DURATION,
  METRIC_LOOPGUARD_DECISIONS,
  METRIC_LOOPGUARD_STREAK_LENGTH,
  METRIC_LOOPGUARD_TOOL_CALLS,
} from './semconv.js';
export type {
  CaptureOptions,
  Guard,
  GuardOptions,
  LoopguardInstrumentationConfig,
  ModelStep,
  ResultAdapter,
  TokenUsage,
  ToolCallInfo,
  WrapOptions,
} from './types.js';
