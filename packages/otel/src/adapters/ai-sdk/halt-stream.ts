import type { StreamTextTransform, TextStreamPart, ToolSet } from 'ai';
import { warnOnce } from '../../warn-once.js';
import { asList, haltIn } from './halt.js';

type Part = TextStreamPart<ToolSet>;

const TEXT_ID = 'loopguard-halt';

/** The parts to add around a step's `finish-step` when loopguard halted the step. */
function haltParts(errors: readonly Part[]): { before: Part[]; after: Part[] } {
  const halt = haltIn(errors);
  if (!halt) return { before: [], after: [] };
  if ('error' in halt) return { before: [], after: [{ type: 'error', error: halt.error }] };
  return {
    before: [
      { type: 'text-start', id: TEXT_ID },
      { type: 'text-delta', id: TEXT_ID, text: halt.message },
      { type: 'text-end', id: TEXT_ID },
    ],
    after: [],
  };
}

/**
 * A `streamText` transform for a halted step (the step the halt stop condition ends the run
 * after): a `LoopHaltError` is added as an `error` part after the step (the SDK hands it to
 * `onError`; `steps`, `text` and the other promises still resolve); a refusal's final message
 * (`onHalt: 'return'`) is added as the step's closing text, so `textStream` and `text` carry it.
 * Other parts pass unchanged.
 */
export function haltTransform<TOOLS extends ToolSet>(): StreamTextTransform<TOOLS> {
  return () => {
    let errors: Part[] = [];
    return new TransformStream<TextStreamPart<TOOLS>, TextStreamPart<TOOLS>>({
      transform(chunk, controller) {
        let added: { before: Part[]; after: Part[] } = { before: [], after: [] };
        try {
          const part = chunk as Part;
          if (part.type === 'start-step') errors = [];
          else if (part.type === 'tool-error') errors.push(part);
          else if (part.type === 'finish-step') added = haltParts(errors);
        } catch (error) {
          warnOnce('loopguard: AI SDK stream part not read for a halt; the stream goes on', error);
        }
        for (const part of added.before) controller.enqueue(part as TextStreamPart<TOOLS>);
        controller.enqueue(chunk);
        for (const part of added.after) controller.enqueue(part as TextStreamPart<TOOLS>);
      },
    });
  };
}

/** `experimental_transform` with the halt transform first (later ones see the parts it adds). */
export function withHaltTransform(transform: unknown): unknown[] {
  return [haltTransform(), ...asList(transform)];
}
