// The axes along which repetition is measured (contract section 5), one module each, and the
// order in which a call is judged on them.
export { stopFinding } from './level.js';
export { axesAfter, axesBefore } from './run.js';
export { countAttempt, withdrawAttempt } from './streak.js';
