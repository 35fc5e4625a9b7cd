// One scenario table, two targets: each scenario runs the real `helix` against a DDx — the
// stand-ins inside `npm test` (scenarios.test.ts), the real binaries in `npm run test:ddx`
// (tests/ddx-real) — and asserts only what a user sees: exit codes, lines, the bead file, git.
// A stand-in is held to what the real binary did; where the two must differ, the scenario says why.
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { expect } from 'vitest';
import { NOTES_BEGIN } from '../../src/supervisor/text/ddx-notes.js';
import { bead } from '../helpers/bead.js';
import { processTagOf, taggedProcesses } from '../../src/agents/descendants.js';
import { processStartOf } from '../../src/tracker/liveness.js';
import { type DdxTarget, type DdxVersion, addOrigin, agentPrompts, ddxIn, gitIn, workedIds } from './targets.js';

export interface Scenario {
  name: string;
  versions: DdxVersion[];
  /** Only against the real binary, and why (the stand-in column of the table says so). */
  realOnly?: string;
  /** Only against the stand-in, and why: what the real binary does there instead, measured. */
  standinOnly?: string;
  run(t: DdxTarget): void | Promise<void>;
}

const ID = 'hx-00000001';
const one = () => [bead({ id: ID, title: 'write the work file', description: 'Create work/hx-00000001.txt.', acceptance: 'work/hx-00000001.txt exists' })];
const BUILD = ['build'];
const BOTH: DdxVersion[] = ['0.6.1', 'current'];

