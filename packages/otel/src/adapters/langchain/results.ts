import type { ToolMessage } from '@langchain/core/messages';
import type { StopDecision } from '@loopguard/engine';
import { noticeAsText } from '../../default-adapter.js';
import type { ResultAdapter } from '../../types.js';
import { isPlainObject } from '../shared/index.js';
import { commandForHash, commandReplacing, commandToolMessage, isCommand } from './command.js';

const BLOCKED = Symbol('loopguard.langchain.blocked');

/** Stands in for a blocked call's result until the adapter can build a real `ToolMessage`. */
export interface BlockedMarker {
  [BLOCKED]: StopDecision;
}

/** The block decision carried by a marker, if `value` is one. */
export function blockedDecision(value: unknown): StopDecision | undefined {
  return typeof value === 'object' && value !== null && BLOCKED in value
    ? (value as BlockedMarker)[BLOCKED]
    : undefined;
}

/**
 * A LangGraph interrupt (`interrupt()` inside a tool, `NodeInterrupt`): a pause for a human, which
 * the graph resumes by running the tool again; recognised by name, as LangGraph does.
 */
export function isGraphInterrupt(error: unknown): boolean {
  const name = (error as { name?: unknown } | undefined)?.name;
  return name === 'GraphInterrupt' || name === 'NodeInterrupt';
}

/** A ToolMessage of any installed @langchain/core copy (checked by shape, not by class). */
export function isToolMessage(value: unknown): value is ToolMessage {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as { lc_direct_tool_output?: unknown; type?: unknown; tool_call_id?: unknown };
  return (
    v.lc_direct_tool_output === true && v.type === 'tool' && typeof v.tool_call_id === 'string'
  );
}

type Content = ToolMessage['content'];

function contentWithNotice(content: Content, notice: string): Content {
  if (typeof content === 'string') return content.length > 0 ? `${content}\n\n${notice}` : notice;
  if (Array.isArray(content)) return [...content, { type: 'text', text: notice }] as Content;
  return content;
}

type MessageCtor = new (fields: Record<string, unknown>) => ToolMessage;

/** A new ToolMessage of the same class with `changes` applied; the original stays as it was. */
export function copyToolMessage(
  message: ToolMessage,
  changes: Record<string, unknown>,
): ToolMessage {
  const Ctor = message.constructor as MessageCtor;
  return new Ctor({
    content: message.content,
    tool_call_id: message.tool_call_id,
    name: message.name,
    status: message.status,
    artifact: message.artifact,
    id: message.id,
    additional_kwargs: message.additional_kwargs,
    response_metadata: message.response_metadata,
    metadata: (message as { metadata?: unknown }).metadata,
    ...changes,
  });
}

function isContentBlocks(value: unknown): value is unknown[] {
  return (
    Array.isArray(value) &&
    value.every((item) => typeof item === 'object' && item !== null && 'type' in item)
  );
}

/**
 * LangChain tool results: ToolMessages (status `error` = failure; notices appended to a copy's
 * content), `[content, artifact]` pairs of `content_and_artifact` tools, strings, content-block
 * arrays and plain objects (a `loopguard` field). A LangGraph `Command` whose update carries one
 * ToolMessage is treated as that message (a copy of the Command gets the noticed copy); other
 * Commands pass through untouched. Graph interrupts are control flow, not failures.
 * Any other result (a number, a Buffer) becomes its JSON text and the notice when the tool runs
 * for a tool call, whose `ToolMessage` content LangChain makes text anyway; a tool invoked
 * directly returns it as it was (the notice only on the span).
 */
export function langChainResultAdapter(
  contentAndArtifact: boolean,
  forToolCall: boolean,
): ResultAdapter<unknown> {
  const appendToContent = (content: unknown, notice: string): unknown => {
    if (typeof content === 'string' || isContentBlocks(content)) {
      return contentWithNotice(content as Content, notice);
    }
    if (isPlainObject(content)) return { ...content, loopguard: notice };
    return forToolCall ? noticeAsText(content, notice) : content;
  };
  return {
    blocked(decision) {
      return { [BLOCKED]: decision } satisfies BlockedMarker;
    },
    appendNotice(result, notice) {
      if (isToolMessage(result)) {
        return copyToolMessage(result, { content: contentWithNotice(result.content, notice) });
      }
      if (contentAndArtifact && Array.isArray(result) && result.length === 2) {
        return [appendToContent(result[0], notice), result[1]];
      }
      if (isCommand(result)) {
        const message = commandToolMessage(result, isToolMessage);
        if (!message) return result;
        const noticed = copyToolMessage(message, {
          content: contentWithNotice(message.content, notice),
        });
        return commandReplacing(result, message, noticed);
      }
      if (typeof result === 'object' && result !== null && 'lg_name' in result) return result;
      return appendToContent(result, notice);
    },
    isError(result) {
      const message = isCommand(result) ? commandToolMessage(result, isToolMessage) : result;
      return isToolMessage(message) && message.status === 'error';
    },
    isControlFlow: isGraphInterrupt,
    forHash(result) {
      if (isToolMessage(result)) return result.content;
      if (isCommand(result)) return commandForHash(result, isToolMessage);
      if (contentAndArtifact && Array.isArray(result) && result.length === 2) return result[0];
      return result;
    },
  };
}
