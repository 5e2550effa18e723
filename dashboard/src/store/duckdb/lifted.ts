type Row = Record<string, unknown>;

/**
 * The attributes the DuckDB store keeps in typed columns instead of the SpanAttributes map
 * (attribute key, column, field of SpanFields). Bit `i` of "LiftedAttributes" says that
 * attribute `i` was taken out of the map and its column holds it exactly.
 */
const LIFTED = [
  ['gen_ai.operation.name', 'Operation', 'operation'],
  ['gen_ai.tool.name', 'ToolName', 'tool'],
  ['gen_ai.conversation.id', 'ConversationId', 'conversationId'],
  ['gen_ai.agent.name', 'AgentName', 'agentName'],
  ['gen_ai.tool.call.id', 'ToolCallId', 'toolCallId'],
  ['gen_ai.tool.call.arguments', 'ToolArgs', 'toolArgs'],
  ['loopguard.signature', 'Signature', 'signature'],
  ['loopguard.args_hash', 'ArgsHash', 'argsHash'],
  ['loopguard.scope', 'LoopScope', 'scope'],
  ['loopguard.action', 'LoopAction', 'action'],
  ['loopguard.axis', 'LoopAxis', 'axis'],
  ['loopguard.streak', 'Streak', 'streak'],
  ['loopguard.count', 'LoopCount', 'count'],
  ['loopguard.nudge.level', 'NudgeLevel', 'nudgeLevel'],
  ['loopguard.outcome', 'Outcome', 'outcome'],
  ['error.type', 'ErrorType', 'errorType'],
] as const;

/** A field of SpanFields that holds a lifted attribute. */
export type LiftedField = (typeof LIFTED)[number][2];

const INDEX = new Map<string, number>(LIFTED.map(([key], i) => [key, i]));

/** The columns `restoreAttributes` reads, for a SELECT list. */
export const LIFTED_COLUMNS_SQL = `${LIFTED.map(([, column]) => `"${column}"`).join(', ')}, "LiftedAttributes"`;

/** The bit of each lifted field in "LiftedAttributes" (`SpanFields.lifted`). */
export const LIFT_BIT = Object.fromEntries(LIFTED.map(([, , field], i) => [field, 1 << i])) as {
  readonly [F in LiftedField]: number;
};

/** Whether `key` is an attribute that `mask` (`SpanFields.lifted`) takes out of the map. */
export function isLifted(key: string, mask: number): boolean {
  const i = INDEX.get(key);
  return i !== undefined && (mask & (1 << i)) !== 0;
}

/** The span's attributes as received: the map plus the lifted ones, read back from their columns. */
export function restoreAttributes(rest: Record<string, string>, row: Row): Record<string, string> {
  const mask = Number(row.LiftedAttributes ?? 0);
  if (!mask) return rest;
  for (let i = 0; i < LIFTED.length; i++) {
    if (mask & (1 << i)) {
      const [key, column] = LIFTED[i]!;
      rest[key] = String(row[column]);
    }
  }
  return rest;
}
