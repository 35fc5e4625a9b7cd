// SIGHUP, SIGINT, SIGTERM and SIGKILL of `helix run` at each phase of a cycle: before the claim
// (ddx's version probe hangs), during the agent, during verification, during the close (helix is
// waiting for the tracker lock to write it). Each waits for an observable event — a marker file a
// stand-in writes, a line on stderr — never for time. Each asserts: no bead left claimed by a dead
// run (after the recovery the README promises: the next run reclaims orphans), no process left,
// nothing lost (the other bead untouched), one clear line.
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HELIX_BIN, cleanEnv } from '../helpers/cli.js';
import { isRunning } from '../agents/process-helpers.js';
import { Project, RUN_COMPLETE, STUBS, waitUntil } from '../run/stub-project.js';
import { bead } from '../helpers/bead.js';
import { beadState, exitText, generic, lineMatching, markerPids, processesLeft, report } from './fault-checks.js';

const TARGET = 'hx-000000aa';
const OTHER = 'hx-000000bb';
const SIGNALS = ['SIGHUP', 'SIGINT', 'SIGTERM', 'SIGKILL'] as const;
type Signal = (typeof SIGNALS)[number];
const CODE: Record<Signal, number | null> = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143, SIGKILL: null };

interface Running {
  child: ChildProcess;
  stderr: () => string;
  done: Promise<{ status: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

function start(p: Project, env: NodeJS.ProcessEnv): Running {
  const child = spawn(process.execPath, [HELIX_BIN, 'run', '--summary'], { cwd: p.root, env: { ...cleanEnv(), ...p.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<{ status: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) => {
    child.on('close', (status, signal) => resolve({ status, signal, stderr }));
  });
  return { child, stderr: () => stderr, done };
}

interface Phase {
  name: string;
  /** Arranges the project; returns the env for the run and the marker that says the phase began. */
  arrange(p: Project): { env: NodeJS.ProcessEnv; marker: string };
  /** Waits until helix is in the phase (beyond the marker, if needed). */
  inPhase(p: Project, run: Running, marker: string): Promise<void>;
  /** Lets helix go on after the signal was sent (the close phase releases the lock it waits for). */
  release?(p: Project): void;
}

const writeScript = (path: string, body: string) => {
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
};

const PHASES: Phase[] = [
  {
    name: 'before the claim',
    // ddx's `version --no-check` probe, which every run asks before it touches the tracker
    arrange(p) {
      const marker = p.path('probe.pid');
      const bin = p.path('bin');
      rmSync(bin, { recursive: true, force: true });
      mkdirSync(bin);
      writeScript(join(bin, 'ddx'), `if [ "$1 $2" = "version --no-check" ] && [ ! -e "$HELIX_FAULT_MARK" ]; then echo $$ > "$HELIX_FAULT_MARK.tmp"; mv "$HELIX_FAULT_MARK.tmp" "$HELIX_FAULT_MARK"; exec sleep 600; fi\nexec "${join(STUBS, 'ddx')}" "$@"`);
      return { env: { PATH: `${bin}:${p.env.PATH}`, HELIX_FAULT_MARK: marker }, marker };
    },
    inPhase: async (_p, _run, marker) => waitUntil(() => existsSync(marker), 'the probe to start'),
  },
  {
    name: 'during the agent',
    arrange(p) {
      const marker = p.path('agent.json');
      p.script({ responses: [{ when: 'execute-bead', marker, spawnChild: true, hang: true }] });
      return { env: {}, marker };
    },
    inPhase: async (_p, _run, marker) => waitUntil(() => existsSync(marker), 'the agent to start'),
  },
  {
    name: 'during verification',
    // the agent closes the bead itself; helix is running HELIX_VERIFY_CMD when the signal comes
    arrange(p) {
      const marker = p.path('verify.pid');
      p.script({ responses: [{ when: 'execute-bead', run: [['helix', 'tracker', 'close', '{{id}}']], result: {} }] });
      const verify = writeScript(p.path('verify.sh'), `[ -e "$HELIX_FAULT_MARK" ] && exit 0\necho $$ > "$HELIX_FAULT_MARK.tmp"; mv "$HELIX_FAULT_MARK.tmp" "$HELIX_FAULT_MARK"\nexec sleep 600`);
      return { env: { HELIX_VERIFY_CMD: verify, HELIX_FAULT_MARK: marker }, marker };
    },
    inPhase: async (_p, _run, marker) => waitUntil(() => existsSync(marker), 'verification to start'),
  },
  {
    name: 'during the close',
    // verification passes while another writer (this test) holds the tracker lock, so helix's
    // close of the bead waits for it; the signal comes while it waits
    arrange(p) {
      const marker = p.path('verify.pid');
      const lock = join(p.root, '.ddx', 'beads.lock');
      p.script({ responses: [{ when: 'execute-bead', result: {} }] });
      const verify = writeScript(
        p.path('verify.sh'),
        `[ -e "$HELIX_FAULT_MARK" ] && exit 0\nmkdir "${lock}" && echo ${process.pid} > "${lock}/pid" && date -u +%Y-%m-%dT%H:%M:%SZ > "${lock}/acquired_at"\necho $$ > "$HELIX_FAULT_MARK"`,
      );
      return { env: { HELIX_VERIFY_CMD: verify, HELIX_FAULT_MARK: marker }, marker };
    },
    // the `verify complete` line comes right before the close, with no wait in between
    inPhase: async (_p, run) => waitUntil(() => /verify complete \(rc=0/.test(run.stderr()), 'verification to pass'),
    release: (p) => rmSync(join(p.root, '.ddx', 'beads.lock'), { recursive: true, force: true }),
  },
];

describe('signals at each phase of a cycle', () => {
  for (const phase of PHASES) {
    for (const signal of SIGNALS) {
      it(`${signal} ${phase.name}`, async () => {
        const p = new Project({ beads: [bead({ id: TARGET, title: 'Target' }), bead({ id: OTHER, title: 'Other' })] });
        const other = p.bead(OTHER);
        const { env, marker } = phase.arrange(p);
        const run = start(p, env);
        await phase.inPhase(p, run, marker);
        const pids = markerPids(marker);
        const runningAtSignal = pids.filter(isRunning).length;
        run.child.kill(signal);
        phase.release?.(p);
        const result = await run.done;
        const left = await processesLeft(pids, signal === 'SIGKILL', runningAtSignal);
        const after = p.bead(TARGET);

        expect(left.after, `processes left: ${left.text}`).toBe(0);
        // a handled signal reaps the call before helix exits; after SIGKILL helix's watchdog does
        if (signal !== 'SIGKILL') expect(left.atExit, `processes left at exit: ${left.text}`).toBe(0);
        expect(p.bead(OTHER)).toEqual(other); // nothing else touched
        let line: string;
        let recovery = '—';
        if (signal === 'SIGKILL') {
          expect(result.signal).toBe('SIGKILL');
          // the recovery the README promises: the next run reclaims the orphan (or reopens an
          // unverified close) and does the work
          const next = p.helix(['run'], { ...env, HELIX_VERIFY_CMD: '' });
          expect(next.status, next.stderr).toBe(0);
          const recovered = lineMatching(next.stderr, /reclaiming orphaned|reopened/);
          if (after.status === 'in_progress') expect(recovered).toContain(`reclaiming orphaned ${TARGET}`);
          if (after.status === 'closed') expect(recovered).toContain(`reopened ${TARGET}`);
          expect(p.statuses(TARGET, OTHER)).toEqual(['closed', 'closed']);
          recovery = recovered ? `${generic(recovered)}; then both beads closed` : 'nothing to recover; both beads closed';
          line = '(none: SIGKILL cannot be handled)';
        } else {
          expect(result.status).toBe(CODE[signal]);
          line = lineMatching(result.stderr, /^helix: interrupted by /);
          expect(line).toMatch(new RegExp(`^helix: interrupted by ${signal}`));
          expect(existsSync(join(p.root, '.ddx', 'helix.pid'))).toBe(false);
          // a run interrupted before it began prints no run-complete line (it never started)
          if (phase.name === 'before the claim') expect(line).toBe(`helix: interrupted by ${signal} before the run started; nothing was changed`);
          else expect(result.stderr).toMatch(RUN_COMPLETE);
          if (phase.name === 'during the close') {
            // the close went through before the signal was handled: the work is done and counted
            expect(after.status).toBe('closed');
            expect(RUN_COMPLETE.exec(result.stderr)?.slice(1, 3)).toEqual(['1', '1']);
          } else {
            expect(after.status).toBe('open');
            for (const key of ['claimed-pid', 'claim-token', 'owner']) expect(after).not.toHaveProperty(key);
          }
          if (phase.name !== 'before the claim') expect(p.runState()).toMatchObject({ stop_reason: 'stopped', interrupted_by: signal, current_issue: null });
          if (phase.name === 'during verification') expect(String(after.notes)).toContain('interrupted before verification finished');
        }
        report({
          group: 'signals',
          scenario: `${signal} ${phase.name}`,
          exit: exitText(result),
          bead: beadState(after),
          processes: left.text,
          recovery,
          line: generic(line, p.root),
        });
      });
    }
  }
});
