// Orphan recovery as the loop performs it (shell/recovery.ts), through a real RunContext on a real
// tracker: what a run killed in the middle of an attempt left — a bead closed but never verified,
// helix's notes block, DDx's claim of a `ddx try` whose run is gone, a bead DDx landed that was
// never verified after landing (verified now, with the bead's own command as a real `sh -c`) — and
// a bead DDx landed but was killed before closing (closed on the commit helix's gate passed), and
// a stale helix claim released at once when nothing of its claimer is left, its injected memories
// fed back as not having helped.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { processTagOf } from '../../../src/agents/descendants.js';
import type { MemoryPort } from '../../../src/supervisor/shell/memory-port.js';
import { TRY_RUN_KEY } from '../../../src/supervisor/shell/bead-writes.js';
import { gateRecordPath } from '../../../src/supervisor/core/gate-decisions.js';
import { recoverOrphans } from '../../../src/supervisor/shell/recovery.js';
import { NOTES_BEGIN, NOTES_END } from '../../../src/supervisor/text/ddx-notes.js';
import { bead } from '../../helpers/bead.js';
import { runWorld } from './run-world.js';

async function deadPid(): Promise<number> {
  const child = spawn('true');
  await once(child, 'exit');
  return child.pid!;
}

describe('recovery at the start of a run', () => {
  it('reopens a bead closed during the attempt of a run that died before verifying it; one closed before that stays closed', async () => {
    const since = Date.parse('2026-11-28T12:00:00Z');
    const w = await runWorld({ beads: [bead({ id: 'hx-1', status: 'closed', closed_at: '2026-11-28T12:05:00Z' }), bead({ id: 'hx-2', status: 'closed', closed_at: '2026-11-28T11:00:00Z' })] });
    const event = await recoverOrphans(w.run, 'start', { id: 'hx-1', since, pid: 4242 });
    expect(w.project.bead('hx-1').status).toBe('open');
    expect(String(w.project.bead('hx-1').notes)).toContain('closed during an attempt that was never verified: its run (pid 4242) ended first');
    expect(w.stderr).toContain('helix: reopened hx-1: closed during an attempt of run pid 4242, which ended before verifying it');
    expect(await recoverOrphans(w.run, 'start', { id: 'hx-2', since, pid: 4242 })).toMatchObject({ type: 'orphansRecovered', why: 'start' });
    expect(w.project.bead('hx-2').status).toBe('closed');
    expect(event).toEqual({ type: 'orphansRecovered', why: 'start', readyBefore: 1, readyAfter: 1 });
  });

  it("takes helix's notes block out of every bead that still has one", async () => {
    const w = await runWorld({ beads: [bead({ id: 'hx-1', notes: `mine\n\n${NOTES_BEGIN}\nold context\n${NOTES_END}` })] });
    await recoverOrphans(w.run, 'start', undefined);
    expect(w.project.bead('hx-1').notes).toBe('mine');
  });

  it("releases DDx's claim of a `ddx try` whose run is gone, and keeps one whose run still has a process", async () => {
    const gone = processTagOf(await deadPid(), '1');
    const live = processTagOf(await deadPid(), '2');
    const call = spawn('sleep', ['60'], { env: { PATH: process.env.PATH, HELIX_CALL_ID: live }, stdio: 'ignore' });
    await once(call, 'spawn');
    try {
      const ddxPid = await deadPid();
      const held = { status: 'in_progress', owner: 'ddx' } as const;
      const w = await runWorld({ beads: [bead({ id: 'hx-gone', ...held, [TRY_RUN_KEY]: gone }), bead({ id: 'hx-live', ...held, [TRY_RUN_KEY]: live })] });
      mkdirSync(w.run.store.leaseDir, { recursive: true });
      for (const id of ['hx-gone', 'hx-live']) writeFileSync(join(w.run.store.leaseDir, `${id}.json`), JSON.stringify({ pid: ddxPid, machine: hostname(), updated_at: new Date().toISOString() }));
      const event = await recoverOrphans(w.run, 'start', undefined);
      expect(w.project.bead('hx-gone')).toMatchObject({ status: 'open' });
      expect(w.project.bead('hx-gone')[TRY_RUN_KEY]).toBeUndefined();
      expect(w.stderr).toContain(`helix: released DDx's claim on hx-gone: the ddx try of a killed run (ddx pid ${ddxPid}) is gone and nothing of that run is left`);
      expect(w.project.bead('hx-live')).toMatchObject({ status: 'in_progress', owner: 'ddx', [TRY_RUN_KEY]: live });
      expect(event).toMatchObject({ readyBefore: 1 });
    } finally {
      call.kill('SIGKILL');
    }
  });

  it('verifies a bead DDx landed after its run ended: kept closed when it passes, reopened with the reason when it fails; the lease its killed ddx left is removed', async () => {
    const tag = processTagOf(await deadPid(), '1');
    const landed = (id: string, verify: string) => bead({ id, status: 'closed', closed_at: '2026-11-28T12:05:00Z', verify, [TRY_RUN_KEY]: tag });
    const w = await runWorld({ beads: [landed('hx-pass', 'true'), landed('hx-fail', 'echo broken >&2; exit 3')], events: true });
    // the killed ddx try closed hx-pass and died before removing its lease
    mkdirSync(w.run.store.leaseDir, { recursive: true });
    writeFileSync(join(w.run.store.leaseDir, 'hx-pass.json'), JSON.stringify({ pid: await deadPid(), machine: hostname(), updated_at: new Date().toISOString() }));
    await recoverOrphans(w.run, 'start', undefined);
    expect(existsSync(join(w.run.store.leaseDir, 'hx-pass.json'))).toBe(false);
    expect(w.project.bead('hx-pass')).toMatchObject({ status: 'closed' });
    expect(w.project.bead('hx-pass')[TRY_RUN_KEY]).toBeUndefined();
    expect(w.project.bead('hx-fail')).toMatchObject({ status: 'open' });
    expect(w.project.bead('hx-fail')[TRY_RUN_KEY]).toBeUndefined();
    expect(w.stderr).toContain("helix: hx-pass: DDx landed and closed it, and its run ended before helix verified it after landing: verifying now: true");
    expect(w.stderr.some((l) => l.startsWith('helix: hx-fail: verification failed after landing: ') && l.endsWith('; hx-fail is reopened and the commit stays on the branch'))).toBe(true);
  });

  it("closes a bead DDx landed and was killed or stopped before closing — on the commit helix's gate passed — instead of building it again; a passed result not on the branch is released", async () => {
    const tag = processTagOf(await deadPid(), '1');
    const held = { status: 'in_progress', owner: 'ddx', verify: 'true', [TRY_RUN_KEY]: tag } as const;
    // hx-released: its run was stopped during DDx's land and released DDx's claim as the ddx try ended
    const released = { status: 'open', verify: 'true', [TRY_RUN_KEY]: tag } as const;
    const w = await runWorld({ beads: [bead({ id: 'hx-landed', ...held }), bead({ id: 'hx-aside', ...held }), bead({ id: 'hx-released', ...released })], events: true });
    const git = (...args: string[]) => spawnSync('git', args, { cwd: w.project.root, encoding: 'utf8' }).stdout.trim();
    // hx-landed's result is on main (DDx's land moved the branch); hx-aside's is a commit beside it (never landed)
    git('commit', '-q', '--allow-empty', '-m', 'hx-landed: the work');
    const landed = git('rev-parse', 'HEAD');
    const aside = git('commit-tree', '-p', landed, '-m', 'hx-aside: the work', `${landed}^{tree}`);
    const ddxPid = await deadPid();
    mkdirSync(w.run.store.leaseDir, { recursive: true });
    mkdirSync(join(w.project.root, '.helix', 'gate'), { recursive: true });
    writeFileSync(gateRecordPath(w.project.root, 'hx-released'), JSON.stringify({ bead: 'hx-released', diff_head: landed, status: 'pass', message: 'true exited 0' }));
    for (const [id, sha] of [['hx-landed', landed], ['hx-aside', aside]] as const) {
      writeFileSync(join(w.run.store.leaseDir, `${id}.json`), JSON.stringify({ pid: ddxPid, machine: hostname(), updated_at: new Date().toISOString() }));
      writeFileSync(gateRecordPath(w.project.root, id), JSON.stringify({ bead: id, diff_head: sha, status: 'pass', message: 'true exited 0' }));
    }
    await recoverOrphans(w.run, 'start', undefined);
    expect(w.project.bead('hx-landed')).toMatchObject({ status: 'closed', closing_commit_sha: landed });
    expect(w.project.bead('hx-landed')[TRY_RUN_KEY]).toBeUndefined();
    expect(existsSync(join(w.run.store.leaseDir, 'hx-landed.json'))).toBe(false);
    expect(existsSync(gateRecordPath(w.project.root, 'hx-landed'))).toBe(false);
    expect(w.stderr).toContain(`helix: closed hx-landed on ${landed.slice(0, 12)}: DDx landed it after helix's gate passed it, and its ddx try was killed before closing it`);
    // verified after landing, as every bead DDx landed whose run ended first
    expect(w.stderr).toContain("helix: hx-landed: DDx landed and closed it, and its run ended before helix verified it after landing: verifying now: true");
    expect(w.project.bead('hx-released')).toMatchObject({ status: 'closed', closing_commit_sha: landed });
    expect(w.project.bead('hx-aside')).toMatchObject({ status: 'open' });
  });
});

