import { fmtArgs } from '../format.js';

/** The span attribute that holds a call's captured arguments. */
export const ARGS_ATTRIBUTE = 'gen_ai.tool.call.arguments';

/**
 * A call named for a reader: its tool, its captured arguments in a readable, redacted and cut form
 * (fmtArgs), then the signature's hash; the raw arguments and the signature in `title`. Without
 * captured arguments, the tool and the hash. Text only.
 */
export function CallName({
  tool,
  signature,
  args,
}: {
  tool: string;
  signature: string;
  args?: string | undefined;
}) {
  const at = signature.lastIndexOf(':');
  const hash = at < 0 ? signature : signature.slice(at);
  const readable = args ? fmtArgs(args) : '';
  return (
    <span class="call-name" title={args ? `${signature}\n${args}` : signature}>
      <strong class="call-tool">{tool}</strong>
      {readable && (
        <span class="call-args" data-testid="call-args">
          ({readable})
        </span>
      )}
      {hash && <code class="call-hash">{hash}</code>}
    </span>
  );
}

/**
 * What to do when no arguments were captured: the env var or option of @loopguard/otel that
 * turns capture on (docs/otel.md, "Capture").
 */
export function CaptureHint() {
  return (
    <p class="capture-hint muted small" data-testid="capture-hint">
      Arguments are not captured, so calls are named by tool and hash. To see them, run the agent
      with <code>OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true</code> (or{' '}
      <code>capture: true</code> in the loopguard options); captured text is redacted and cut.
    </p>
  );
}
