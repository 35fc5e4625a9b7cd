// The run's record (shell/run-record.ts): every event into the NDJSON log, and the ones a person
// must hear about also to HELIX_NOTIFY, with the project they are about. Neither stops the run: a
// log that cannot be written is said once and dropped; a notifier that fails is said once. The
// notifier is a real program (node on a script) reading its stdin, as a user's would.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EventBody } from '../../../src/supervisor/core/run-events.js';
import { parseEvents } from '../../../src/supervisor/shell/events.js';
import { RunRecord, eventLogPath, runIdOf, runIdOfEventLog } from '../../../src/supervisor/shell/run-record.js';
import type { Say } from '../../../src/supervisor/text/lines.js';
import { tempDir } from '../../helpers/cli.js';

const T0 = new Date('2026-11-28T12:00:00Z');
const SPENT = { tokens: 0, cost_usd: 0, unknown_cost_calls: 0 };
const CLAIM: EventBody = { type: 'claim', bead: 'hx-1', attempt: 1 };
const STOP: EventBody = { type: 'stop', reason: 'completed', exit: 0, detail: '', spent: SPENT };

/** A notifier that appends what it reads on stdin to `heard`, then exits with `code`. */
function notifier(dir: string, code: number): { env: NodeJS.ProcessEnv; heard: string } {
  const heard = join(dir, 'heard.ndjson');
  const script = join(dir, 'notifier.cjs');
  writeFileSync(script, `let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{require('fs').appendFileSync(${JSON.stringify(heard)},s);process.exit(${code})});`);
  writeFileSync(heard, '');
  // HELIX_NOTIFY is the setting under test: a user sets it to hear about a run
  return { env: { PATH: process.env.PATH, HELIX_NOTIFY: JSON.stringify([process.execPath, script]) }, heard };
}

describe('the paths of a run', () => {
  it('names the event log beside the session log, and the run by its log', () => {
    expect(eventLogPath('/p/.helix-logs/helix-20261128-120000.log')).toBe('/p/.helix-logs/helix-20261128-120000.events.ndjson');
    expect(runIdOf('/p/.helix-logs/helix-20261128-120000.log')).toBe('helix-20261128-120000');
    expect(runIdOfEventLog('/p/.helix-logs/helix-20261128-120000-2.events.ndjson')).toBe('helix-20261128-120000-2');
  });
});

describe('RunRecord', () => {
  it('appends each event to the log before telling the board, and only the moments a person needs reach the notifier', async () => {
    const dir = tempDir();
    const path = join(dir, '.helix-logs', 'helix-x.events.ndjson');
    const { env, heard } = notifier(dir, 0);
    const lines: Say[] = [];
    const record = new RunRecord(path, 'helix-x', env, dir, () => T0, (l) => void lines.push(l));
    const inLogWhenTold: number[] = [];
    record.recorded = () => void inLogWhenTold.push(parseEvents(readFileSync(path, 'utf8')).events.length);
    await record.record(CLAIM);
    await record.record(STOP, new Date('2026-11-28T12:05:00Z'));
    record.close();
    expect(inLogWhenTold).toEqual([1, 2]);
    const events = parseEvents(readFileSync(path, 'utf8')).events;
    expect(events).toEqual([
      { v: 1, t: '2026-11-28T12:00:00.000Z', run: 'helix-x', ...CLAIM },
      { v: 1, t: '2026-11-28T12:05:00.000Z', run: 'helix-x', ...STOP, root: dir },
    ]);
    expect(parseEvents(readFileSync(heard, 'utf8')).events).toEqual([events[1]]);
    expect({ sent: record.sent, failed: record.failed, lines }).toEqual({ sent: 1, failed: 0, lines: [] });
  });

  it('a notifier that fails is said once, in every mode, and the events still reach the log', async () => {
    const dir = tempDir();
    const path = join(dir, 'helix-x.events.ndjson');
    const { env } = notifier(dir, 3);
    const lines: Say[] = [];
    const record = new RunRecord(path, 'helix-x', env, dir, () => T0, (l) => void lines.push(l));
    await record.record(STOP);
    await record.record({ ...STOP, reason: 'limit' });
    record.close();
    expect({ sent: record.sent, failed: record.failed }).toEqual({ sent: 2, failed: 2 });
    expect(lines).toEqual([{ level: 'always', text: 'helix: HELIX_NOTIFY: exited 3; the run goes on' }]);
    expect(parseEvents(readFileSync(path, 'utf8')).events).toHaveLength(2);
  });

  it('an event log that cannot be opened is said once and the run records on without it', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a-file'), '');
    const lines: Say[] = [];
    const record = new RunRecord(join(dir, 'a-file', 'helix-x.events.ndjson'), 'helix-x', { PATH: process.env.PATH }, dir, () => T0, (l) => void lines.push(l));
    let told = 0;
    record.recorded = () => void told++;
    await record.record(CLAIM);
    await record.record(STOP);
    expect(told).toBe(2);
    expect(lines.map((l) => l.text)).toEqual([expect.stringMatching(/^helix: could not write the event log: EEXIST: .*a-file.*; the run goes on without it$/)]);
  });

  it('a HELIX_NOTIFY a shell would be needed for is refused in one line at the start, and nothing is run', async () => {
    const dir = tempDir();
    const lines: Say[] = [];
    const record = new RunRecord(undefined, '-', { HELIX_NOTIFY: 'notify-send "run done"' }, dir, () => T0, (l) => void lines.push(l));
    await record.record(STOP);
    expect(record.sent).toBe(0);
    expect(lines.map((l) => l.text)).toEqual([expect.stringMatching(/^helix: HELIX_NOTIFY: HELIX_NOTIFY is never run by a shell/)]);
  });
});
