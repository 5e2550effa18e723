import { diag } from '@opentelemetry/api';

/**
 * Replaces `key` on a framework's module exports in place: ESM namespaces seen through
 * import-in-the-middle and plain CommonJS objects take an assignment; bundler getters are
 * redefined when configurable. Returns false (reported via diag) when the export cannot change.
 */
export function replaceExport(mod: Record<string, unknown>, key: string, value: unknown): boolean {
  try {
    const descriptor = Object.getOwnPropertyDescriptor(mod, key);
    if (descriptor && !descriptor.writable && !descriptor.set && descriptor.configurable) {
      Object.defineProperty(mod, key, {
        value,
        writable: true,
        enumerable: true,
        configurable: true,
      });
    } else {
      mod[key] = value;
    }
    if (mod[key] === value) return true;
  } catch (error) {
    diag.debug(`loopguard: assignment to export ${key} failed`, error);
  }
  diag.warn(`loopguard: cannot patch export ${key} in place`);
  return false;
}

/**
 * Replaces the function export `key` with `wrap(original)`, marked with `mark` so that patching
 * again changes nothing. Returns true once patched (now or before); false when there is no such
 * function or the export cannot change (see `replaceExport`).
 */
export function patchExport<F extends (...args: never[]) => unknown>(
  mod: Record<string, unknown>,
  key: string,
  mark: symbol,
  wrap: (original: F) => F,
): boolean {
  const original = mod?.[key] as F | undefined;
  if (typeof original !== 'function') return false;
  if ((original as unknown as Record<symbol, unknown>)[mark]) return true;
  const wrapper = wrap(original);
  Object.defineProperty(wrapper, mark, { value: true });
  Object.defineProperty(wrapper, ORIGINAL_EXPORT, { value: original });
  return replaceExport(mod, key, wrapper);
}

/** On a patched export: the function it replaced. */
export const ORIGINAL_EXPORT = Symbol.for('loopguard.original-export');

/** Undoes `patchExport` (or any replacement carrying `ORIGINAL_EXPORT`) of export `key`. */
export function unpatchExport(mod: Record<string, unknown>, key: string): void {
  const current = mod?.[key] as Record<symbol, unknown> | undefined;
  const original = typeof current === 'function' ? current[ORIGINAL_EXPORT] : undefined;
  if (typeof original === 'function') replaceExport(mod, key, original);
}
