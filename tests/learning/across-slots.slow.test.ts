// Across slots (issue #39): with `helix run --jobs 3` through the current-DDx stand-in
// (tests/stubs/ddx-current: `ddx try`, ae663ca012), a lesson one attempt LEARNED reaches a later
// bead that fits it, started while another slot is still busy, and that bead's verification
// credits it. Meanwhile the writers a night has — Claude Code's hooks, `helix memory` commands and
// a second process on the library — write to the same store, and no write is lost: every count
// is what was written.
// Each bead names its file, so the file overlap rule lets them run side by side (src/supervisor/core/scheduler.ts).
// Ordering without sleeps: the later bead depends on the lesson's bead; the writers start when the
// later bead's attempt starts (a marker its agent writes); the second process steps a counter
// without pause until the commands and hooks are done, and the later bead's agent finishes only
// once it has begun, so helix credits the lesson while every writer writes; a third bead's agent
// holds its slot until every writer is done, so the run cannot end before them.
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as wait } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { slugify } from '../../src/memory/slug.js';
import { HELIX_BIN, REPO_ROOT, cleanEnv } from '../helpers/cli.js';
import { Project } from './memory-project.js';

const STANDIN = join(REPO_ROOT, 'tests/stubs/ddx-current');
const STUBS = join(REPO_ROOT, 'tests/stubs');
const LESSON_BEAD = { title: 'Write invoice CSV exports with a UTF-8 BOM', description: 'Excel shows the accented names of invoice CSV exports (work/invoices.txt) as garbage.', acceptance: 'Invoice CSV exports open in Excel with accents intact.' };
const LEARNED = 'Invoice CSV exports need a UTF-8 byte order mark before the header row, or Excel reads them as Latin-1';
const LATER_BEAD = { title: 'Credit note CSV exports garble accented names in Excel', description: 'Like the invoice CSV exports before their UTF-8 BOM fix, credit note CSV exports (work/credit-notes.txt) show accented names as garbage in Excel.', acceptance: 'Credit note CSV exports open in Excel with accents intact.' };
const WRITER_MEMORY = { trigger: 'Nightly writer counter memory for the feedback count', resolution: 'Counts every feedback step the night writers give it' };
const HOOK_MEMORY = { trigger: 'Editing src/reports/ledger.ts needs the ledger lock', resolution: 'Take the ledger lock before writing src/reports/ledger.ts' };
const WRITES = { lessons: 12, cli: 6, sessions: 4 };

/** Waits for a file another process writes (a marker), failing after `ms`. */
async function marker(path: string, said: () => string, ms = 60_000): Promise<void> {
  const until = Date.now() + ms;
  while (!existsSync(path)) {
    if (Date.now() > until) throw new Error(`no ${path} after ${ms} ms; helix said:\n${said()}`);
    await wait(20);
  }
}

/** A process to completion: its exit code and stdout. */
function finished(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; input?: string }): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

function events(root: string): Array<{ type: string; bead?: string; names?: string[]; helped?: string[]; action?: string; t: string }> {
  const logs = join(root, '.helix-logs');
  return readdirSync(logs)
    .filter((f) => f.endsWith('.events.ndjson'))
    .flatMap((f) => readFileSync(join(logs, f), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)));
}

