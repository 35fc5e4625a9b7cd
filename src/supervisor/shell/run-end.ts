// The end of every run, on every exit path (docs/contract/bash-interface.md §2.13): the
// run-complete line, the blockers — each skipped bead marked blocked, the report written to
// `.helix-logs/` with the systemic memories behind them —, the final run-state, and the night's page
// (`helix report`) beside the event log, named in the stop event.
import { describeSpend } from '../core/budget.js';
import { type SkippedBead, spendFields } from '../core/machine.js';
import { RUN, reasonLine } from '../text/lines.js';
import type { BlockerEntry, EventBody } from '../core/run-events.js';
import { markBlocked } from './bead-writes.js';
import { makeEvent } from './events.js';
import { reportPaths, writeRunReport } from './report.js';
import { writeBlockerReport } from './blockers.js';
import type { RunContext } from './run-context.js';

/** The systemic memories for the blocker report (asked only when something was skipped); none when memory fails. */
export async function systemicMemories(run: RunContext): Promise<string[]> {
  const { memory } = run.session;
  if (!memory?.systemic || run.state.skipped.length === 0) return [];
  try {
    return await memory.systemic();
  } catch {
    return [];
  }
}

/** A skipped bead as the `blockers` event carries it: the morning report's why, bounded. */
function blockerOf(skipped: SkippedBead): BlockerEntry {
  return { id: skipped.id, title: skipped.title, reason: skipped.reason, last_failure: skipped.lastDetail ?? null, output: skipped.output ?? [] };
}

export async function finishRun(run: RunContext, reason: string, extra: Record<string, unknown>, systemic: string[], exitCode: number, detail: string): Promise<void> {
  const s = run.state;
  const { output } = run.session;
  output.always('');
  output.always(RUN.runComplete(s.attempted, s.completed, s.skipped.length, s.tokens, s.costUsd));
  // What the caps count, said whenever it is not all in the cost above (a call reported no cost) or a cap was set.
  const { budget } = run.session.settings;
  if (s.spend.unknownCostCalls > 0 || budget.maxCostUsd !== undefined || budget.maxTokens !== undefined || budget.maxDurationMs !== undefined) {
    output.always(RUN.spent(describeSpend(s.spend)));
  }
  let report: string | null = null;
  if (s.skipped.length > 0) {
    const titles = run.snapshot().byId;
    output.always(RUN.blockersHeader(s.skipped.length));
    for (const skipped of s.skipped) {
      output.always(RUN.blockerReason(skipped.id, skipped.reason));
      output.always(RUN.blockerTitle(titles.get(skipped.id)?.title ?? skipped.title));
      if (skipped.lastDetail) output.always(RUN.blockerLastFailure(reasonLine(skipped.lastDetail)));
      markBlocked(run, skipped.id, skipped.reason);
    }
    for (const line of systemic) output.always(RUN.systemicMemory(line));
    try {
      const file = writeBlockerReport({ root: run.session.root, skipped: s.skipped, attempted: s.attempted, completed: s.completed, log: output.logName, now: run.now(), systemic });
      report = file;
      output.always(RUN.blockerReportWritten(file));
    } catch (error) {
      output.always(RUN.blockerReportFailed((error as Error).message));
    }
  }
  run.persist({ stop_reason: reason, current_issue: null, ...extra });
  if (s.skipped.length > 0) await run.record.record({ type: 'blockers', beads: s.skipped.map(blockerOf), report });
  // what this helix process cost, to its last event (bench:fleet reads it beside the gates' own)
  const cpu = process.resourceUsage();
  const stop: EventBody = { type: 'stop', reason, exit: exitCode, detail, spent: spendFields(s.spend), cpu_ms: Math.round((cpu.userCPUTime + cpu.systemCPUTime) / 1000) };
  const at = run.now();
  await run.record.record({ ...stop, report_html: writeNightReport(run, stop, at) }, at);
}

/**
 * The night's page, beside the event log, before the stop event that names it: drawn from the
 * events read back and the stop about to be written (at the same moment), so it shows the whole
 * run. Its path, or null when it could not be written — one line, and the run ends as it would have.
 */
function writeNightReport(run: RunContext, stop: EventBody, at: Date): string | null {
  const { output } = run.session;
  const eventLog = run.record.path;
  if (!eventLog) return null;
  try {
    const file = writeRunReport(eventLog, makeEvent(run.record.runId, at, { ...stop, report_html: reportPaths(eventLog).html } as EventBody));
    output.always(RUN.runReportWritten(file));
    return file;
  } catch (error) {
    output.always(RUN.runReportFailed((error as Error).message));
    return null;
  }
}
