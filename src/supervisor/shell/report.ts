// `helix report [run-id] [--trace]`, and the page every run writes at its end (run-end.ts): a run's
// event log read back, folded into its night (core/night.ts) and drawn as one self-contained HTML
// file (text/report-html.ts) or Chrome trace-event JSON (text/trace.ts), written beside the log.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomically } from '../../atomic-write.js';
import { HelixError } from '../../errors.js';
import { type Night, nightOf } from '../core/night.js';
import type { HelixEvent } from '../core/run-events.js';
import { reportHtml } from '../text/report-html.js';
import { traceJson } from '../text/trace.js';
import { parseEvents } from './events.js';
import { currentEventLog } from './log.js';
import type { CommandResult } from './output.js';
import { openStore } from './project.js';

/** The page and the trace of a run: beside its event log, `<run>.report.html` and `<run>.trace.json`. */
export function reportPaths(eventLog: string): { html: string; trace: string } {
  const base = eventLog.replace(/\.events\.ndjson$/, '');
  return { html: `${base}.report.html`, trace: `${base}.trace.json` };
}

/** A run id names a file in `.helix-logs/`: letters, digits, `.`, `_`, `-`, never a path. */
const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

/** The event log `helix report` reads: the last run's (run-state's `events`), or the named run's. */
export function reportedEventLog(cwd: string, env: NodeJS.ProcessEnv, runId: string | undefined): string {
  if (runId === undefined) return currentEventLog(cwd, env, 'helix report');
  if (!RUN_ID.test(runId)) throw new HelixError('validation', `helix report: "${runId}" is not a run id (a name such as helix-20261126-200000, as \`helix log\` and .helix-logs/ show)`);
  return join(openStore(cwd, env).root, '.helix-logs', `${runId.replace(/\.events\.ndjson$/, '')}.events.ndjson`);
}

/** The night of an event log, with `after` (the stop the run is about to write) folded in last. */
export function readNight(eventLog: string, after: HelixEvent[] = []): Night {
  let text: string;
  try {
    text = readFileSync(eventLog, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new HelixError('notFound', code === 'ENOENT' ? `no run here has the event log ${eventLog}` : `cannot read ${eventLog}: ${code ?? (error as Error).message}`);
  }
  const events = [...parseEvents(text).events, ...after];
  if (events.length === 0) throw new HelixError('notFound', `${eventLog} holds no event yet`);
  return nightOf(events);
}

/** Writes the page (or the trace) of `night` to `file` in one piece: a reader sees the old file or the new one. */
export function writeNight(night: Night, file: string, form: 'html' | 'trace', now: number): void {
  try {
    writeFileAtomically(file, form === 'html' ? reportHtml(night, now) : traceJson(night, now));
  } catch (error) {
    throw new HelixError('writeFailed', `cannot write ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/** `helix report`: writes the run's page (or trace) beside its log and prints its path. */
export function reportRun(cwd: string, env: NodeJS.ProcessEnv, options: { runId?: string; trace?: boolean; now: number }): CommandResult {
  const eventLog = reportedEventLog(cwd, env, options.runId);
  const file = options.trace ? reportPaths(eventLog).trace : reportPaths(eventLog).html;
  try {
    writeNight(readNight(eventLog), file, options.trace ? 'trace' : 'html', options.now);
  } catch (error) {
    throw error instanceof HelixError ? new HelixError(error.kind, `helix report: ${error.message}`) : error;
  }
  return { exitCode: 0, stdout: [file] };
}

/**
 * The run's own page, written as it ends (run-end.ts): its events read back, the stop it is about
 * to write folded in, so the page shows the whole night. Returns the page's path; throws when it
 * could not be written (the run says so in one line and goes on).
 */
export function writeRunReport(eventLog: string, stop: HelixEvent): string {
  const file = reportPaths(eventLog).html;
  writeNight(readNight(eventLog, [stop]), file, 'html', Date.parse(stop.t));
  return file;
}
