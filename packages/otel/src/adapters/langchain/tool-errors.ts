import type { ToolMessage } from '@langchain/core/messages';
import { diag } from '@opentelemetry/api';
import type { ToolCallHandler } from 'langchain';
import { LoopHaltError } from '../../errors.js';
import { isGraphInterrupt } from './results.js';

type Request = Parameters<ToolCallHandler>[0];
type MessageCtor = new (fields: Record<string, unknown>) => ToolMessage;

let toolMessageCtor: Promise<MessageCtor | undefined> | undefined;

/** `ToolMessage` of the @langchain/core the app's langchain runs on (a peer of both). */
function loadToolMessage(): Promise<MessageCtor | undefined> {
  toolMessageCtor ??= import('@langchain/core/messages').then(
    (core) => core.ToolMessage as unknown as MessageCtor,
    (error: unknown) => {
      diag.warn('loopguard: @langchain/core could not be loaded', error);
      return undefined;
    },
  );
  return toolMessageCtor;
}

/**
 * A ToolMessage of status `error` with `content` answering the request's tool call, built as
 * langchain's ToolNode builds its own; undefined if @langchain/core cannot be loaded.
 */
export async function errorToolMessage(
  request: Request,
  content: string,
): Promise<ToolMessage | undefined> {
  const Ctor = await loadToolMessage();
  if (!Ctor) return undefined;
  const { id, name } = request.toolCall;
  return new Ctor({ content, tool_call_id: id, name, status: 'error' });
}

function isToolInvocationError(error: unknown): error is Error {
  return (
    error instanceof Error && (error as { '~brand'?: unknown })['~brand'] === 'ToolInvocationError'
  );
}

/**
 * What langchain's ToolNode does with a tool's error when no middleware wraps tool calls (its
 * default `handleToolErrors`): graph interrupts and aborted runs re-throw, every other error
 * becomes an error ToolMessage for the model. Loopguard's halts re-throw too.
 */
export async function answerToolError(error: unknown, request: Request): Promise<ToolMessage> {
  if (error instanceof LoopHaltError || isGraphInterrupt(error)) throw error;
  if (request.runtime?.signal?.aborted === true) throw error;
  const text = isToolInvocationError(error)
    ? error.message
    : `${error}\n Please fix your mistakes.`;
  const message = await errorToolMessage(request, text);
  if (!message) throw error;
  return message;
}
