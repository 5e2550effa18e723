// The write path of the DuckDB store: each insert's spans and delta rows staged as NDJSON files
// when it arrives, the duplicate check, and the group commit that loads them.

export { loadRecentKeys } from './dedup.js';
export { redecideIn } from './redecide.js';
export { GroupWriter } from './writer.js';
