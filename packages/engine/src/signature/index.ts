// Argument hashing and signatures (contract section 1): canonical JSON, the args hash and its
// memos, the signature of a call, result fingerprints and the table a scope keeps signatures in.
export { canonicalJson } from './canonical-json.js';
export { describeOpaque } from './opaque.js';
export { errorKey, resultHash } from './result-hash.js';
export {
  argsDigest,
  argsHash,
  digestSignature,
  normalizeArgs,
  signatureOf,
} from './signature.js';
export {
  newTable,
  type SignatureTable,
  signatureFingerprint,
  tableAdd,
  tableGet,
  tableValues,
} from './signature-table.js';
