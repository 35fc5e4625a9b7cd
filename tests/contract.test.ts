// The interface's numbers and names, written out as literals in one place (issue #17 point 6):
// exit codes, default values and file names from docs/contract/ (cli.md, bash-interface.md)
// and the README's exit-code table. Other tests may compare against the constants the code reads;
// this one never does, so renumbering errors.ts or changing a default in src/ fails here.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_EFFORT, DEFAULT_EXECUTE_BEAD_EFFORT, TIMEOUT_EXIT_CODE, agentTimeoutSeconds } from '../src/agents/index.js';
import { exitCodeForSignal } from '../src/agents/process-group.js';
import { CHILD_EXIT, EXIT } from '../src/errors.js';
import { resolveDbPath } from '../src/memory/paths.js';
import { writeContext } from '../src/supervisor/shell/context.js';
import { pidFilePath } from '../src/supervisor/shell/mutex.js';
import { SessionOutput } from '../src/supervisor/shell/output.js';
import { MAX_ATTEMPTS, backoffSeconds, defaultSettings } from '../src/supervisor/core/policy.js';
import { runStatePath } from '../src/supervisor/shell/run-state.js';
import { LOCK_DIR_NAME } from '../src/tracker/lock.js';
import { BeadStore, INJECTED_KEY, QUARANTINE_FILE, RUNTIME_EXCLUDES, lockTimeoutMs, orphanThresholdSec, trackerDir } from '../src/tracker/index.js';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'helix-contract-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('exit codes', () => {
  it('every helix exit code has the documented number', () => {
    expect({ ...EXIT }).toEqual({
      ok: 0,
      error: 1,
      runActive: 2,
      notFound: 3,
      conflict: 4,
      lockTimeout: 5,
      malformedStore: 6,
      validation: 7,
      staleToken: 8,
      openDependencies: 9,
      storeUnavailable: 10,
      reviewIssuesFound: 10,
      missingTool: 11,
      writeFailed: 12,
      repositoryState: 13,
      otherBeadBackend: 14,
      beadsLost: 15,
      trackerUnusable: 16,
      memoryTooNew: 17,
      importMalformed: 18,
      memoryRejected: 19,
      limitWait: 20,
      budget: 21,
      setup: 22,
      notInGitWorkTree: 23,
      hangup: 129,
      interrupted: 130,
      brokenPipe: 141,
      terminated: 143,
    });
  });

  it('a child process that did not exit on its own gets the status a shell would give it', () => {
    expect({ ...CHILD_EXIT }).toEqual({ timedOut: 124, cannotRun: 126, notFound: 127, signalBase: 128 });
    expect(TIMEOUT_EXIT_CODE).toBe(124);
    expect(exitCodeForSignal('SIGINT')).toBe(130);
    expect(exitCodeForSignal('SIGTERM')).toBe(143);
    expect(exitCodeForSignal('SIGKILL')).toBe(137);
  });
});

describe('defaults', () => {
  it('HELIX_AGENT_TIMEOUT: 2700 s', () => {
    expect(agentTimeoutSeconds({})).toBe(2700);
  });

  it('HELIX_ORPHAN_THRESHOLD: 7200 s', () => {
    expect(orphanThresholdSec({})).toBe(7200);
  });

  it('DDX_BEAD_LOCK_TIMEOUT: 10 s', () => {
    expect(lockTimeoutMs({})).toBe(10_000);
  });

  it('backoff after the n-th failure: 5, 10, 20, 40 s, capped at 40; a bead is skipped after 4 attempts', () => {
    expect([1, 2, 3, 4, 5, 9].map((n) => backoffSeconds(n))).toEqual([5, 10, 20, 40, 40, 40]);
    expect(MAX_ATTEMPTS).toBe(4);
  });

  it('run: --review-every 15, --review-threshold 100, --max-cycles 0, systemic 3, velocity 5 × and 60 s, auto-align and auto-review on', () => {
    expect(defaultSettings({})).toEqual({
      maxCycles: 0,
      reviewEvery: 15,
      autoAlign: true,
      autoReview: true,
      reviewThreshold: 100,
      backoffOverride: undefined,
      systemicThreshold: 3,
      velocityFactor: 5,
      velocitySeconds: 60,
      // issue 24: wait out usage limits up to 6 hours; no spend cap unless one is given
      maxWaitMs: 6 * 3_600_000,
      budget: {},
      jobs: 1,
    });
  });

  it('effort per action; execute-bead medium', () => {
    expect({ ...DEFAULT_EFFORT }).toEqual({
      build: 'medium',
      check: 'low',
      align: 'high',
      backfill: 'high',
      design: 'high',
      polish: 'medium',
      review: 'high',
      experiment: undefined,
    });
    expect(DEFAULT_EXECUTE_BEAD_EFFORT).toBe('medium');
  });
});

describe('file names', () => {
  it('the tracker: .ddx/beads.jsonl, its lock folder, quarantine file, pid file and run-state', () => {
    const root = tempDir();
    mkdirSync(join(root, '.git'));
    const dir = trackerDir(root, {});
    expect(relative(root, dir)).toBe('.ddx');
    expect(relative(root, new BeadStore(dir, {}).file)).toBe('.ddx/beads.jsonl');
    expect(LOCK_DIR_NAME).toBe('beads.lock');
    expect(QUARANTINE_FILE).toBe('beads.quarantine.jsonl');
    expect(relative(root, pidFilePath(dir))).toBe('.ddx/helix.pid');
    expect(relative(root, runStatePath(dir))).toBe('.ddx/run-state.json');
    expect(INJECTED_KEY).toBe('helix-injected');
  });

  it('the runtime files git is told to ignore', () => {
    expect(RUNTIME_EXCLUDES).toEqual([
      '.ddx/beads.lock',
      '.ddx/beads.lock.stale-*',
      '.ddx/beads.lock.break',
      '.ddx/beads.lock.tombstone.*',
      '.ddx/beads.jsonl.tmp-*',
      '.ddx/beads.jsonl.bak-*',
      '.ddx/helix.pid',
      '.ddx/run-state.json',
      '.ddx/run-state.json.tmp-*',
      '.helix/',
      '.helix-logs/',
      '.ddx/checks/helix-verify.yaml*',
    ]);
  });

  it('.helix/context.md, .helix/helix.db and .helix-logs/helix-YYYYMMDD-HHMMSS.log', () => {
    const root = tempDir();
    mkdirSync(join(root, '.ddx'));
    expect(relative(root, writeContext(root, 'x'))).toBe('.helix/context.md');
    expect(relative(root, resolveDbPath(root, {}))).toBe('.helix/helix.db');
    const output = new SessionOutput(root, 'normal', new Date(2026, 0, 2, 3, 4, 5), () => undefined, () => undefined);
    expect(relative(root, output.logPath)).toBe('.helix-logs/helix-20260102-030405.log');
  });
});
