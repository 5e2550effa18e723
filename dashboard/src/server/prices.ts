import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { ModelPrice } from '../api/types.js';

function price(model: string, field: string, v: unknown): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0)
    throw new Error(
      `price table: ${model}.${field} must be a number >= 0 (USD per million tokens)`,
    );
  return v;
}

/**
 * A price table from its text: a JSON or YAML object of model name -> `{ input, output,
 * cached_input }` in USD per million tokens (`cached_input`, also `cachedInput`, defaults to
 * `input`). Throws on anything else, naming the entry.
 */
export function parsePrices(text: string): Map<string, ModelPrice> {
  const data: unknown = parseYaml(text); // YAML is a superset of JSON
  if (data === null || typeof data !== 'object' || Array.isArray(data))
    throw new Error(
      'price table: expected an object of model name -> { input, output, cached_input }',
    );
  const out = new Map<string, ModelPrice>();
  for (const [model, entry] of Object.entries(data as Record<string, unknown>)) {
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry))
      throw new Error(`price table: ${model} must be an object { input, output, cached_input }`);
    const e = entry as Record<string, unknown>;
    const p: ModelPrice = {
      input: price(model, 'input', e.input),
      output: price(model, 'output', e.output),
    };
    const cached = e.cached_input ?? e.cachedInput;
    if (cached !== undefined) p.cachedInput = price(model, 'cached_input', cached);
    out.set(model, p);
  }
  return out;
}

/** Reads a price table file (`--prices`); see parsePrices. */
export function loadPrices(path: string): Map<string, ModelPrice> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`cannot read the price table ${path}: ${(error as Error).message}`);
  }
  return parsePrices(text);
}
