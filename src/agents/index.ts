// src/agents: how helix calls ddx, codex and claude (docs/contract/cli.md §8). Pure parts — invocation builders,
// the dry-run line, output parsers (final answer, usage, trailers), agent choice — are separate
// from the process I/O (runner, PATH discovery). The supervisor composes them; nothing here knows
// about the tracker.
//
// Typical build cycle:
//   const cmd = executeBeadInvocation({ root, beadId, harness: 'codex', effort });
//   if (dryRun) print(formatDryRun(cmd));
//   const run = await runAgentInvocation(cmd, { onChunk: (text) => log.write(text) });
//   const result = parseExecuteBeadResult(run.stdout, beadId); // undefined | invalid | result
export type { AgentInvocation, AnswerFormat, DirectAgent } from './invocation.js';
export { DIRECT_AGENTS, isDirectAgent } from './invocation.js';
export { DEFAULT_AGENT_TIMEOUT_SECONDS, agentTimeoutSeconds } from './timeout.js';
export { DEFAULT_EXECUTE_BEAD_EFFORT, TRY_GRACE_SECONDS, ddxRunInvocation, evidenceInvocation, executeBeadInvocation, tryInvocation } from './ddx-invocations.js';
export type { DdxRunOptions, Evidence, ExecuteBeadOptions, TryOptions } from './ddx-invocations.js';
export { SUPPORTED_DDX, SURFACE_COMMANDS, describeDdx, detectDdx, forgetDdxProbes, helpCommands, parseDdxVersion, surfaceOfVersion } from './ddx-surface.js';
export type { DdxInstall, DdxSurfaceKind } from './ddx-surface.js';
export { CURRENT_STATUSES, KNOWN_OUTCOMES, V061_STATUSES, judgeDdxResult } from './ddx-outcomes.js';
export type { DdxVerdict } from './ddx-outcomes.js';
export { claudeInvocation, codexInvocation, directAgentInvocation } from './direct-invocations.js';
export type { DirectAgentOptions } from './direct-invocations.js';
export { formatDryRun, shellQuote } from './dry-run.js';
export { buildSessionOf, failureTextsOf, newestSucceededAttempt, readDdxRecord, spentOf } from './ddx-records.js';
export type { DdxCallRecord, DdxSession, SucceededAttempt } from './ddx-records.js';
export { ddxProblemOf, errorTextsOf, problemIn } from './agent-problems.js';
export type { AgentProblem, ProblemKind } from './agent-problems.js';
export { extractTokens } from './tokens.js';
export { isInvalidExecuteBeadResult, parseExecuteBeadResult, parseTryResult } from './execute-bead-result.js';
export type {
  ExecuteBeadOutcome,
  ExecuteBeadResult,
  ExecuteBeadStatus,
  InvalidExecuteBeadResult,
} from './execute-bead-result.js';
export {
  BACKFILL_STATUSES,
  NEXT_ACTIONS,
  PLAN_STATUSES,
  POLISH_STATUSES,
  REVIEW_STATUSES,
  parseNameList,
  parseNextAction,
  parseTrailers,
  stripMarkdown,
} from './trailers.js';
export type { BackfillStatus, NextAction, PlanStatus, PolishStatus, ReviewStatus, Trailers } from './trailers.js';
export { ALTERNATE_ACTIONS, DEFAULT_AGENT, DEFAULT_EFFORT, EFFORT_LEVELS, agentForAction, agentOfModel, namedAgentMissing, otherDirectAgent, resolveAgentPlan } from './agent-choice.js';
export { jsonEvents, progressLines, readAgentAnswer, usageTokens } from './agent-output.js';
export { claudeUsageLimit, codexResetTime, codexUsageLimit, ddxUsageLimit, ddxUsageLimitOf, limitInText, usageLimitOf, wallClockReset } from './usage-limit.js';
export type { LimitKind, UsageLimit } from './usage-limit.js';
export type { AgentAnswer, AgentUsage } from './agent-output.js';
export { CLAUDE_ROOT_REFUSAL, claudeRootHint, claudeRootWarning, claudeWouldRefuse, rootRefusalIn } from './sandbox.js';
export type { AgentAction, AgentChoice, AgentChoiceInput, AgentFallback, AgentPlan } from './agent-choice.js';
export { AgentStartError, DEFAULT_KILL_GRACE_MS, MissingToolError, TIMEOUT_EXIT_CODE, runAgentInvocation } from './run-agent.js';
export { killTrackedGroups } from './process-group.js';
export type { AgentRunResult, OutputStream, RunAgentOptions } from './run-agent.js';
export { findOnPath } from './discovery.js';
