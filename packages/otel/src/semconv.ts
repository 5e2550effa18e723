/**
 * Attribute, event and metric names. The GenAI names are copied from the (still incubating)
 * OpenTelemetry GenAI semantic conventions so nothing imports `incubating` at runtime; the
 * `loopguard.*` names are the project's contract (docs/telemetry.md).
 */

/** `gen_ai.operation.name` */
export const ATTR_GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
/** `gen_ai.tool.name` */
export const ATTR_GEN_AI_TOOL_NAME = 'gen_ai.tool.name';
/** `gen_ai.tool.call.id` */
export const ATTR_GEN_AI_TOOL_CALL_ID = 'gen_ai.tool.call.id';
/** `gen_ai.tool.type` */
export const ATTR_GEN_AI_TOOL_TYPE = 'gen_ai.tool.type';
/** `gen_ai.conversation.id` */
export const ATTR_GEN_AI_CONVERSATION_ID = 'gen_ai.conversation.id';
/** `gen_ai.agent.name` */
export const ATTR_GEN_AI_AGENT_NAME = 'gen_ai.agent.name';
/** `gen_ai.agent.id` */
export const ATTR_GEN_AI_AGENT_ID = 'gen_ai.agent.id';
/** `gen_ai.request.model` */
export const ATTR_GEN_AI_REQUEST_MODEL = 'gen_ai.request.model';
/** `gen_ai.response.model` */
export const ATTR_GEN_AI_RESPONSE_MODEL = 'gen_ai.response.model';
/** `gen_ai.usage.input_tokens` (cached input included) */
export const ATTR_GEN_AI_USAGE_INPUT_TOKENS = 'gen_ai.usage.input_tokens';
/** `gen_ai.usage.output_tokens` */
export const ATTR_GEN_AI_USAGE_OUTPUT_TOKENS = 'gen_ai.usage.output_tokens';
/** `gen_ai.usage.cache_read.input_tokens`: input tokens served from the provider's cache */
export const ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS = 'gen_ai.usage.cache_read.input_tokens';
/** `gen_ai.tool.call.arguments` (opt-in) */
export const ATTR_GEN_AI_TOOL_CALL_ARGUMENTS = 'gen_ai.tool.call.arguments';
/** `gen_ai.tool.call.result` (opt-in) */
export const ATTR_GEN_AI_TOOL_CALL_RESULT = 'gen_ai.tool.call.result';
/** `error.type` (stable) */
export const ATTR_ERROR_TYPE = 'error.type';
/** `exception.type` (stable), on an `exception` event */
export const ATTR_EXCEPTION_TYPE = 'exception.type';
/** `exception.message` (stable), on an `exception` event: content, recorded only with capture on */
export const ATTR_EXCEPTION_MESSAGE = 'exception.message';
/** `exception.stacktrace` (stable), on an `exception` event */
export const ATTR_EXCEPTION_STACKTRACE = 'exception.stacktrace';
/** The span event of an exception that ended the span's operation (stable) */
export const EVENT_EXCEPTION = 'exception';

/** Value of `gen_ai.operation.name` for a tool call. */
export const GEN_AI_OPERATION_EXECUTE_TOOL = 'execute_tool';
/** Value of `gen_ai.operation.name` for an agent run. */
export const GEN_AI_OPERATION_INVOKE_AGENT = 'invoke_agent';

