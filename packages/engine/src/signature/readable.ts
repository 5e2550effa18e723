import { enclosing, isParent, MAX_NESTING, type Parents, TOO_DEEP } from './nesting.js';

/** What stands for a value whose reading threw (a getter, a toJSON or a proxy trap). */
export const UNREADABLE = '[Unreadable]';

/**
 * A copy of `value` as plain data that can be read without running user code: every toJSON is
 * applied as canonical JSON applies it (once per value), and every value whose reading throws
 * becomes `"[Unreadable]"`. Canonical JSON of the copy is canonical JSON of `value` wherever
 * nothing threw. Used only after writing `value` itself threw, so it may be slow.
 */
export function readable(value: unknown, parents?: Parents): unknown {
  // functions and symbols as canonical JSON writes them (dropped, null in arrays): a function
  // kept in the copy could be taken for the copy's own toJSON
  if (typeof value === 'function' || typeof value === 'symbol') return undefined;
  if (typeof value !== 'object' || value === null) return value;
  // where canonical JSON cuts it
  if (parents !== undefined && parents.depth > MAX_NESTING) return TOO_DEEP;
  try {
    let target: unknown = value;
    const toJson = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJson === 'function') {
      target = toJson.call(value);
      if (typeof target !== 'object' || target === null) return target;
    }
    const object = target as object;
    if (isParent(parents, object)) return '[Circular]';
    const inner = enclosing(object, parents);
    if (Array.isArray(object)) {
      const items: unknown[] = [];
      for (let i = 0; i < object.length; i++) items.push(member(object, String(i), inner));
      return items;
    }
    // null prototype: a "__proto__" key stays a member
    const copy: Record<string, unknown> = Object.create(null);
    for (const key of Object.keys(object)) copy[key] = member(object, key, inner);
    return copy;
  } catch {
    return UNREADABLE;
  }
}

function member(owner: object, key: string, parents: Parents): unknown {
  let value: unknown;
  try {
    value = (owner as Record<string, unknown>)[key];
  } catch {
    return UNREADABLE;
  }
  return readable(value, parents);
}
