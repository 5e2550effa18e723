export type {
  LoopingAgentOptions,
  SessionOutcome,
  SessionSummary,
  Summary,
} from './run.js';
export { runLoopingAgent } from './run.js';
export type { Scenario, ScenarioName } from './scenarios.js';
export { SCENARIOS, sessionPlan } from './scenarios.js';
export type { PlannedCall, StepTokens } from './scripted-model.js';
export { ScriptedAgentModel, stepTokens } from './scripted-model.js';
export type { ActionCounts, LoopTokens } from './telemetry.js';
export { tracesUrl } from './telemetry.js';