describe('a lesson learned in one slot reaches a later bead in another (--jobs 3, current DDx stand-in)', () => {
  it('is injected, credited by verification, and no write of the night is lost', async () => {
    // HELIX_EMBEDDER pins the default embedder (a cached USE-lite would change nothing here but speed).
    const p = new Project({ PATH: `${STANDIN}:${STUBS}:${process.env.PATH ?? ''}`, HELIX_EMBEDDER: 'lexical' });
    const [sharedMemory, hookMemory] = await p.remember(WRITER_MEMORY, HOOK_MEMORY);
    const lessonBead = p.bead(LESSON_BEAD);
    const busyBead = p.bead({ title: 'Rename the admin menu entry Orders to Sales', description: 'The admin menu (work/menu.txt) says Orders; product wants Sales.', acceptance: 'The admin menu says Sales.' });
    const laterBead = p.bead({ ...LATER_BEAD, deps: [lessonBead] });
    const lesson = slugify(`Task: ${LESSON_BEAD.title}`);
    const mark = (name: string) => join(p.scratch, name);
    p.script([
      { when: lessonBead, output: `done\nLEARNED: ${LEARNED}\n`, commit: { path: 'work/invoices.txt', content: 'bom\n' } },
      { when: busyBead, run: [['touch', mark('busy-started')]], waitFor: mark('writers-done'), commit: { path: 'work/menu.txt', content: 'Sales\n' } },
      { when: laterBead, run: [['touch', mark('later-started')]], waitFor: mark('halfway'), output: `done\nUTILIZED: [${lesson}]\n`, commit: { path: 'work/credit-notes.txt', content: 'bom\n' } },
    ] as never);
    // the tracker is committed and DDx's runtime files ignored, as `ddx init` leaves a project
    appendFileSync(join(p.root, '.gitignore'), '.ddx/agent-logs/\n');
    for (const args of [['add', '.gitignore', '.ddx/beads.jsonl'], ['commit', '-q', '-m', 'tracker']]) await finished('git', args, { cwd: p.root, env: process.env });

    const run = p.spawnHelix(['run', '--summary', '--jobs', '3', '--no-auto-review', '--no-auto-align']);
    await marker(mark('later-started'), run.stderr);
    // the night's other writers, all at once, while the run's slots are busy
    const env = { ...cleanEnv(), ...p.env };
    const second = finished(process.execPath, [join(REPO_ROOT, 'tests/learning/night-writer.mjs'), p.dbPath, sharedMemory!, String(WRITES.lessons), mark('go'), mark('halfway'), mark('stop-stepping'), join(REPO_ROOT, 'dist/memory/index.js')], { cwd: p.root, env });
    const cli = (async () => {
      for (let i = 0; i < WRITES.cli; i++) expect((await finished(process.execPath, [HELIX_BIN, 'memory', 'feedback', '--names', JSON.stringify([sharedMemory]), '--delta', '1'], { cwd: p.root, env })).code).toBe(0);
    })();
    const hooks = (async () => {
      for (let i = 0; i < WRITES.sessions; i++) {
        const session = `night-session-${i}`;
        const edit = JSON.stringify({ session_id: session, tool_name: 'Edit', tool_input: { file_path: join(p.root, 'src/reports/ledger.ts') }, cwd: p.root });
        expect((await finished(process.execPath, [HELIX_BIN, 'hook', 'pre-tool-use'], { cwd: p.root, env, input: edit })).stdout).toContain(hookMemory);
        const answer = `Done.\nUTILIZED: [${hookMemory}]\nLEARNED: Ledger session ${i} learned to flush the ledger cache number ${i} before reports\n`;
        await finished(process.execPath, [HELIX_BIN, 'hook', 'stop'], { cwd: p.root, env, input: JSON.stringify({ session_id: session, last_assistant_message: answer, cwd: p.root }) });
      }
    })();
    appendFileSync(mark('go'), 'go\n');
    // the second process steps its counter until the commands and hooks are done: they write into it
    await Promise.all([cli, hooks]);
    appendFileSync(mark('stop-stepping'), 'stop\n');
    const written = JSON.parse((await second).stdout) as { steps: number; stored: string[] };
    appendFileSync(mark('writers-done'), 'done\n');
    expect(await run.exited, run.stderr()).toBe(0);

    // the lesson reached the later bead, in a slot beside a busy one, and its verification credited it
    const log = events(p.root);
    const injected = log.find((e) => e.type === 'memory_injected' && e.bead === laterBead);
    expect(injected?.names ?? []).toContain(lesson);
    const started = (bead: string) => log.find((e) => e.type === 'dispatch' && e.action === 'build' && e.bead === bead)!.t;
    const ended = (bead: string) => log.find((e) => e.type === 'agent_done' && e.bead === bead)?.t ?? '';
    expect(started(laterBead) > ended(lessonBead) && started(laterBead) < ended(busyBead)).toBe(true);
    const credited = log.find((e) => e.type === 'memory_credited' && e.bead === laterBead);
    expect(credited?.helped).toEqual([lesson]);
    for (const bead of [lessonBead, busyBead, laterBead]) expect(p.beads().get(bead)?.status).toBe('closed');

    // nothing lost: every write of every writer is in the store
    const counts = p.counts();
    expect(counts[lesson]).toMatchObject({ type: 'pattern', helped: 0.5, failed: 0 });
    // the second process and `helix memory feedback` both step one memory's counter
    expect(written.steps).toBeGreaterThan(0);
    expect(counts[sharedMemory!]!.helped).toBe(written.steps + WRITES.cli);
    expect(written.stored).toEqual(Array(WRITES.lessons).fill('added'));
    expect(Object.values(counts).filter((m) => m.trigger.startsWith('Night writer lesson'))).toHaveLength(WRITES.lessons);
    expect(Object.values(counts).filter((m) => m.trigger.startsWith('Learned in a session: Ledger session'))).toHaveLength(WRITES.sessions);
    expect(p.sessionUses(hookMemory!)).toBe(WRITES.sessions);
  }, 180_000);
});
