import { readFileSync } from 'node:fs';
import type { Label, LabelClass } from './types.js';

/** The labels of a labels file and the labels that could not be used (`where`: `file:line`). */
export interface LabelsRead {
  labels: Map<string, Label>;
  errors: { where: string; message: string }[];
}

const CLASSES: readonly LabelClass[] = ['stuck', 'healthy', 'limit_norep'];

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Reads a labels file: `{"labels": {"<scope>": {"label", "onset"?, "resolved"?, "source"?,
 * "n_calls"?}}}` (or the map alone), as ../shared/trajectories/labels.json. Other keys of a label
 * are kept out of the way. Throws when the file cannot be used at all; a bad label is named with
 * its line and left out.
 */
export function readLabels(file: string): LabelsRead {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
  } catch (error) {
    throw new Error(`cannot read --labels ${file}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    throw new Error(
      `${file}${lineOfError(text, message)}: --labels is not valid JSON (${message})`,
    );
  }
  const map = isObject(value) && isObject(value.labels) ? value.labels : value;
  if (!isObject(map)) {
    throw new Error(`${file}:1: --labels must be {"labels": {"<scope>": {"label": ...}}}`);
  }
  const read: LabelsRead = { labels: new Map(), errors: [] };
  const lines = new KeyLines(text);
  for (const [scope, entry] of Object.entries(map)) {
    const label = toLabel(entry);
    if (typeof label === 'string') {
      read.errors.push({
        where: `${file}:${lines.of(scope)}`,
        message: `label of ${JSON.stringify(scope)}: ${label}`,
      });
    } else read.labels.set(scope, label);
  }
  return read;
}

/** A label, or why the entry is not one. */
function toLabel(entry: unknown): Label | string {
  if (!isObject(entry)) return 'expected an object with "label"';
  const { label, onset, resolved, source, n_calls: calls } = entry;
  if (typeof label !== 'string' || !CLASSES.includes(label as LabelClass)) {
    return `"label" must be one of ${CLASSES.join(', ')} (got ${JSON.stringify(label)})`;
  }
  if (onset != null && !(Number.isSafeInteger(onset) && (onset as number) >= 1)) {
    return `"onset" must be a call index from 1, or null (got ${JSON.stringify(onset)})`;
  }
  if (resolved != null && typeof resolved !== 'boolean') {
    return `"resolved" must be true or false (got ${JSON.stringify(resolved)})`;
  }
  if (source != null && typeof source !== 'string') {
    return `"source" must be a string (got ${JSON.stringify(source)})`;
  }
  if (calls != null && !(Number.isSafeInteger(calls) && (calls as number) >= 0)) {
    return `"n_calls" must be a count from 0 (got ${JSON.stringify(calls)})`;
  }
  const out: Label = { label: label as LabelClass, resolved: resolved === true };
  if (onset != null) out.onset = onset as number;
  if (source != null) out.source = source as string;
  if (calls != null) out.calls = calls as number;
  return out;
}

/** The line of a JSON.parse error: from its "line N" or "position N", else 1. */
function lineOfError(text: string, message: string): string {
  const line = /line (\d+)/.exec(message);
  if (line) return `:${line[1]}`;
  const position = /position (\d+)/.exec(message);
  if (!position) return '';
  return `:${text.slice(0, Number(position[1])).split('\n').length}`;
}

/** Finds the line of each key `"<scope>":` in the text, in order of appearance. */
class KeyLines {
  #from = 0;

  constructor(private readonly text: string) {}

  /** The 1-based line of the key's next occurrence (keys are asked in file order), else 1. */
  of(key: string): number {
    const at = this.#find(JSON.stringify(key), this.#from) ?? this.#find(JSON.stringify(key), 0);
    if (at === undefined) return 1;
    this.#from = at + 1;
    return this.text.slice(0, at).split('\n').length;
  }

  #find(quoted: string, from: number): number | undefined {
    for (
      let at = this.text.indexOf(quoted, from);
      at >= 0;
      at = this.text.indexOf(quoted, at + 1)
    ) {
      if (/^\s*:/.test(this.text.slice(at + quoted.length, at + quoted.length + 64))) return at;
    }
    return undefined;
  }
}