describe('stale helix claims', () => {
  it('a claim whose claimer and calls are gone is released at once and its injected memories are told they did not help', async () => {
    const dead = await deadPid();
    const heard: Array<{ id: string; injected: string[]; verified: boolean }> = [];
    const memory = { feedback: async (input: { bead: { id: string }; injected: string[]; verified: boolean }) => void heard.push({ id: input.bead.id, injected: input.injected, verified: input.verified }) } as unknown as MemoryPort;
    const claimed = { status: 'in_progress', owner: 'helix', 'claimed-pid': String(dead), 'claimed-pid-start': '1', 'claimed-at': new Date().toISOString() } as const;
    const w = await runWorld({ beads: [bead({ id: 'hx-1', ...claimed, 'helix-injected': ['mem-a', 'mem-b'] })], memory });
    const event = await recoverOrphans(w.run, 'failure', undefined);
    expect(event).toEqual({ type: 'orphansRecovered', why: 'failure', readyBefore: 0, readyAfter: 1 });
    expect(w.project.bead('hx-1')).toMatchObject({ status: 'open' });
    expect(w.project.bead('hx-1')['helix-injected']).toBeUndefined();
    expect(heard).toEqual([{ id: 'hx-1', injected: ['mem-a', 'mem-b'], verified: false }]);
    expect(w.stderr).toContain('helix: fed back 2 memories of the interrupted attempt on hx-1');
  });
});