export const SCENARIOS: Scenario[] = [
  {
    name: 'a bead lands: DDx runs the agent, helix verifies, tokens and cost come from DDx (its JSON on v0.6.1, its records on current)',
    versions: BOTH,
    run(t) {
      const p = t.project(one(), { responses: [{ when: ID, tokens: 250, cost: 0.5 }] });
      const r = p.helix(['run', '--summary', '--no-auto-review', '--max-cycles', '1'], { HELIX_VERIFY_CMD: `test -f work/${ID}.txt` });
      expect(r.status, r.stderr).toBe(0);
      expect(p.bead(ID).status).toBe('closed');
      expect(workedIds(p)).toEqual([ID]);
      expect(gitIn(p, 'cat-file', '-e', `HEAD:work/${ID}.txt`)).toBe('');
      expect(r.stderr).toMatch(/run complete: 1 attempted, 1 completed, 0 skipped, [1-9]\d* tokens, \$0\.\d+/);
      const { run } = JSON.parse(p.helix(['status', '--json']).stdout);
      expect(run.total_tokens).toBeGreaterThan(0);
      expect(run.total_cost_usd).toBeGreaterThan(0);
    },
  },
  {
    name: 'a failed attempt is a failed attempt with DDx\'s reason, never drift; a bead DDx parked is not retried at once',
    versions: BOTH,
    run(t) {
      const p = t.project(one(), { responses: [{ when: ID, exit: 1, commit: false }] });
      const r = p.helix(['run', '--no-auto-review', '--max-cycles', '2'], { HELIX_BACKOFF_SLEEP: '0' });
      expect(r.stderr).not.toMatch(/drift/);
      expect(r.stderr).toMatch(new RegExp(`${ID}.*execution_failed`));
      if (t.version === 'current') {
        // DDx parks it 6 h (work-retry-after): helix says so and does not try it again in this run
        expect(r.stderr).toMatch(/DDx parked it until \S+ \(work-retry-after\)/);
        expect(p.bead(ID)['work-retry-after']).toBeTruthy();
        expect(workedIds(p)).toEqual([ID]);
        expect(p.bead(ID).status).toBe('open');
      } else {
        // v0.6.1's execute-bead does not park: helix backs off and tries again (the agent succeeds then)
        expect(workedIds(p)).toEqual([ID, ID]);
      }
    },
  },
  {
    name: 'helix killed with SIGKILL during the build: once nothing of it is left, the next run builds the bead at once (v0.6.1: helix\'s own claim; current: DDx\'s claim of the killed ddx try)',
    versions: BOTH,
    async run(t) {
      const p = t.project(one());
      p.script({ responses: [{ when: ID, waitFor: join(p.scratch, 'never') }] });
      const run = p.helixInBackground(['run', '--summary', '--no-auto-review', '--no-auto-align']);
      const building = () => p.calls().some((c) => c.id === ID && ['execute', 'try', 'execute-bead'].includes(c.kind));
      while (!building()) await delay(50);
      // every process of the run's calls (ddx, its agent) carries the run's tag; the watchdog stops them
      const tag = processTagOf(run.child.pid!, processStartOf(run.child.pid!)!);
      run.child.kill('SIGKILL');
      await run.done;
      const killed = Date.now();
      while (taggedProcesses(tag).length > 0 && Date.now() - killed < 30_000) await delay(50);
      expect(taggedProcesses(tag)).toEqual([]);
      // what the killed attempt left: the bead in progress, under helix's claim (v0.6.1) or DDx's (current)
      expect(p.bead(ID)).toMatchObject({ status: 'in_progress', owner: t.version === 'current' ? 'ddx' : 'helix' });
      const next = p.helix(['run', '--summary', '--no-auto-review', '--no-auto-align']);
      expect(next.status, next.stderr).toBe(0);
      expect(next.stderr).toMatch(t.version === 'current' ? new RegExp(`^helix: released DDx's claim on ${ID}: the ddx try of a killed run \\(ddx pid \\d+\\) is gone and nothing of that run is left$`, 'm') : new RegExp(`^helix: reclaiming orphaned ${ID} \\(age=\\d+s, pid=${run.child.pid} dead; no process of its agent calls left\\)$`, 'm'));
      expect(p.bead(ID).status).toBe('closed');
      expect(workedIds(p)).toEqual([ID]);
    },
  },
  {
    name: 'helix killed with SIGKILL while it verifies a bead DDx closed: never counted as verified — v0.6.1 (helix closes after verifying): the next run reclaims and builds it again; current DDx (its gate passed it before landing; DDx writes its run-state.json over helix\'s, the bead keeps the run\'s mark): the next run verifies it then, and it stays closed, built once (issue 38)',
    versions: BOTH,
    async run(t) {
      // the retry changes the work again (an unchanged tree is DDx's no_changes)
      const p = t.project(one(), { responses: [{ when: ID }, { when: ID, commit: { path: `work/${ID}.txt`, content: 'again\n' } }] });
      const verifying = join(p.scratch, 'verifying');
      const second = join(p.scratch, 'second');
      // on current DDx helix's gate runs the command first, before DDx lands: it passes there at once
      // (DDx's check environment has EVIDENCE_DIR), so the kill comes in helix's own verification after landing
      const env = { HELIX_VERIFY_CMD: `test -n "$EVIDENCE_DIR" || test -e ${second} || { touch ${verifying}; sleep 60; }` };
      const run = p.helixInBackground(['run', '--summary', '--no-auto-review', '--no-auto-align'], env);
      while (!existsSync(verifying)) await delay(50);
      const tag = processTagOf(run.child.pid!, processStartOf(run.child.pid!)!);
      run.child.kill('SIGKILL');
      await run.done;
      const killed = Date.now();
      while (taggedProcesses(tag).length > 0 && Date.now() - killed < 30_000) await delay(50);
      writeFileSync(second, '');
      const next = p.helix(['run', '--summary', '--no-auto-review', '--no-auto-align'], env);
      expect(next.status, next.stderr).toBe(0);
      expect(p.bead(ID).status, next.stderr).toBe('closed');
      if (t.version === 'current') {
        expect(next.stderr).toMatch(new RegExp(`^helix: ${ID}: DDx landed and closed it, and its run ended before helix verified it after landing: verifying now: `, 'm'));
        expect(workedIds(p)).toEqual([ID]);
        expect(p.bead(ID)['helix-try-run']).toBeUndefined();
      } else {
        // v0.6.1 closes nothing itself: helix's claim is reclaimed and the bead built again
        expect(workedIds(p)).toEqual([ID, ID]);
      }
    },
  },
  {
    name: 'a drained, unchanged repo after an aligned run costs the check only, also where DDx writes its own run-state.json over helix\'s during the build (current)',
    versions: BOTH,
    run(t) {
      const p = t.project(one());
      const actions = (from: number) => p.calls().slice(from).filter((c) => c.action === 'check' || c.action === 'align' || c.kind === 'worked').map((c) => (c.kind === 'worked' ? 'build' : c.action));
      const first = p.helix(['run', '--summary', '--no-auto-review']);
      expect(first.status, first.stderr).toBe(0);
      expect(actions(0)).toEqual(['build', 'check', 'align']);
      const before = p.calls().length;
      const second = p.helix(['run', '--summary', '--no-auto-review']);
      expect(second.status, second.stderr).toBe(0);
      expect(actions(before)).toEqual(['check']);
    },
  },
  {
    name: 'detached HEAD: refused before claiming, one line, exit 13',
    versions: BOTH,
    run(t) {
      const p = t.project(one());
      gitIn(p, 'checkout', '-q', '--detach');
      const before = readFileSync(p.beadsFile, 'utf8');
      const r = p.helix(BUILD);
      expect(r.status).toBe(13);
      expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^helix: HEAD is detached: DDx v\S+ lands a build on the checked-out branch\. Check out a branch .* Nothing was claimed\.$/)]);
      expect(readFileSync(p.beadsFile, 'utf8')).toBe(before);
      expect(workedIds(p)).toEqual([]);
    },
  },
  {
    name: 'a clone on a feature branch: current DDx refuses it (helix first, one line) unless HELIX_ALLOW_NON_DEFAULT_BRANCH=1; v0.6.1 builds there and pushes',
    versions: BOTH,
    run(t) {
      const p = t.project(one());
      const origin = addOrigin(p);
      gitIn(p, 'checkout', '-q', '-b', 'feature');
      gitIn(p, 'push', '-q', '-u', 'origin', 'feature');
      if (t.version === 'current') {
        const refused = p.helix(BUILD);
        expect(refused.status).toBe(13);
        expect(refused.stderr).toMatch(/^helix: branch feature tracks feature, not origin's default branch main, and DDx \S+ refuses to build there: .*HELIX_ALLOW_NON_DEFAULT_BRANCH=1.* Nothing was claimed\.\n$/);
        expect(workedIds(p)).toEqual([]);
        // and DDx itself agrees
        expect(ddxIn(p, ['try', ID]).stderr).toMatch(/does not match remote default branch/);
      }
      const r = p.helix(BUILD, { HELIX_ALLOW_NON_DEFAULT_BRANCH: '1' });
      expect(r.status, r.stderr).toBe(0);
      expect(p.bead(ID).status).toBe('closed');
      expect(gitIn(p, 'cat-file', '-e', `feature:work/${ID}.txt`)).toBe('');
      expect(() => gitIn(p, 'cat-file', '-e', `main:work/${ID}.txt`)).toThrow();
      if (t.version === '0.6.1') expect(spawnSync('git', ['cat-file', '-e', `feature:work/${ID}.txt`], { cwd: origin }).status).toBe(0);
    },
  },
  {
    name: 'the user\'s uncommitted changes: refused before claiming (v0.6.1 would commit them, current refuses); never absorbed, committed or lost',
    versions: BOTH,
    run(t) {
      const p = t.project(one());
      writeFileSync(join(p.root, 'mine.txt'), 'my unfinished work\n');
      writeFileSync(join(p.root, 'README'), 'edited, not committed\n');
      const head = gitIn(p, 'rev-parse', 'HEAD');
      const r = p.helix(['run', '--summary']);
      expect(r.status).toBe(13);
      expect(r.stderr).toMatch(/^helix: uncommitted changes \((README, mine\.txt|mine\.txt, README)\): DDx \S+ (would commit them into its checkpoint commit on the branch|refuses to build over them)\. Commit or stash them, then run again\. Nothing was claimed\.\n$/);
      expect(gitIn(p, 'rev-parse', 'HEAD')).toBe(head);
      expect(readFileSync(join(p.root, 'mine.txt'), 'utf8')).toBe('my unfinished work\n');
      expect(p.bead(ID).status).toBe('open');
      expect(workedIds(p)).toEqual([]);
    },
  },
  {
    name: 'HELIX_AGENT_TIMEOUT reaches DDx\'s own wall clock (`ddx try --attempt-wall-clock`)',
    versions: ['current'],
    run(t) {
      const p = t.project(one());
      const r = p.helix(BUILD, { HELIX_AGENT_TIMEOUT: '900' });
      expect(r.status, r.stderr).toBe(0);
      const dry = p.helix(['build', '--dry-run'], { HELIX_AGENT_TIMEOUT: '900' });
      expect(dry.stdout).toMatch(/ddx try \S+ .*--attempt-wall-clock 900s/);
    },
  },
  {
    name: 'a DDx worker beside helix during a verification longer than DDx\'s 90 s claim TTL: it never takes the bead helix holds',
    versions: ['0.6.1'],
    realOnly: 'it waits out DDx\'s 90 s heartbeat TTL (the stand-in has the same TTL) and npm test stays fast',
    async run(t) {
      // the retry changes the work again (an unchanged tree is DDx's no_changes)
      const p = t.project(one(), { responses: [{ when: ID }, { when: ID, commit: { path: `work/${ID}.txt`, content: 'again\n' } }] });
      const verifying = join(p.scratch, 'verifying');
      const run = p.helixInBackground(BUILD, { HELIX_VERIFY_CMD: `touch ${verifying}; sleep 100` });
      while (!existsSync(verifying)) await delay(200);
      await delay(95_000); // past DDx's heartbeat TTL, counted from the last heartbeat before verification
      const loop = ddxIn(p, ['agent', 'execute-loop', '--local', '--once', '--harness', 'claude']);
      const done = await run.done;
      expect(done.status, done.stderr).toBe(0);
      expect(workedIds(p), loop.stdout + loop.stderr).toEqual([ID]);
      expect(p.bead(ID).status).toBe('closed');
    },
  },
  {
    name: 'v0.6.1: the prompt sends the agent to DDx\'s worktree, and a retry sees why the last attempt failed',
    versions: ['0.6.1'],
    run(t) {
      // the retry writes what the failed check asked for
      const p = t.project(one(), { responses: [{ when: ID }, { when: ID, commit: { path: `work/${ID}.txt`, content: '42\n' } }] });
      const first = p.helix(BUILD, { HELIX_VERIFY_CMD: 'echo the answer must be 42 >&2; false' });
      expect(first.status).toBe(1);
      const second = p.helix(BUILD);
      expect(second.status, second.stderr).toBe(0);
      const prompts = agentPrompts(p, ID);
      expect(prompts).toHaveLength(2);
      expect(prompts[0]).toMatch(/work in your current directory, never in \//);
      expect(prompts[0]).not.toMatch(/Execute in the current repository rooted at/);
      expect(prompts[1]).toMatch(/ATTEMPT FAILED \[[^\]]+\]: verification failed: .*the answer must be 42/);
      if (t.kind === 'real') {
        // the real agent ran in DDx's own worktree, not in the project
        const cwd = p.calls().find((c) => c.kind === 'execute')?.cwd;
        expect(cwd).toBeDefined();
        expect(cwd).not.toBe(p.root);
      }
    },
  },
  {
    name: 'current DDx: memories and context reach the agent through a marked notes block, removed afterwards (it stays in DDx\'s tracker commit)',
    versions: ['current'],
    run(t) {
      const p = t.project(one());
      const r = p.helix(BUILD);
      expect(r.status, r.stderr).toBe(0);
      const [prompt] = agentPrompts(p, ID);
      expect(prompt).toContain(NOTES_BEGIN);
      expect(prompt).toMatch(/Follow the HELIX implementation action at \S+implementation\.md/);
      expect(String(p.bead(ID).notes ?? '')).not.toContain(NOTES_BEGIN);
      expect(gitIn(p, 'log', '-p', '--', '.ddx/beads.jsonl')).toContain('helix: context for this attempt');
    },
  },
  {
    name: 'one review per build: DDx\'s before landing on current (helix adds none), helix\'s own on v0.6.1',
    versions: BOTH,
    run(t) {
      const p = t.project(one());
      const r = p.helix(['run', '--summary', '--max-cycles', '1', '--review-threshold', '0']);
      expect(r.status, r.stderr).toBe(0);
      const ddxReviews = p.calls().filter((c) => c.kind === 'ddx-review').length;
      const helixReviews = p.calls().filter((c) => c.action === 'review').length;
      expect([ddxReviews, helixReviews]).toEqual(t.version === 'current' ? [1, 0] : [0, 1]);
    },
  },
  {
    name: 'verification fails after DDx landed the work: the bead is reopened with the reason, the commit stays and helix says so (current DDx: the gate before landing passed it, helix\'s own verification after landing refuses it)',
    versions: BOTH,
    run(t) {
      const p = t.project(one());
      // passes in helix's gate (current DDx runs it before landing, in DDx's check environment) and
      // fails in helix's own verification after landing — as a verification can once DDx merged the
      // attempt onto a newer tip: the check after landing stays the judge of completion
      const r = p.helix(BUILD, { HELIX_VERIFY_CMD: 'test -n "$EVIDENCE_DIR"' });
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(new RegExp(`helix: ${ID}: DDx landed [0-9a-f]{12} before helix verified it, and verification failed: ${ID} is reopened and the commit stays on the branch`));
      expect(p.bead(ID).status).toBe('open');
      expect(gitIn(p, 'cat-file', '-e', `HEAD:work/${ID}.txt`)).toBe('');
      if (t.version === 'current') expect(String(p.bead(ID).notes)).toMatch(/REOPENED.*verification failed/);
    },
  },
  {
    name: 'DDx set to another bead backend: helix refuses with one line before any effect (exit 14)',
    versions: BOTH,
    run(t) {
      const p = t.project(one());
      const backend = t.version === 'current' ? 'axon' : 'bd';
      // v0.6.1 reads DDX_BEAD_BACKEND only, and uses bd/br when the tool is on PATH
      const env = t.version === 'current' ? { DDX_BEAD_BACKEND: backend } : { DDX_BEAD_BACKEND: backend, PATH: `${join(p.scratch, 'bin')}:${p.env.PATH}` };
      if (t.version === '0.6.1') {
        mkdirSync(join(p.scratch, 'bin')); // a stand-in `bd` on PATH
        writeFileSync(join(p.scratch, 'bin', 'bd'), '#!/bin/sh\necho "[]"\n', { mode: 0o755 });
      }
      const before = readFileSync(p.beadsFile, 'utf8');
      for (const args of [BUILD, ['tracker', 'list', '--json']]) {
        const r = p.helix(args, env);
        expect(r.status).toBe(14);
        expect(r.stderr).toMatch(new RegExp(`^helix: DDx keeps this project's beads in the ${backend} backend \\(DDX_BEAD_BACKEND\\); helix works only on \\.ddx/beads\\.jsonl and changed nothing`));
      }
      expect(readFileSync(p.beadsFile, 'utf8')).toBe(before);
      expect(workedIds(p)).toEqual([]);
    },
  },
  {
    name: 'a dependency on a bead DDx archived (beads-archive.jsonl): helix and DDx agree on what is ready',
    versions: ['current'],
    run(t) {
      const dependent = bead({ id: 'hx-00000002', title: 'waits on an archived bead', dependencies: [{ issue_id: 'hx-00000002', depends_on_id: 'hx-0000000a', type: 'blocks' }] as never });
      const p = t.project([...one(), dependent]);
      writeFileSync(join(p.root, '.ddx', 'beads-archive.jsonl'), `${JSON.stringify(bead({ id: 'hx-0000000a', status: 'closed', title: 'archived' }))}\n`);
      gitIn(p, 'add', '-A');
      gitIn(p, 'commit', '-q', '-m', 'archive');
      const ids = (text: string) => (JSON.parse(text) as Array<{ id: string }>).map((b) => b.id).sort();
      const helixReady = ids(p.helix(['tracker', 'ready', '--execution', '--json']).stdout);
      const ddxReady = ids(ddxIn(p, ['bead', 'ready', '--execution', '--json']).stdout);
      expect(helixReady).toEqual(ddxReady);
      expect(existsSync(join(p.root, '.ddx', 'beads-archive.jsonl'))).toBe(true);
    },
  },
  {
    name: "a provider's rate limit through DDx is a pause, not an attempt: nothing counted, the bead not parked (issue 30)",
    versions: BOTH,
    run(t) {
      const p = t.project(one(), { responses: [{ when: ID, provider: 'API Error: Request rejected (429) · This request would exceed the rate limit for your organization of 50 requests per minute.' }] });
      // --max-wait 0: the first limit stops the run (exit 20) instead of waiting a minute
      const r = p.helix(['run', '--summary', '--max-wait', '0'], { HELIX_BACKOFF_SLEEP: '0' });
      expect(r.status, r.stderr).toBe(20);
      expect(r.stderr).toMatch(/helix: stopping: LIMIT: claude rate limit/);
      expect(r.stderr).toMatch(/run complete: 0 attempted, 0 completed, 0 skipped/);
      expect(p.bead(ID).status).toBe('open');
      expect(p.bead(ID)['work-retry-after']).toBeUndefined();
      expect(p.bead(ID).owner ?? '').toBe('');
    },
  },
  {
    name: 'a setup error through DDx (an unknown model): the run stops at once with exit 22 and one line; nothing counted or parked (issue 30)',
    versions: BOTH,
    run(t) {
      const p = t.project(one(), { responses: [{ when: ID, provider: "There's an issue with the selected model (sonnet). It may not exist or you may not have access to it. Run --model to pick a different model." }] });
      const r = p.helix(['run', '--summary'], { HELIX_BACKOFF_SLEEP: '0' });
      expect(r.status, r.stderr).toBe(22);
      expect(r.stderr).toMatch(new RegExp(`helix: stopping: SETUP: the model is unknown or not available on ${ID}`));
      expect(r.stderr).toMatch(/run complete: 0 attempted, 0 completed, 0 skipped/);
      expect(p.bead(ID)['work-retry-after']).toBeUndefined();
      expect(p.bead(ID).status).toBe('open');
    },
  },
  {
    name: "every call DDx makes is on the bill: the completion line, the run total and helix status agree with DDx's session records (issue 30)",
    versions: BOTH,
    run(t) {
      const p = t.project(one(), { responses: [{ when: ID, tokens: 250, cost: 0.5 }] });
      const r = p.helix(['run', '--summary', '--no-auto-review', '--max-cycles', '1'], { HELIX_VERIFY_CMD: `test -f work/${ID}.txt` });
      expect(r.status, r.stderr).toBe(0);
      const sessions = join(p.root, '.ddx', 'agent-logs', 'sessions');
      const rows = readdirSync(sessions).flatMap((f) => readFileSync(join(sessions, f), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { tokens?: number }));
      const billed = rows.reduce((sum, row) => sum + (row.tokens ?? 0), 0);
      expect(billed).toBeGreaterThan(0);
      // the build's completion line, then the run total
      const build = /complete \(rc=\d+, \d+s, (\d+) tokens/.exec(r.stderr);
      expect(Number(build?.[1])).toBe(billed);
      expect(Number(/run complete: .*?, (\d+) tokens/.exec(r.stderr)?.[1])).toBe(billed);
      expect(JSON.parse(p.helix(['status', '--json']).stdout).run.total_tokens).toBe(billed);
    },
  },
  {
    name: "DDx's own uncommitted files are not the user's changes: the first run after `ddx init` builds (v0.6.1 folds them into its checkpoint; helix commits them for current DDx, which refuses over them) (issue 30)",
    versions: BOTH,
    run(t) {
      const p = t.project(one());
      // what each DDx leaves uncommitted (measured): v0.6.1's `ddx init` its skills, current's `ddx bead create` its lifecycle schema
      const own = t.version === '0.6.1' ? '.ddx/skills/ddx/SKILL.md' : '.ddx/lifecycle-schema.json';
      mkdirSync(join(p.root, own, '..'), { recursive: true });
      // as DDx writes it (a marker of another version makes current DDx refuse every build: a setup error)
      writeFileSync(join(p.root, own), `${JSON.stringify({ applied_at: '2026-11-28T20:15:02Z', schema: 'bead-lifecycle', source: 'ddx bead migrate --lifecycle', version: 1 }, null, 2)}\n`);
      const r = p.helix(['run', '--summary', '--no-auto-review', '--max-cycles', '1'], { HELIX_VERIFY_CMD: `test -f work/${ID}.txt` });
      expect(r.status, r.stderr).toBe(0);
      expect(p.bead(ID).status, r.stderr).toBe('closed');
      expect(gitIn(p, 'status', '--porcelain', '--', own)).toBe('');
      if (t.version === 'current') expect(r.stderr).toContain("helix: committed DDx's own project files before the build (.ddx/lifecycle-schema.json)");
    },
  },
  {
    name: "DDx's review malfunctions (its review gives no usable verdict): not the bead's failure, and its unreviewed, unchecked commit never lands — helix rejects it before the retry; three in a row stop the run as a setup problem (issues 30, 32)",
    versions: ['current'],
    run(t) {
      // no acceptance: the stand-in reviewer approves without per-AC evidence, which DDx calls a malfunction (measured) — every time
      const p = t.project([bead({ id: ID, title: 'write the work file', description: 'Create work/hx-00000001.txt.' })], { responses: [], defaults: { [ID]: { reviewMalfunction: true } } });
      const r = p.helix(['run', '--summary', '--review-threshold', '0', '--max-cycles', '1'], { HELIX_BACKOFF_SLEEP: '0', HELIX_VERIFY_CMD: `test -f work/${ID}.txt` });
      expect(r.status, r.stderr).toBe(22);
      expect(r.stderr).toMatch(/DDx's review could not run on hx-00000001 \(review_malfunction: .*\): not counted against it; trying again in 0s/);
      // DDx left the first attempt's result for its dangling-success recovery, which would land it unreviewed and unchecked
      expect(r.stderr).toMatch(new RegExp(`helix: ${ID}: DDx would land [0-9a-f]{12}, an earlier attempt no gate passed, unchecked; marked it preserved-result-rejected`));
      expect(r.stderr).toMatch(/stopping: SETUP: DDx's review could not run, 3 times in a row/);
      expect(r.stderr).toMatch(/run complete: 0 attempted, 0 completed/);
      expect(p.bead(ID).status).toBe('open');
      expect(gitIn(p, 'log', '--format=%h %s', 'HEAD', '--', `work/${ID}.txt`)).toBe('');
      expect(workedIds(p)).toEqual([ID, ID, ID]);
    },
  },
  {
    name: "current DDx, verified before it lands: a failing verify never lands — DDx preserves the attempt, makes no second one, and the bead goes back with the gate's reason; helix's check never enters the history (issue 32)",
    versions: ['current'],
    run(t) {
      const p = t.project(one());
      const r = p.helix(BUILD, { HELIX_VERIFY_CMD: 'echo "the answer must be 42" >&2; exit 3' });
      expect(r.status).toBe(1);
      // nothing of the attempt on the branch: no commit touches its file, which exists only under DDx's preserve ref
      expect(gitIn(p, 'log', '--format=%h %s', 'HEAD', '--', `work/${ID}.txt`)).toBe('');
      const kept = gitIn(p, 'for-each-ref', '--format=%(refname)', `refs/ddx/iterations/${ID}`);
      expect(kept).not.toBe('');
      expect(gitIn(p, 'cat-file', '-e', `${kept.split('\n')[0]}:work/${ID}.txt`)).toBe('');
      // one DDx attempt for helix's one attempt (--min-power 11 --max-power 12 stop DDx's own retries)
      expect(workedIds(p)).toEqual([ID]);
      expect(r.stderr).toMatch(new RegExp(`helix: build of ${ID} did not complete: verification failed before landing: echo .* exited 3: the answer must be 42; DDx kept it under refs/ddx/iterations/${ID}/\\S+, not landed`));
      expect(p.bead(ID).status).toBe('open');
      expect(String(p.bead(ID).notes)).toMatch(/ATTEMPT FAILED \[[^\]]+\]: verification failed before landing: .*the answer must be 42/);
      // the check: present only while helix builds, never committed, never seen by git
      expect(existsSync(join(p.root, '.ddx', 'checks', 'helix-verify.yaml'))).toBe(false);
      expect(gitIn(p, 'log', '--all', '--format=%h', '--', '.ddx/checks')).toBe('');
    },
  },
  {
    name: "current DDx, verified before it lands: a verify command that needs the project's installed (ignored) dependencies passes in the gate's own worktree, and the work lands (issue 32)",
    versions: ['current'],
    run(t) {
      const p = t.project(one());
      mkdirSync(join(p.root, 'node_modules', 'dep'), { recursive: true });
      writeFileSync(join(p.root, 'node_modules', 'dep', 'index.js'), 'module.exports = 42;\n');
      appendFileSync(join(p.root, '.gitignore'), 'node_modules/\n');
      gitIn(p, 'add', '.gitignore');
      gitIn(p, 'commit', '-q', '-m', 'ignore node_modules');
      // the attempt's file and the installed dependency, both needed
      const verify = `test -f work/${ID}.txt && node -e "process.exit(require('dep') === 42 ? 0 : 1)"`;
      const r = p.helix(BUILD, { HELIX_VERIFY_CMD: verify });
      expect(r.status, r.stderr).toBe(0);
      expect(p.bead(ID).status).toBe('closed');
      expect(gitIn(p, 'cat-file', '-e', `HEAD:work/${ID}.txt`)).toBe('');
      // helix's own verification after landing still judges completion
      expect(r.stderr).toContain(`helix: verifying: ${verify}`);
      // DDx ran helix's gate before landing, and it passed: its verdict is in the attempt's evidence
      const executions = join(p.root, '.ddx', 'executions');
      const verdicts = readdirSync(executions).map((a) => join(executions, a, 'checks', 'helix-verify.json')).filter(existsSync).map((f) => JSON.parse(readFileSync(f, 'utf8')));
      expect(verdicts).toEqual([{ status: 'pass', message: expect.stringMatching(/exited 0$/) }]);
      // the gate's worktree is gone, and nothing of it is left in git's list
      expect(gitIn(p, 'worktree', 'list', '--porcelain').split('\n').filter((l) => l.startsWith('worktree '))).toHaveLength(1);
    },
  },
  {
    name: "current DDx: an attempt no gate passed (its ddx try killed while the gate ran) is never landed by DDx's dangling-success recovery — helix rejects it first and DDx runs a new, checked attempt (issue 32)",
    versions: ['current'],
    run(t) {
      const p = t.project(one());
      // what such a kill leaves (measured, docs/ddx.md): the attempt's commit, kept by DDx's refs, and
      // its result.json saying task_succeeded — written before the check ran
      const base = gitIn(p, 'rev-parse', 'HEAD');
      gitIn(p, 'checkout', '-q', '-b', 'attempt');
      writeFileSync(join(p.root, 'unchecked.txt'), 'never verified\n');
      gitIn(p, 'add', 'unchecked.txt');
      gitIn(p, 'commit', '-q', '-m', `unchecked work [${ID}]`);
      const unchecked = gitIn(p, 'rev-parse', 'HEAD');
      gitIn(p, 'checkout', '-q', 'main');
      gitIn(p, 'update-ref', 'refs/ddx/iterations/20260101T000000-0000dead/0', unchecked);
      gitIn(p, 'branch', '-q', '-D', 'attempt');
      const bundle = join(p.root, '.ddx', 'executions', '20260101T000000-0000dead');
      mkdirSync(bundle, { recursive: true });
      writeFileSync(join(bundle, 'result.json'), JSON.stringify({ bead_id: ID, attempt_id: '20260101T000000-0000dead', base_rev: base, result_rev: unchecked, outcome: 'task_succeeded', status: 'success' }));
      const r = p.helix(BUILD, { HELIX_VERIFY_CMD: `test -f work/${ID}.txt` });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stderr).toContain(`helix: ${ID}: DDx would land ${unchecked.slice(0, 12)}, an earlier attempt no gate passed, unchecked; marked it preserved-result-rejected, so DDx runs a new, checked attempt`);
      expect(() => gitIn(p, 'merge-base', '--is-ancestor', unchecked, 'HEAD')).toThrow();
      expect(workedIds(p)).toEqual([ID]);
      expect(p.bead(ID).status).toBe('closed');
    },
  },
  {
    name: "current DDx: helix stopped (SIGTERM) while its gate runs: the gate answers block before DDx hears the stop, so DDx, cancelled, never lands the unchecked attempt (its cancel turns a running check into infra and lands: issue 38); the next run builds the bead again, checked",
    versions: ['current'],
    async run(t) {
      const p = t.project(one(), { responses: [{ when: ID }, { when: ID, commit: { path: `work/${ID}.txt`, content: 'again\n' } }] });
      const gating = join(p.scratch, 'gating');
      const second = join(p.scratch, 'second');
      // in the gate (DDx's check environment) the first time: stay until stopped; after landing, and the second time: pass
      const env = { HELIX_VERIFY_CMD: `if [ -n "$EVIDENCE_DIR" ] && [ ! -e ${second} ]; then touch ${gating}; sleep 60; fi; test -f work/${ID}.txt` };
      const run = p.helixInBackground(['run', '--summary', '--no-auto-review', '--no-auto-align'], env);
      while (!existsSync(gating)) await delay(50);
      const tag = processTagOf(run.child.pid!, processStartOf(run.child.pid!)!);
      run.child.kill('SIGTERM');
      const stoppedRun = await run.done;
      expect(stoppedRun.status).toBe(143);
      const stopped = Date.now();
      while (taggedProcesses(tag).length > 0 && Date.now() - stopped < 30_000) await delay(50);
      expect(taggedProcesses(tag)).toEqual([]);
      // never landed, never closed: DDx heard the stop only after the gate had answered block
      expect(gitIn(p, 'log', '--format=%h %s', 'HEAD', '--', `work/${ID}.txt`)).toBe('');
      expect(p.bead(ID).status).not.toBe('closed');
      writeFileSync(second, '');
      const next = p.helix(['run', '--summary', '--no-auto-review', '--no-auto-align'], env);
      expect(next.status, next.stderr).toBe(0);
      expect(p.bead(ID).status).toBe('closed');
      expect(readFileSync(join(p.root, 'work', `${ID}.txt`), 'utf8')).toBe('again\n');
      expect(workedIds(p)).toEqual([ID, ID]);
      // the gate's worktree of the stopped run is gone too
      expect(gitIn(p, 'worktree', 'list', '--porcelain').split('\n').filter((l) => l.startsWith('worktree '))).toHaveLength(1);
    },
  },
  {
    name: "current DDx: a ddx try that dies holding its bead (SIGKILLed mid-attempt): helix releases DDx's claim at once and builds the bead again in the same run (issue 32: seen at --jobs 8)",
    versions: ['current'],
    run(t) {
      // an id of its own: the kill is by command line, and other scenarios build hx-00000001 meanwhile
      const id = 'hx-0c0ffee1';
      const beads = [bead({ id, title: 'write the work file', description: `Create work/${id}.txt.`, acceptance: `work/${id}.txt exists` })];
      // the first attempt's agent kills the ddx try that runs it (the stand-in: the ddx try itself)
      const p = t.project(beads, { responses: [{ when: id, run: [['pkill', '-9', '-f', `ddx try ${id}`]] }, { when: id, commit: { path: `work/${id}.txt`, content: 'built\n' } }] });
      const r = p.helix(['run', '--summary', '--no-auto-review', '--no-auto-align'], { HELIX_BACKOFF_SLEEP: '0' });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stderr).toMatch(new RegExp(`^helix: released DDx's claim on ${id}: its ddx try \\(pid \\d+\\) ended without releasing it$`, 'm'));
      expect(p.bead(id).status).toBe('closed');
      expect(readFileSync(join(p.root, 'work', `${id}.txt`), 'utf8')).toBe('built\n');
    },
  },
  {
    name: "current DDx: git cannot move the branch at the land (a lock a killed git left, .git/HEAD.lock): nothing lands and no work is staged in the checkout; helix reads it as infrastructure and waits, not as the bead's failure; once a person removes the lock, the next try lands it",
    versions: ['current'],
    standinOnly:
      "the real ae663ca012 never reaches its land with the lock there: it retries its tracker commit while the lock stays — before the build when the lock was there first (measured: still retrying after 12 min), after it when the build left the lock; the stand-in's land answers as DDx's does when git refuses to move the branch (read from execute_bead_report.go MarkResultLandError: `cannot lock ref` is land_retry)",
    async run(t) {
      const p = t.project(one());
      const lock = join(p.root, '.git', 'HEAD.lock');
      // the first build leaves the lock behind it, as a git killed mid-commit does
      p.script({ responses: [{ when: ID, run: [['touch', lock]] }, { when: ID }] });
      // a backoff of 3 s (the project's is 0): helix waits before it tries again, time for a person to remove the lock
      const run = p.helixInBackground(['run', '--summary', '--no-auto-review', '--no-auto-align'], { HELIX_BACKOFF_SLEEP: '3' });
      let ended = false;
      void run.done.then(() => (ended = true));
      while (!/DDx's git work collided/.test(run.stderrSoFar()) && !ended) await delay(50);
      expect(run.stderrSoFar()).toMatch(new RegExp(`^helix: DDx's git work collided with a ddx try beside it on ${ID} \\(land coordination retry: .*cannot lock ref 'HEAD'.*\\): not counted against it; trying again in 3s$`, 'm'));
      expect(gitIn(p, 'log', '--format=%h', 'HEAD', '--', 'work')).toBe('');
      // DDx's own tracker file may be staged (a tracker commit that failed after `git add`), no work is
      expect(gitIn(p, 'diff', '--cached', '--name-only')).not.toMatch(/work\//);
      expect(existsSync(join(p.root, 'work', `${ID}.txt`))).toBe(false);
      rmSync(lock);
      const r = await run.done;
      expect(r.status, r.stderr).toBe(0);
      expect(p.bead(ID).status).toBe('closed');
      expect(gitIn(p, 'cat-file', '-e', `HEAD:work/${ID}.txt`)).toBe('');
      expect(workedIds(p)).toEqual([ID, ID]);
    },
  },
  {
    name: '--jobs 3 (issue 32): beads on other files build at once in DDx\'s own worktrees, two on one file never together, every one lands',
    versions: ['current'],
    run(t) {
      const files = ['work/a.txt', 'work/a.txt', 'work/c.txt', 'work/d.txt'];
      const beads = files.map((file, i) => bead({ id: `hx-0000001${i}`, title: `write ${file}`, description: `Create ${file}.`, acceptance: `${file} exists` }));
      // the second bead rewrites the first one's file: it must wait for it
      const p = t.project(beads, { responses: beads.map((b, i) => ({ when: b.id, delayMs: 1500, commit: { path: files[i], content: `${b.id}\n` } })) });
      ignoreDdxRuntime(p);
      const r = p.helix(['run', '--summary', '--jobs', '3', '--no-auto-align'], { HELIX_BACKOFF_SLEEP: '0' });
      expect(r.status, r.stderr).toBe(0);
      for (const b of beads) expect(p.bead(b.id).status).toBe('closed');
      for (const file of ['work/a.txt', 'work/c.txt', 'work/d.txt']) expect(gitIn(p, 'cat-file', '-e', `HEAD:${file}`)).toBe('');
      const spans = buildSpans(p);
      const together = (x: string, y: string) => spans[x]!.start < spans[y]!.end && spans[y]!.start < spans[x]!.end;
      expect(together('hx-00000010', 'hx-00000011')).toBe(false);
      // and the fleet really ran side by side
      expect(together('hx-00000010', 'hx-00000012') || together('hx-00000012', 'hx-00000013')).toBe(true);
    },
  },
  {
    name: "--jobs 2 where git does not ignore DDx's runtime files (issue 32): refused with one line before anything is claimed — two ddx try would refuse over each other's agent logs (measured)",
    versions: ['current'],
    run(t) {
      const p = t.project(one());
      // `ddx init`'s .gitignore without its runtime lines (a project set up by hand)
      const ignored = existsSync(join(p.root, '.gitignore')) ? readFileSync(join(p.root, '.gitignore'), 'utf8') : '';
      writeFileSync(join(p.root, '.gitignore'), ignored.split('\n').filter((l) => !l.includes('agent-logs')).join('\n'));
      gitIn(p, 'add', '-A');
      gitIn(p, 'commit', '-q', '--allow-empty', '-m', 'no DDx runtime ignores');
      const before = readFileSync(p.beadsFile, 'utf8');
      const r = p.helix(['run', '--summary', '--jobs', '2']);
      expect(r.status).toBe(13);
      expect(r.stderr.trim()).toMatch(/^helix: --jobs 2: git does not ignore DDx's runtime files here .*Nothing was claimed\.$/);
      expect(readFileSync(p.beadsFile, 'utf8')).toBe(before);
      expect(workedIds(p)).toEqual([]);
    },
  },
  {
    name: '--jobs 2 without current DDx (issue 32): refused with one line before anything is claimed',
    versions: ['0.6.1'],
    run(t) {
      const p = t.project(one());
      const before = readFileSync(p.beadsFile, 'utf8');
      const r = p.helix(['run', '--summary', '--jobs', '2']);
      expect(r.status).toBe(7);
      expect(r.stderr.trim()).toMatch(/^helix: --jobs 2 needs current DDx \(`ddx try`, v0\.6\.2-alpha50 or later\).*Nothing was claimed\.$/);
      expect(readFileSync(p.beadsFile, 'utf8')).toBe(before);
    },
  },
];

/** DDx's runtime files ignored as `ddx init`'s .gitignore does (the real targets have it; the stand-in's projects not). */
function ignoreDdxRuntime(p: Parameters<typeof gitIn>[0]): void {
  if (spawnSync('git', ['check-ignore', '-q', '.ddx/agent-logs/x'], { cwd: p.root }).status === 0) return;
  appendFileSync(join(p.root, '.gitignore'), '.ddx/agent-logs/\n');
  gitIn(p, 'add', '.gitignore');
  gitIn(p, 'commit', '-q', '-m', "DDx's runtime ignores");
}

/** When each bead's build was in flight, from the run's event log (its dispatch to its agent_done). */
function buildSpans(p: { root: string }): Record<string, { start: number; end: number }> {
  const logs = join(p.root, '.helix-logs');
  const spans: Record<string, { start: number; end: number }> = {};
  for (const file of readdirSync(logs).filter((f) => f.endsWith('.events.ndjson'))) {
    for (const line of readFileSync(join(logs, file), 'utf8').split('\n').filter(Boolean)) {
      const e = JSON.parse(line) as { type: string; action?: string; bead?: string; t: string };
      if (!e.bead || e.action !== 'build') continue;
      const at = Date.parse(e.t);
      if (e.type === 'dispatch') spans[e.bead] = { start: at, end: Number.POSITIVE_INFINITY };
      if (e.type === 'agent_done' && spans[e.bead]) spans[e.bead]!.end = at;
    }
  }
  return spans;
}
