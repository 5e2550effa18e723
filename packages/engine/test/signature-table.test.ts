import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { newDigest } from '../src/signature/args-memo.js';
import { argsHash, signatureFromHash } from '../src/signature/signature.js';
import {
  fingerprintAt,
  newTable,
  type SignatureTable,
  signatureFingerprint,
  tableAdd,
  tableGet,
  tableValues,
} from '../src/signature/signature-table.js';
import { knownSignature, newScope, signatureState } from '../src/state.js';

/** A table and its size, as a scope keeps them. */
function filled(entries: ReadonlyArray<[string, number]>): SignatureTable {
  let table = newTable();
  entries.forEach(([signature, print], size) => {
    table = tableAdd(table, size, signature, print, { signature });
  });
  return table;
}

describe('signature table', () => {
  it("reads a signature's fingerprint from its hash digits, as the digest computes it", () => {
    fc.assert(
      fc.property(fc.string(), fc.jsonValue(), (tool, args) => {
        const hash = argsHash(args);
        const print = fingerprintAt(hash, 0);
        expect(newDigest(hash).print).toBe(print);
        expect(signatureFingerprint(signatureFromHash(tool, hash))).toBe(print);
      }),
    );
  });

  it('fingerprints any string, short ones included, as a small integer', () => {
    for (const text of ['', 'x', 'lookup:7', 'é'.repeat(40)]) {
      const print = signatureFingerprint(text);
      expect(Number.isInteger(print) && print >= 0 && print < 2 ** 30).toBe(true);
    }
    expect(fingerprintAt('0123456789abcdef', 0)).not.toBe(fingerprintAt('1123456789abcdef', 0));
  });

  it('finds every signature when all share one fingerprint, across growth', () => {
    const entries = Array.from({ length: 300 }, (_, i): [string, number] => [`grep:${i}`, 7]);
    const table = filled(entries);
    for (const [signature] of entries) {
      expect(tableGet<{ signature: string }>(table, signature, 7)?.signature).toBe(signature);
    }
    expect(tableGet(table, 'grep:300', 7)).toBeUndefined();
    expect(tableGet(table, 'grep:1', 8)).toBeUndefined();
    expect([...tableValues(table)]).toHaveLength(300);
  });

  it('agrees with a Map on any sequence of additions and lookups (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), fc.nat(40)), { maxLength: 200 }),
        (steps: Array<[boolean, number]>) => {
          const model = new Map<string, object>();
          let table = newTable();
          for (const [add, n] of steps) {
            // the fingerprint is a function of the signature, as in the engine; 4 of them collide
            const signature = `t:${n}`;
            const value = model.get(signature);
            expect(tableGet(table, signature, n % 4)).toBe(value);
            if (add && value === undefined) {
              const state = { n };
              table = tableAdd(table, model.size, signature, n % 4, state);
              model.set(signature, state);
            }
          }
          expect(new Set(tableValues(table))).toEqual(new Set(model.values()));
        },
      ),
    );
  });

  it('keeps two generations of a scope and reuses the one it forgets', () => {
    const scope = newScope();
    const first = signatureState(scope, 'bash:first');
    for (let i = 0; i < 2048; i++) signatureState(scope, `bash:a${i}`);
    // a second generation began: the first one is the older, still known
    expect(knownSignature(scope, 'bash:first')).toBe(first);
    const older = scope.olderSignatures;
    for (let i = 0; i < 2048; i++) signatureState(scope, `bash:b${i}`);
    // a third: the first generation's table now holds it, emptied
    expect(scope.signatures).toBe(older);
    expect(knownSignature(scope, 'bash:first')).toBeUndefined();
    expect(knownSignature(scope, 'bash:a5')).toBeUndefined();
    expect(knownSignature(scope, 'bash:b5')).toBeDefined();
    expect(signatureState(scope, 'bash:first')).not.toBe(first);
  });

  it('moves a signature of the older generation into the current one', () => {
    const scope = newScope();
    const kept = signatureState(scope, 'bash:kept');
    for (let i = 0; i < 2048; i++) signatureState(scope, `bash:a${i}`);
    expect(signatureState(scope, 'bash:kept')).toBe(kept);
    for (let i = 0; i < 2047; i++) signatureState(scope, `bash:b${i}`);
    expect(knownSignature(scope, 'bash:kept')).toBe(kept);
  });
});
