/**
 * How deep canonical JSON follows nested objects and arrays: objects below this many levels are
 * written as `"[Too deep]"`. Python's json.dumps gives up before 1 000 levels, so every value it
 * hashes is hashed in full; and the limit, not the stack the host has left, decides where a very
 * deep value (a model-emitted JSON text, say) is cut, so its hash is the same wherever it is taken.
 */
export const MAX_NESTING = 1000;

/** The string that stands for an object nested deeper than `MAX_NESTING`. */
export const TOO_DEEP = '[Too deep]';

/** The objects enclosing the one being written, innermost first: a chain, not a Set per call. */
export interface Parents {
  value: object;
  up: Parents | undefined;
  /** Objects in the chain: the nesting level of the members of `value`. */
  depth: number;
}

/** Whether `value` encloses the object being written (a circular reference). */
export function isParent(parents: Parents | undefined, value: object): boolean {
  for (let p = parents; p !== undefined; p = p.up) if (p.value === value) return true;
  return false;
}

/** The chain for the members of `owner`. */
export function enclosing(owner: object, parents: Parents | undefined): Parents {
  return { value: owner, up: parents, depth: parents === undefined ? 1 : parents.depth + 1 };
}
