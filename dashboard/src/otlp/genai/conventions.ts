/** The instrumentation conventions whose tool-call spans the dashboard recognises. */
export type ToolCallSource = 'gen_ai' | 'ai_sdk' | 'openinference' | 'openllmetry';

/** How one convention names a tool call's parts, and how its users turn content capture on. */
export interface ToolCallConvention {
  source: ToolCallSource;
  /**
   * What marks a tool-call span: an attribute with its value, the span's name, or (`all`) every
   * listed attribute with its value (`value` left out: the attribute is set).
   */
  match:
    | { attribute: string; value: string }
    | { spanName: string }
    | { all: readonly { attribute: string; value?: string }[] };
  /** Attributes holding the tool's name, the first one set wins. */
  tool: readonly string[];
  /** Span name prefix followed by the tool's name, when no attribute names it. */
  toolFromSpanName?: string;
  /** The attribute holding the arguments as text (absent when content capture is off). */
  args: string;
  /** The attribute holding the result as text. */
  result: string;
  /** Attributes holding a conversation or session id, the first one set wins. */
  session: readonly string[];
  /** How to turn capture of arguments on for this convention (shown in the UI). */
  captureHint: string;
}

/**
 * Every attribute name the mapper reads, one row per convention. Sources: the OpenTelemetry GenAI
 * conventions (`execute_tool` span), the AI SDK's telemetry (`ai.toolCall` span, ai 6.x), the
 * OpenInference spec (TOOL span, reserved attributes) and OpenLLMetry's `SpanAttributes` (and
 * what @traceloop/instrumentation-langchain 0.27 emits). The first row that matches wins.
 */
export const TOOL_CALL_CONVENTIONS: readonly ToolCallConvention[] = [
  {
    source: 'openllmetry',
    // @traceloop/instrumentation-langchain: an execute_tool span of kind `task`, named by its entity
    match: {
      all: [
        { attribute: 'gen_ai.operation.name', value: 'execute_tool' },
        { attribute: 'traceloop.entity.name' },
      ],
    },
    tool: ['traceloop.entity.name'],
    args: 'traceloop.entity.input',
    result: 'traceloop.entity.output',
    session: [
      'traceloop.association.properties.session_id',
      'traceloop.association.properties.conversation_id',
    ],
    captureHint: 'set TRACELOOP_TRACE_CONTENT=true (the default) or traceContent: true',
  },
  {
    source: 'openllmetry',
    match: { attribute: 'traceloop.span.kind', value: 'tool' },
    tool: ['traceloop.entity.name'],
    args: 'traceloop.entity.input',
    result: 'traceloop.entity.output',
    session: [
      'traceloop.association.properties.session_id',
      'traceloop.association.properties.conversation_id',
    ],
    captureHint: 'set TRACELOOP_TRACE_CONTENT=true (the default) or traceContent: true',
  },
  {
    source: 'gen_ai',
    match: { attribute: 'gen_ai.operation.name', value: 'execute_tool' },
    tool: ['gen_ai.tool.name'],
    toolFromSpanName: 'execute_tool ',
    args: 'gen_ai.tool.call.arguments',
    result: 'gen_ai.tool.call.result',
    session: ['gen_ai.conversation.id'],
    captureHint:
      'set OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true (or the instrumentation’s content-capture option) so gen_ai.tool.call.arguments is recorded',
  },
  {
    source: 'ai_sdk',
    match: { spanName: 'ai.toolCall' },
    tool: ['ai.toolCall.name'],
    args: 'ai.toolCall.args',
    result: 'ai.toolCall.result',
    session: [],
    captureHint:
      'pass experimental_telemetry: { isEnabled: true } without recordOutputs: false (the AI SDK records ai.toolCall.args as an output)',
  },
  {
    source: 'openinference',
    match: { attribute: 'openinference.span.kind', value: 'TOOL' },
    tool: ['tool.name'],
    args: 'input.value',
    result: 'output.value',
    session: ['session.id'],
    captureHint: 'unset OPENINFERENCE_HIDE_INPUTS (and the hideInputs trace config option)',
  },
];

/** Attribute that marks a decision the dashboard made (the agent ran without loopguard). */
export const DETECTED_BY = 'loopguard.detected_by';

/** Value of `loopguard.detected_by` on the decisions the dashboard made. */
export const DETECTED_BY_DASHBOARD = 'dashboard';

/** Attribute naming the convention a detected call's span followed. */
export const DETECTED_SOURCE = 'loopguard.detected_source';