/** `loopguard.signature`: `<tool>:<first 16 hex digits of args_hash>` */
export const ATTR_LOOPGUARD_SIGNATURE = 'loopguard.signature';
/** `loopguard.args_hash`: full SHA-256 of the canonical arguments */
export const ATTR_LOOPGUARD_ARGS_HASH = 'loopguard.args_hash';
/** `loopguard.scope`: the engine's scope key */
export const ATTR_LOOPGUARD_SCOPE = 'loopguard.scope';
/** `loopguard.streak`: consecutive identical attempts, this one included */
export const ATTR_LOOPGUARD_STREAK = 'loopguard.streak';
/** `loopguard.count`: calls of this signature in the scope, this one included */
export const ATTR_LOOPGUARD_COUNT = 'loopguard.count';
/** `loopguard.action`: strongest action of the call */
export const ATTR_LOOPGUARD_ACTION = 'loopguard.action';
/** `loopguard.axis`: deciding axis when the action is not `allow` */
export const ATTR_LOOPGUARD_AXIS = 'loopguard.axis';
/** `loopguard.nudge.level`: 1 for the first nudge threshold */
export const ATTR_LOOPGUARD_NUDGE_LEVEL = 'loopguard.nudge.level';
/** `loopguard.outcome`: `ok`, `error` or `blocked` */
export const ATTR_LOOPGUARD_OUTCOME = 'loopguard.outcome';
/** `loopguard.shadow`: `true` when the engine runs in shadow mode (the decision was not applied) */
export const ATTR_LOOPGUARD_SHADOW = 'loopguard.shadow';
/** `loopguard.sequence`: int, the call's order in its scope (1, 2, 3…), assigned when it starts */
export const ATTR_LOOPGUARD_SEQUENCE = 'loopguard.sequence';
/** `loopguard.step.id`: the model step that produced a tool call (shared by its parallel calls) */
export const ATTR_LOOPGUARD_STEP_ID = 'loopguard.step.id';
/** `loopguard.run.outcome` on an `invoke_agent` span: `completed`, `halted` or `failed` */
export const ATTR_LOOPGUARD_RUN_OUTCOME = 'loopguard.run.outcome';
/** `loopguard.run.halt.axis`: the axis of the halt that ended the run */
export const ATTR_LOOPGUARD_RUN_HALT_AXIS = 'loopguard.run.halt.axis';
/** `loopguard.run.halt.signature`: the signature of the call that halted the run */
export const ATTR_LOOPGUARD_RUN_HALT_SIGNATURE = 'loopguard.run.halt.signature';
/** `loopguard.threshold` (event attribute) */
export const ATTR_LOOPGUARD_THRESHOLD = 'loopguard.threshold';
/** `loopguard.message` (event attribute) */
export const ATTR_LOOPGUARD_MESSAGE = 'loopguard.message';

/** Span event names, one per finding action. */
export const EVENT_LOOPGUARD_NUDGE = 'loopguard.nudge';
/** `loopguard.warn` span event */
export const EVENT_LOOPGUARD_WARN = 'loopguard.warn';
/** `loopguard.block` span event */
export const EVENT_LOOPGUARD_BLOCK = 'loopguard.block';
/** `loopguard.halt` span event */
export const EVENT_LOOPGUARD_HALT = 'loopguard.halt';

/** `error.type` of a call loopguard blocked before it ran. */
export const ERROR_TYPE_BLOCKED = 'loopguard.blocked';
/** `error.type` of a call whose result reports an error (e.g. MCP `isError: true`). */
export const ERROR_TYPE_TOOL_ERROR = 'tool_error';

/** Counter `loopguard.tool.calls` {gen_ai.tool.name, loopguard.action, loopguard.outcome, loopguard.shadow?} */
export const METRIC_LOOPGUARD_TOOL_CALLS = 'loopguard.tool.calls';
/** Counter `loopguard.decisions` {gen_ai.tool.name, loopguard.axis, loopguard.action, loopguard.shadow?} */
export const METRIC_LOOPGUARD_DECISIONS = 'loopguard.decisions';
/** Histogram `loopguard.streak.length` {gen_ai.tool.name} */
export const METRIC_LOOPGUARD_STREAK_LENGTH = 'loopguard.streak.length';
/** Histogram `gen_ai.execute_tool.duration` in seconds {gen_ai.tool.name, error.type} */
export const METRIC_GEN_AI_EXECUTE_TOOL_DURATION = 'gen_ai.execute_tool.duration';

/** Environment variable that opts in to argument/result capture. */
export const ENV_CAPTURE_MESSAGE_CONTENT = 'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT';
