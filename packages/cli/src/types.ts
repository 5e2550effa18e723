import type { Action, Axis } from '@loopguard/engine';

/** One line of a replay: a tool call as the agent made it, or the start of a new user turn. */
export type ReplayLine = ReplayCall | { reset: string };

/** A recorded tool call; `ran: false` marks one that was attempted but never ran (it was blocked). */
export interface ReplayCall {
  scope?: string;
  tool: string;
  args?: unknown;
  ok?: boolean;
  result?: unknown;
  ran?: boolean;
}

/** Replay lines recovered from an OTLP trace export, and how many tool spans could not be used. */
export interface OtlpParseResult {
  calls: ReplayLine[];
  /** Where each call (same index) is in the input: `span <id>`, after `line <n>, ` in JSON lines. */
  origins: string[];
  /** `execute_tool` spans left out because they carry no tool name or no captured arguments. */
  skipped: number;
  /** Runs a framework interrupt cut short, left out: the engine withdrew them (see otlp-input.ts). */
  cutShort: number;
  /** Lines of a JSON-lines export that could not be read (the others are replayed). */
  errors: { line: number; message: string }[];
}

/** One replayed call, as `loopguard replay --json` prints it (contract section 6). */
export interface ReplayRecord {
  i: number;
  scope: string;
  tool: string;
  signature: string;
  before: 'allow' | 'block';
  action: Action;
  axes: Axis[];
  streak: number;
  count: number;
  level?: number;
  halt: boolean;
  /** Present (false) when the input says the call never ran. */
  ran?: false;
}

/** A line of input that could not be used, with its 1-based line number. */
export interface ReplayError {
  line: number;
  message: string;
}

/** Options of `loopguard replay`. */
export interface ReplayOptions {
  file: string;
  config?: string;
  json: boolean;
  otlp: boolean;
  all: boolean;
  out: NodeJS.WritableStream;
  err: NodeJS.WritableStream & { isTTY?: boolean };
}
