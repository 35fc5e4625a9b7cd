// The run's record for people and programs that are not watching its lines: every event goes to
// the run's NDJSON event log (events.ts, docs/events.md), and the moments a person must hear about
// — a limit pause and its resume, the stop (GUIDANCE/WAIT/STOP, a typed stop, a budget or limit
// stop, any other end), the blocker report — also go to HELIX_NOTIFY (notify.ts). Neither ever
// stops the run: a log that cannot be written is said once and dropped; a notifier that fails,
// hangs or is missing costs at most notify.ts's timeout and one line.
import type { EventBody, EventType } from '../core/run-events.js';
import { RUN, type Say } from '../text/lines.js';
import { EventLog, makeEvent } from './events.js';
import { type NotifyCommand, type NotifyOutcome, notify, parseNotifyCommand } from './notify.js';

/** The event types HELIX_NOTIFY hears about. */
export const NOTIFIED: ReadonlySet<EventType> = new Set<EventType>(['limit', 'limit_resume', 'stop', 'blockers']);

/** The event log's path for a session log: beside it, `<log name>.events.ndjson`. */
export function eventLogPath(sessionLog: string): string {
  return `${sessionLog.replace(/\.log$/, '')}.events.ndjson`;
}

/** The run's id in its events: the session log's name without its folder and extension. */
export function runIdOf(sessionLog: string): string {
  return (sessionLog.split('/').pop() ?? sessionLog).replace(/\.log$/, '');
}

/** The run's id from its event log's path (the gate learns only the path, from its check's command). */
export function runIdOfEventLog(path: string): string {
  return (path.split('/').pop() ?? path).replace(/\.events\.ndjson$/, '');
}

export class RunRecord {
  private log: EventLog | undefined;
  private readonly notifier: NotifyCommand | undefined;
  /** Told after each event is in the log (the live board reads it from there). */
  recorded: (() => void) | undefined;
  /** Notifications sent, and how many of them failed. */
  sent = 0;
  failed = 0;

  constructor(
    readonly path: string | undefined,
    readonly runId: string,
    private readonly env: NodeJS.ProcessEnv,
    private readonly cwd: string,
    private readonly now: () => Date,
    private readonly say: (line: Say) => void,
  ) {
    const parsed = parseNotifyCommand(env.HELIX_NOTIFY);
    if (parsed.error) say(RUN.notifyFailed(parsed.error));
    this.notifier = parsed.command;
    if (path) {
      try {
        this.log = EventLog.open(path);
      } catch (error) {
        say(RUN.eventLogFailed((error as Error).message));
      }
    }
  }

  /**
   * Appends the event, at `at` (now unless the caller already showed the event elsewhere: the run's
   * page draws its stop before it is written); resolves once a notifier that must hear it has
   * finished (or was given up on).
   */
  async record(body: EventBody, at: Date = this.now()): Promise<void> {
    // what a person hears about names the project it is about: one notifier may serve several
    const event = makeEvent(this.runId, at, NOTIFIED.has(body.type) ? ({ ...body, root: this.cwd } as EventBody) : body);
    if (this.log) {
      try {
        this.log.append(event);
      } catch (error) {
        this.say(RUN.eventLogFailed((error as Error).message));
        this.log.close();
        this.log = undefined;
      }
    }
    this.recorded?.();
    if (!this.notifier || !NOTIFIED.has(body.type)) return;
    this.sent++;
    const outcome: NotifyOutcome = await notify(this.notifier, event, { env: this.env, cwd: this.cwd });
    if (!outcome.ok) {
      this.failed++;
      // said once, in every mode: a notifier that fails at the first event fails at every other
      if (this.failed === 1) this.say(RUN.notifyFailed(outcome.why));
    }
  }

  close(): void {
    this.log?.close();
    this.log = undefined;
  }
}
