/** What the framework adapters share: export patching, cancellation, run scopes, shape checks. */

export { cancellableBy } from './abort.js';
export { isPlainObject } from './plain-object.js';
export { replaceExport } from './replace-export.js';
export { scopePerRun } from './run-scopes.js';
