import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { diag } from '@opentelemetry/api';

/** The parts of a function tool the SDK's approval input preparation reads. */
export interface ApprovalTool {
  invoke: unknown;
  needsApproval: (runContext: never, input: never, callId?: string) => Promise<boolean>;
}

interface PreparedInput {
  result: { success: boolean; value?: unknown };
}

/** What `@openai/agents-core/utils/internal` exports that the runner uses to parse approval input. */
interface SdkInternals {
  prepareFunctionToolInput(tool: object, input: string): PreparedInput | undefined;
  hasDynamicFunctionToolApprovalPolicy(tool: object): boolean;
  getFunctionToolApprovalInput(value: unknown): unknown;
}

const INTERNAL = '@openai/agents-core/utils/internal';
type Loader = () => Promise<SdkInternals | undefined>;

function once(load: () => Promise<SdkInternals> | SdkInternals): Loader {
  let loaded: Promise<SdkInternals | undefined> | undefined;
  return () => {
    loaded ??= Promise.resolve()
      .then(load)
      .then((mod) => (typeof mod?.prepareFunctionToolInput === 'function' ? mod : undefined))
      .catch(() => undefined);
    return loaded;
  };
}

/** `require` as `@openai/agents` resolves its own dependencies (the core package is not ours). */
function agentsRequire(): NodeJS.Require {
  return createRequire(createRequire(import.meta.url).resolve('@openai/agents'));
}

/** The ESM file of the internal entry point, from the core package's `exports` map. */
function esmPath(): string {
  const cjs = agentsRequire().resolve(INTERNAL);
  const root = cjs.slice(0, cjs.lastIndexOf(`${sep}dist${sep}`));
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    exports?: Record<string, { import?: string }>;
  };
  const file = pkg.exports?.['./utils/internal']?.import;
  if (!file) throw new Error(`${INTERNAL} has no ESM entry`);
  return join(root, file);
}

// Tools created through the ESM build are registered there, those of CommonJS apps in the other.
const loaders: Loader[] = [
  once(async () => (await import(pathToFileURL(esmPath()).href)) as SdkInternals),
  once(() => agentsRequire()(INTERNAL) as SdkInternals),
];
let warned = false;

/**
 * The input the runner would have given the tool's approval policy: the SDK registers each tool's
 * input parser under its original `invoke`, which a copy with a guarded `invoke` does not have,
 * so the runner passes the raw model JSON. Parses it with the original tool's own parser.
 */
async function sdkApprovalInput(tool: object, input: unknown): Promise<unknown> {
  const raw = typeof input === 'string' ? input : JSON.stringify(input);
  for (const load of loaders) {
    const sdk = await load();
    let prepared: PreparedInput | undefined;
    try {
      prepared = sdk?.prepareFunctionToolInput(tool, raw);
    } catch {
      return input; // the runner too skips the parsed input when preparing it throws
    }
    if (!sdk || !prepared) continue;
    if (!prepared.result.success || !sdk.hasDynamicFunctionToolApprovalPolicy(tool)) return input;
    return sdk.getFunctionToolApprovalInput(prepared.result.value);
  }
  if (!warned) {
    warned = true;
    diag.warn(
      `loopguard: ${INTERNAL} not found; an approval policy of a guarded OpenAI Agents tool sees the raw model input`,
    );
  }
  return input;
}

/**
 * The `needsApproval` of a guarded copy of `tool`: calls the tool's own policy with the input
 * parsed by the tool's own schema, as the runner does for the unguarded tool. A policy that takes
 * no input (the SDK's own for `needsApproval: true | false` or none) is kept as it is: the runner
 * tells static policies from dynamic ones by identity, and treats calls of a dynamic one
 * differently (malformed arguments then ask for approval instead of returning the parse error).
 */
export function approvalWithSdkInput(tool: ApprovalTool): ApprovalTool['needsApproval'] {
  const policy = tool.needsApproval;
  if (typeof policy !== 'function' || policy.length === 0) return policy;
  return async (runContext, input, callId) =>
    policy.call(tool, runContext, (await sdkApprovalInput(tool, input)) as never, callId);
}
