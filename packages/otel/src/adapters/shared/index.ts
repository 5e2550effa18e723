/** What the framework adapters share: export patching, cancellation, run scopes, shape checks. */

export { cancellableBy } from './abort.js';
export { openAgentRun } from './agent-run.js';
export { isPlainObject } from './plain-object.js';
export {
  ORIGINAL_EXPORT,
  patchExport,
  replaceExport,
  unpatchExport,
} from './replace-export.js';
export { runScopeUnlessContext, scopePerRun } from './run-scopes.js';
