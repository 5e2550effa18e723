// The axes along which repetition is measured (contract section 5), one module each, and the
// order in which a call is judged on them.
export { stopFinding } from './level.js';
export { axesAfter, axesBefore } from './run.js';
export { countAttempt, countUnpaired, unpairedStreak, withdrawAttempt } from './streak.js';
