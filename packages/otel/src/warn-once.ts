import { diag } from '@opentelemetry/api';

const said = new Set<string>();

/**
 * `diag.warn`, at most once per message in the process: a user callback that fails on every call
 * (the call then goes on without it) is reported once, not once per call.
 */
export function warnOnce(message: string, error: unknown): void {
  if (said.has(message)) return;
  said.add(message);
  diag.warn(message, error);
}
