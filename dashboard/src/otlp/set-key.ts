/**
 * Sets `record[key]` as an own property. Plain assignment of `__proto__` would set the prototype
 * instead (and drop a string value), so that one key is defined explicitly.
 */
export function setKey<T>(record: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__')
    Object.defineProperty(record, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  else record[key] = value;
}
