import type { ReplayCall } from '../types.js';
import type { Step } from './types.js';

/** The runs of a chat transcript file, and what could not be read (`where` after the file name). */
export interface ChatRead {
  runs: { scope: string; steps: Step[] }[];
  errors: { where: string; message: string }[];
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether a JSON value looks like one conversation: `{"messages": [...]}` or an array of messages. */
export function isConversation(value: unknown): boolean {
  if (isObject(value)) return Array.isArray(value.messages);
  return Array.isArray(value) && isObject(value[0]) && typeof value[0].role === 'string';
}

/**
 * Reads chat transcripts in the OpenAI messages shape: assistant messages with `tool_calls`, each
 * answered by a `tool` message with its `tool_call_id`. `perLine`: one conversation per line (JSON
 * lines), else the whole text is one conversation. A conversation is `{"messages": [...]}` (its
 * `scope` or `id` names the run) or an array of messages; unnamed, a run is named `name` (the
 * file's name), with `:<line>` per line. A `user` message after a tool call starts a new turn (a
 * reset, as a host calls `resetScope`); a tool message with `is_error: true` or a text starting
 * with "Error" is a failed call.
 */
export function readChatTranscript(text: string, name: string, perLine: boolean): ChatRead {
  const read: ChatRead = { runs: [], errors: [] };
  if (!perLine) {
    conversation(parse(text.replace(/^\uFEFF/, '')), name, '', read);
    return read;
  }
  for (const [i, raw] of text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .entries()) {
    if (raw.trim() === '') continue;
    conversation(parse(raw), `${name}:${i + 1}`, `:${i + 1}`, read);
  }
  return read;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    return new SyntaxError(`not valid JSON (${(error as Error).message})`);
  }
}

/** Reads one conversation into `read`; `at` is where it is (`:<line>` or empty). */
function conversation(value: unknown, fallback: string, at: string, read: ChatRead): void {
  const fail = (path: string, message: string) =>
    read.errors.push({ where: located(at, path), message });
  if (value instanceof SyntaxError) return void fail('', value.message);
  if (!isConversation(value) && !(Array.isArray(value) && value.length === 0)) {
    return void fail('', 'expected a conversation: {"messages": [...]} or an array of messages');
  }
  const messages = (Array.isArray(value) ? value : (value as Json).messages) as unknown[];
  const named = isObject(value) ? (value.scope ?? value.id) : undefined;
  const scope = typeof named === 'string' && named !== '' ? named : fallback;
  const steps: Step[] = [];
  const pending = new Map<string, ReplayCall>();
  let callsInTurn = 0;
  for (const [m, message] of messages.entries()) {
    const path = `messages[${m}]`;
    if (!isObject(message) || typeof message.role !== 'string') {
      fail(path, 'expected a message: an object with "role"');
      continue;
    }
    if (message.role === 'user' && callsInTurn > 0) {
      steps.push({ where: located(at, path), line: { reset: scope } });
      callsInTurn = 0;
    } else if (message.role === 'assistant' && message.tool_calls != null) {
      if (!Array.isArray(message.tool_calls)) {
        fail(`${path}.tool_calls`, 'must be an array');
        continue;
      }
      for (const [c, toolCall] of message.tool_calls.entries()) {
        const callPath = `${path}.tool_calls[${c}]`;
        const fn = isObject(toolCall) ? toolCall.function : undefined;
        if (!isObject(fn) || typeof fn.name !== 'string' || fn.name === '') {
          fail(callPath, 'expected {"id", "function": {"name", "arguments"}} with a tool name');
          continue;
        }
        const call: ReplayCall = { scope, tool: fn.name, args: fn.arguments };
        const id = (toolCall as Json).id;
        if (typeof id === 'string' && id !== '') pending.set(id, call);
        steps.push({ where: located(at, callPath), line: call });
        callsInTurn += 1;
      }
    } else if (message.role === 'tool') {
      const id = message.tool_call_id;
      const call = typeof id === 'string' ? pending.get(id) : undefined;
      if (call === undefined) {
        fail(
          path,
          `a tool message answering no earlier tool call (tool_call_id ${JSON.stringify(id)})`,
        );
        continue;
      }
      pending.delete(id as string);
      const result = contentText(message.content);
      call.result = result;
      call.ok = !(message.is_error === true || /^\s*error\b/i.test(result));
    }
  }
  read.runs.push({ scope, steps });
}

/** Where a part of a conversation is, after the file name: `:<line>, <path>` or `: <path>`. */
function located(at: string, path: string): string {
  if (path === '') return at;
  return at === '' ? `: ${path}` : `${at}, ${path}`;
}

/** The text of a message's content: a string, or the text parts of a list of parts. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return content == null ? '' : JSON.stringify(content);
  return content
    .map((part) => (isObject(part) && typeof part.text === 'string' ? part.text : ''))
    .join('');
}
