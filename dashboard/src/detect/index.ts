// Loop detection in the dashboard for tool-call spans of agents that run without loopguard.

export type {
  ClickHouseDetector,
  ClickHouseDetectorOptions,
  DetectPass,
} from './clickhouse.js';
export { createClickHouseDetector } from './clickhouse.js';
export type { DetectorOptions, DetectorStats, UncapturedService } from './detector.js';
export { Detector } from './detector.js';
export type { DetectionJournal, OpenedJournal } from './journal.js';
export { openJournal } from './journal.js';
export type { DetectingStore, DetectingStoreOptions } from './store.js';
export { detectingStore } from './store.js';
