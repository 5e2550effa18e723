import type { ToolMessage } from '@langchain/core/messages';
import { isPlainObject } from '../shared/index.js';

/** The parts of a LangGraph `Command` a tool may return (checked by shape, as LangGraph does). */
interface CommandLike {
  lg_name: 'Command';
  update?: unknown;
  goto?: unknown;
  graph?: unknown;
  resume?: unknown;
}

type CommandCtor = new (fields: Record<string, unknown>) => CommandLike;

/** A LangGraph `Command` of any installed copy. */
export function isCommand(value: unknown): value is CommandLike {
  return (
    typeof value === 'object' &&
    value !== null &&
    !isPlainObject(value) &&
    (value as { lg_name?: unknown }).lg_name === 'Command'
  );
}

/** The messages of a Command's `update` object (`{ messages: [...] }`), if it has any. */
function messagesOf(command: CommandLike): unknown[] | undefined {
  const update = command.update;
  if (!isPlainObject(update) || !Array.isArray(update.messages)) return undefined;
  return update.messages;
}

/** The one ToolMessage a Command's update carries, if it carries exactly one. */
export function commandToolMessage(
  command: CommandLike,
  isToolMessage: (value: unknown) => value is ToolMessage,
): ToolMessage | undefined {
  const found = (messagesOf(command) ?? []).filter(isToolMessage);
  return found.length === 1 ? found[0] : undefined;
}

/**
 * A new Command of the same class whose update has `replacement` instead of `message` (the
 * original Command and its update are not changed). Same graph, goto and resume.
 */
export function commandReplacing(
  command: CommandLike,
  message: ToolMessage,
  replacement: ToolMessage,
): CommandLike {
  const update = command.update as Record<string, unknown>;
  const messages = (messagesOf(command) ?? []).map((m) => (m === message ? replacement : m));
  const Ctor = command.constructor as CommandCtor;
  return new Ctor({
    update: { ...update, messages },
    goto: command.goto,
    graph: command.graph,
    resume: command.resume,
  });
}

/**
 * What the engine compares for a Command: its update with each ToolMessage reduced to its
 * content (a ToolMessage carries the call id, which differs on every call), and where it goes.
 */
export function commandForHash(
  command: CommandLike,
  isToolMessage: (value: unknown) => value is ToolMessage,
): unknown {
  const messages = messagesOf(command);
  if (!messages) return { update: command.update, goto: command.goto };
  const update = command.update as Record<string, unknown>;
  return {
    update: { ...update, messages: messages.map((m) => (isToolMessage(m) ? m.content : m)) },
    goto: command.goto,
  };
}
