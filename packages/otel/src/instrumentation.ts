import { createRequire } from 'node:module';
import { join, sep } from 'node:path';
import {
  InstrumentationBase,
  type InstrumentationModuleDefinition,
  InstrumentationNodeModuleDefinition,
  InstrumentationNodeModuleFile,
} from '@opentelemetry/instrumentation';
import { guardedAiSdkExports, patchAiSdk, unpatchAiSdk } from './adapters/ai-sdk/index.js';
import { patchLangChain, unpatchLangChain } from './adapters/langchain/index.js';
import { patchMcpClientClass, unpatchMcpClientClass } from './adapters/mcp/index.js';
import { patchOpenAIAgents, unpatchOpenAIAgents } from './adapters/openai-agents/index.js';
import type { Guard, LoopguardInstrumentationConfig } from './types.js';
import { VERSION } from './version.js';

/** A framework module patched in place by one of the adapters. */
interface ModulePatch {
  /** Package name, as required/imported. */
  module: string;
  versions: string[];
  patch(exports: Record<string, unknown>, guard: Guard | undefined): Record<string, unknown>;
  /** Undoes `patch` on the exports it returned (for `disable()`). */
  unpatch(exports: Record<string, unknown>): void;
}

const MCP_VERSIONS = ['>=1.0.0 <2'];
const MCP_CLIENT_FILES = [
  '@modelcontextprotocol/sdk/dist/esm/client/index.js',
  '@modelcontextprotocol/sdk/dist/cjs/client/index.js',
];

/**
 * Framework main modules patched through the adapters' `patch*` functions. A patch returns the
 * exports to use: the same object when patched in place (ESM namespaces via import-in-the-middle,
 * plain CommonJS objects), or a guarded copy when CommonJS getters cannot be reassigned.
 */
const FRAMEWORKS: ModulePatch[] = [
  {
    module: 'ai',
    versions: ['>=5.0.0 <8'],
    patch: (exports, guard) =>
      patchAiSdk(exports, { guard }) ? exports : guardedAiSdkExports(exports, { guard }),
    unpatch: unpatchAiSdk,
  },
  {
    module: '@openai/agents',
    versions: ['>=0.1.0 <1'],
    patch(exports, guard) {
      patchOpenAIAgents(exports, { guard });
      return exports;
    },
    unpatch: unpatchOpenAIAgents,
  },
  {
    module: 'langchain',
    versions: ['>=1.0.0 <2'],
    patch(exports, guard) {
      patchLangChain(exports, { guard });
      return exports;
    },
    unpatch: unpatchLangChain,
  },
];

/** Module files whose exports `register` should intercept (for the ESM loader hook). */
export const INSTRUMENTED_MODULES: ReadonlyArray<string | RegExp> = [
  /\/@modelcontextprotocol\/sdk\/dist\/esm\/client\/index\.js$/,
  ...FRAMEWORKS.map((framework) => framework.module),
];

type ClientModule = { Client?: { prototype: unknown } };

/** Told the name of each framework module an instrumentation patches (for register's notice). */
const patchListeners = new WeakMap<LoopguardInstrumentation, (module: string) => void>();

/** Calls `listener` with each framework module `instrumentation` patches from now on. */
export function onFrameworkPatched(
  instrumentation: LoopguardInstrumentation,
  listener: (module: string) => void,
): void {
  patchListeners.set(instrumentation, listener);
}

function tell(instrumentation: LoopguardInstrumentation, module: string): void {
  try {
    patchListeners.get(instrumentation)?.(module);
  } catch {
    // a notice only
  }
}

/**
 * The MCP SDK has no root entry point, so require-in-the-middle cannot match its CommonJS client
 * file by package name; it is matched by absolute path instead, resolved from the working
 * directory and from the main script.
 */
function cjsClientPaths(): string[] {
  const bases = [join(process.cwd(), 'index.js'), process.argv[1]];
  const paths = new Set<string>();
  for (const base of bases) {
    if (!base) continue;
    try {
      const path = createRequire(base).resolve('@modelcontextprotocol/sdk/client/index.js');
      if (path.endsWith(['', 'dist', 'cjs', 'client', 'index.js'].join(sep))) paths.add(path);
    } catch {
      // not installed where the app runs
    }
  }
  return [...paths];
}

/**
 * Patches the agent frameworks an application loads (CommonJS via require hooks, ESM via
 * import-in-the-middle) so their tool calls go through loopguard: the MCP SDK `Client.callTool`,
 * plus every framework adapter with a `patch*` function.
 */
export class LoopguardInstrumentation extends InstrumentationBase<LoopguardInstrumentationConfig> {
  constructor(config: LoopguardInstrumentationConfig = {}) {
    super('@loopguard/otel', VERSION, config);
  }

  protected init(): InstrumentationModuleDefinition[] {
    const patch = (exports: ClientModule) => {
      try {
        if (
          exports?.Client &&
          patchMcpClientClass(exports.Client, { guard: this.getConfig().guard })
        )
          tell(this, '@modelcontextprotocol/sdk');
      } catch (error) {
        this._diag.warn('cannot patch the MCP Client; its tool calls run unguarded', error);
      }
      return exports;
    };
    const unpatch = (exports?: ClientModule) => {
      if (exports?.Client) unpatchMcpClientClass(exports.Client);
    };
    const mcpFiles = MCP_CLIENT_FILES.map(
      (file) => new InstrumentationNodeModuleFile(file, MCP_VERSIONS, patch, unpatch),
    );
    const definitions: InstrumentationModuleDefinition[] = [
      new InstrumentationNodeModuleDefinition(
        '@modelcontextprotocol/sdk',
        MCP_VERSIONS,
        undefined,
        undefined,
        mcpFiles,
      ),
    ];
    for (const path of cjsClientPaths()) {
      // Matched by absolute path, the hook reports the file as `index` with no package version.
      const file = new InstrumentationNodeModuleFile('index', ['*'], patch, unpatch);
      definitions.push(
        new InstrumentationNodeModuleDefinition(path, ['*'], undefined, undefined, [file]),
      );
    }
    for (const framework of FRAMEWORKS) {
      definitions.push(
        new InstrumentationNodeModuleDefinition(
          framework.module,
          framework.versions,
          (exports: Record<string, unknown>) => {
            try {
              const patched = framework.patch(exports, this.getConfig().guard);
              tell(this, framework.module);
              return patched;
            } catch (error) {
              this._diag.warn(
                `cannot patch ${framework.module}; its tool calls run unguarded`,
                error,
              );
              return exports;
            }
          },
          (exports?: Record<string, unknown>) => {
            try {
              if (exports) framework.unpatch(exports);
            } catch (error) {
              this._diag.warn(`cannot unpatch ${framework.module}`, error);
            }
          },
        ),
      );
    }
    return definitions;
  }
}
