import type { LoopAction } from '../../../api/types.js';
import type { SpanRecord } from '../../../otlp/span.js';
import { actionRank, INT32_MAX, INT32_MIN, nsToMs } from '../../common/index.js';
import { LIFT_BIT, type LiftedField } from '../lifted.js';

/**
 * The loopguard.* and gen_ai.* values of a span, lifted out of its attributes into typed fields
 * (every field that LIFTED in ../lifted.ts names among them).
 */
export interface SpanFields extends Record<LiftedField, string | number> {
  /** Epoch milliseconds of the span's start, clamped to the column's range. */
  startMs: number;
  isCall: boolean;
  tool: string;
  operation: string;
  conversationId: string;
  agentName: string;
  toolCallId: string;
  toolArgs: string;
  signature: string;
  argsHash: string;
  scope: string;
  action: LoopAction | '';
  actionRank: number;
  axis: string;
  streak: number;
  count: number;
  nudgeLevel: number;
  outcome: string;
  errorType: string;
  /** `loopguard.shadow` is `true`: decided in shadow mode, not applied (kept in the attribute map). */
  shadow: boolean;
  /** Bit i: the attribute LIFTED[i] (../lifted.ts) is set and its typed field holds it exactly. */
  lifted: number;
}

/** An int32 column's value of an attribute; 0 (absent) when it is no integer or out of range. */
function int(value: string | undefined): number {
  if (value === undefined) return 0;
  const n = Number.parseInt(value, 10);
  return n >= INT32_MIN && n <= INT32_MAX ? n : 0;
}

/** Whether an attribute's text is what its int32 column gives back. */
function intExact(value: string | undefined, n: number): boolean {
  return value !== undefined && value !== '' && String(n) === value;
}

/**
 * Derives the typed fields of a span. A span is a tool call when its gen_ai.operation.name is
 * `execute_tool` or it carries a loopguard.signature; a call without a loopguard.action counts as
 * `allow`. The scope falls back to gen_ai.conversation.id.
 */
export function deriveFields(span: SpanRecord): SpanFields {
  const a = span.attributes;
  const operation = a['gen_ai.operation.name'] ?? '';
  const signature = a['loopguard.signature'] ?? '';
  const isCall = operation === 'execute_tool' || signature !== '';
  const rawTool = a['gen_ai.tool.name'];
  let tool = rawTool ?? '';
  if (tool === '' && span.name.startsWith('execute_tool ')) tool = span.name.slice(13);
  if (tool === '' && signature.includes(':')) tool = signature.slice(0, signature.lastIndexOf(':'));
  const rawAction = a['loopguard.action'] ?? '';
  const rank = actionRank(rawAction);
  const action: LoopAction | '' = rank >= 0 ? (rawAction as LoopAction) : isCall ? 'allow' : '';
  const conversationId = a['gen_ai.conversation.id'] ?? '';
  const agentName = a['gen_ai.agent.name'] ?? '';
  const toolCallId = a['gen_ai.tool.call.id'] ?? '';
  const toolArgs = a['gen_ai.tool.call.arguments'] ?? '';
  const argsHash = a['loopguard.args_hash'] ?? '';
  const rawScope = a['loopguard.scope'];
  const axis = a['loopguard.axis'] ?? '';
  const rawStreak = a['loopguard.streak'];
  const rawCount = a['loopguard.count'];
  const rawLevel = a['loopguard.nudge.level'];
  const streak = int(rawStreak);
  const count = int(rawCount);
  const nudgeLevel = int(rawLevel);
  const outcome = a['loopguard.outcome'] ?? '';
  const errorType = a['error.type'] ?? '';
  // a field copied from its attribute holds it exactly when the attribute is set and not empty
  let lifted = 0;
  if (operation !== '') lifted |= LIFT_BIT.operation;
  if (rawTool !== undefined && rawTool !== '') lifted |= LIFT_BIT.tool;
  if (conversationId !== '') lifted |= LIFT_BIT.conversationId;
  if (agentName !== '') lifted |= LIFT_BIT.agentName;
  if (toolCallId !== '') lifted |= LIFT_BIT.toolCallId;
  if (toolArgs !== '') lifted |= LIFT_BIT.toolArgs;
  if (signature !== '') lifted |= LIFT_BIT.signature;
  if (argsHash !== '') lifted |= LIFT_BIT.argsHash;
  if (rawScope !== undefined && rawScope !== '') lifted |= LIFT_BIT.scope;
  if (rank >= 0) lifted |= LIFT_BIT.action;
  if (axis !== '') lifted |= LIFT_BIT.axis;
  if (intExact(rawStreak, streak)) lifted |= LIFT_BIT.streak;
  if (intExact(rawCount, count)) lifted |= LIFT_BIT.count;
  if (intExact(rawLevel, nudgeLevel)) lifted |= LIFT_BIT.nudgeLevel;
  if (outcome !== '') lifted |= LIFT_BIT.outcome;
  if (errorType !== '') lifted |= LIFT_BIT.errorType;
  return {
    startMs: nsToMs(span.startTimeUnixNano),
    isCall,
    tool,
    operation,
    conversationId,
    agentName,
    toolCallId,
    toolArgs,
    signature,
    argsHash,
    scope: rawScope ?? conversationId,
    action,
    actionRank: Math.max(rank, 0),
    axis,
    streak,
    count,
    nudgeLevel,
    outcome,
    errorType,
    shadow: a['loopguard.shadow'] === 'true',
    lifted,
  };
}
