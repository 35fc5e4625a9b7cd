// The runner in-process, against a real bead file and the stub ddx: the bead is re-read just
// before the claim (a stale selection is passed over, nothing is claimed or run), and the claim
// carries this supervisor's own pid and a fencing token for the whole agent call.
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveAgentPlan } from '../../../src/agents/index.js';
import { type Bead, BeadStore } from '../../../src/tracker/index.js';
import { SessionOutput } from '../../../src/supervisor/shell/output.js';
import { Supervisor } from '../../../src/supervisor/shell/runner.js';
import { HELIX_BIN, tempDir, tempGitRepo } from '../../helpers/cli.js';
import { settings } from '../core/scripted-run.js';
import { bead } from '../../helpers/bead.js';

const STUBS = resolve(import.meta.dirname, '../../stubs');

function setup(beads: Bead[], script: object, buildPath: 'execute-bead' | 'direct' = 'execute-bead', agent?: string) {
  const root = tempGitRepo();
  const scratch = tempDir();
  const store = new BeadStore(join(root, '.ddx'), {});
  store.mutate(() => undefined);
  writeFileSync(store.file, beads.map((b) => `${JSON.stringify(b)}\n`).join(''));
  writeFileSync(join(scratch, 'script.json'), JSON.stringify(script));
  const env = {
    ...process.env,
    PATH: `${STUBS}:${process.env.PATH ?? ''}`,
    HELIX_STUB_LOG: join(scratch, 'calls.jsonl'),
    HELIX_STUB_SCRIPT: join(scratch, 'script.json'),
    HELIX_STUB_HELIX: HELIX_BIN,
    IS_SANDBOX: '1',
  };
  const stderr: string[] = [];
  const supervisor = new Supervisor({
    root,
    store,
    env,
    settings: settings({ backoffOverride: 0 }),
    plan: resolveAgentPlan({ env: {}, isOnPath: () => false, explicitAgent: agent }),
    buildPath,
    actionsViaDdx: true,
    output: new SessionOutput(root, 'summary', new Date(), (t) => stderr.push(t)),
  });
  const calls = () => {
    try {
      return readFileSync(join(scratch, 'calls.jsonl'), 'utf8').split('\n').filter(Boolean);
    } catch {
      return [];
    }
  };
  return { root, scratch, store, supervisor, calls, stderr };
}

describe('Supervisor attempt', () => {
  it('passes over a bead that is no longer open and ready at the re-read, without claiming or running anything', async () => {
    const selected = bead({ id: 'hx-00000001' });
    const s = setup([{ ...selected, status: 'in_progress', owner: 'someone', 'claimed-pid': '1' }], { responses: [] });
    const outcome = await s.supervisor.buildOnce(selected, [selected]);
    expect(outcome).toEqual({ kind: 'passed-over', reason: 'no longer open and ready' });
    expect(s.calls()).toEqual([]);
    expect(s.store.read().byId.get('hx-00000001')).toMatchObject({ owner: 'someone', 'claimed-pid': '1' });
  });

  it('also passes over a bead that gained an open dependency since selection', async () => {
    const selected = bead({ id: 'hx-00000001' });
    const s = setup([{ ...selected, dependencies: ['hx-00000002'] }, bead({ id: 'hx-00000002' })], { responses: [] });
    expect(await s.supervisor.buildOnce(selected, [selected])).toMatchObject({ kind: 'passed-over' });
    expect(s.calls()).toEqual([]);
  });

  it('holds the claim with its own pid and a token while the agent runs, then closes with the result’s commit', async () => {
    const target = bead({ id: 'hx-00000001' });
    const s0 = tempDir();
    const during = join(s0, 'during.jsonl');
    const s = setup([target], { responses: [{ when: 'execute-bead', run: [['cp', '.ddx/beads.jsonl', during]], result: { result_rev: 'abc123', session_id: 'sess-9' } }] });
    const outcome = await s.supervisor.buildOnce(target, [target]);
    expect(outcome).toMatchObject({ kind: 'completed', salvaged: false });
    const claimed = JSON.parse(readFileSync(during, 'utf8').trim()) as Bead;
    expect(claimed).toMatchObject({ status: 'in_progress', owner: 'helix', 'claimed-pid': String(process.pid), 'claim-token': expect.stringMatching(/\w{8,}/) });
    const closed = s.store.read().byId.get('hx-00000001');
    expect(closed).toMatchObject({ status: 'closed', closing_commit_sha: 'abc123', session_id: 'sess-9' });
    expect(closed).not.toHaveProperty('claim-token');
  });

  it('does not close a bead whose claim was recovered and re-issued to another worker meanwhile', async () => {
    const target = bead({ id: 'hx-00000001' });
    // the stub plays another worker: it releases our claim and claims the bead itself
    const s = setup([target], {
      responses: [
        {
          when: 'execute-bead',
          run: [
            ['helix', 'tracker', 'update', '{{id}}', '--unclaim'],
            ['helix', 'tracker', 'update', '{{id}}', '--claim', '--pid', '1'],
          ],
          result: {},
        },
      ],
    });
    const outcome = await s.supervisor.buildOnce(target, [target]);
    expect(outcome.kind).toBe('failed');
    const after = s.store.read().byId.get('hx-00000001');
    expect(after).toMatchObject({ status: 'in_progress', 'claimed-pid': '1' });
  });
});

describe('Supervisor batch (direct prompting)', () => {
  const EPIC = 'hx-000000ee';
  const promptOf = (line: string | undefined) => {
    const call = JSON.parse(line ?? '{}') as { kind: string; stdin: string; argv: string[] };
    return call.stdin; // codex `exec -` and claude -p both read it on stdin
  };
  const rows = (file: string) => new Map(readFileSync(file, 'utf8').trim().split('\n').map((l) => [(JSON.parse(l) as Bead).id, JSON.parse(l) as Bead]));

  it('re-reads each sibling just before claiming it: one another worker took since selection drops out, the rest are claimed', async () => {
    const primary = bead({ id: 'hx-00000001', parent: EPIC });
    const taken = bead({ id: 'hx-00000002', parent: EPIC });
    const free = bead({ id: 'hx-00000003', parent: EPIC });
    const during = join(tempDir(), 'during.jsonl');
    const s = setup(
      [primary, { ...taken, status: 'in_progress', owner: 'someone', 'claimed-pid': '1' }, free],
      { responses: [{ when: 'implementation', run: [['cp', '.ddx/beads.jsonl', during], ['helix', 'tracker', 'close', '{{id}}']] }] },
      'direct',
    );
    // the ready list as the queue read saw it, before the other worker's claim
    const outcome = await s.supervisor.buildOnce(primary, [primary, taken, free]);
    expect(outcome).toMatchObject({ kind: 'completed' });
    const mid = rows(during);
    expect(mid.get(primary.id)).toMatchObject({ status: 'in_progress', 'claimed-pid': String(process.pid) });
    expect(mid.get(free.id)).toMatchObject({ status: 'in_progress', owner: 'helix', 'claimed-pid': String(process.pid) });
    expect(mid.get(taken.id)).toMatchObject({ owner: 'someone', 'claimed-pid': '1' });
    const prompt = promptOf(s.calls()[0]);
    expect(prompt).toContain(`- ${free.id}:`);
    expect(prompt).not.toContain(`- ${taken.id}`);
    // afterwards: the untouched sibling is released; the other worker's claim is left alone
    expect(s.store.read().byId.get(free.id)).toMatchObject({ status: 'open' });
    expect(s.store.read().byId.get(free.id)).not.toHaveProperty('claim-token');
    expect(s.store.read().byId.get(taken.id)).toMatchObject({ status: 'in_progress', owner: 'someone', 'claimed-pid': '1' });
  });

  it('a sibling that gained an open dependency since selection is not claimed or offered', async () => {
    const primary = bead({ id: 'hx-00000001', parent: EPIC });
    const sibling = bead({ id: 'hx-00000002', parent: EPIC });
    const during = join(tempDir(), 'during.jsonl');
    const s = setup(
      [primary, { ...sibling, dependencies: [{ issue_id: sibling.id, depends_on_id: 'hx-000000dd', type: 'blocks' }] }, bead({ id: 'hx-000000dd' })],
      { responses: [{ when: 'implementation', run: [['cp', '.ddx/beads.jsonl', during], ['helix', 'tracker', 'close', '{{id}}']] }] },
      'direct',
    );
    expect(await s.supervisor.buildOnce(primary, [primary, sibling])).toMatchObject({ kind: 'completed' });
    const mid = rows(during);
    expect(mid.get(sibling.id)?.status).toBe('open');
    expect(mid.get(sibling.id)).not.toHaveProperty('claim-token');
    expect(promptOf(s.calls()[0])).not.toContain('Also claimed for you');
  });

  it('an error after the batch was claimed leaves every claim held for the exit path, which releases them all', async () => {
    const primary = bead({ id: 'hx-00000001', parent: EPIC });
    const sibling = bead({ id: 'hx-00000002', parent: EPIC });
    // an agent that only exists as a ddx harness cannot be called directly: dispatch throws
    const s = setup([primary, sibling], { responses: [] }, 'direct', 'gemini');
    await expect(s.supervisor.buildOnce(primary, [primary, sibling])).rejects.toThrow(/can only run through ddx/);
    for (const id of [primary.id, sibling.id]) expect(s.store.read().byId.get(id)).toMatchObject({ status: 'in_progress', 'claimed-pid': String(process.pid) });
    expect(s.supervisor.releaseHeldClaims()).toEqual([primary.id, sibling.id]);
    for (const id of [primary.id, sibling.id]) {
      expect(s.store.read().byId.get(id)?.status).toBe('open');
      expect(s.store.read().byId.get(id)).not.toHaveProperty('claim-token');
    }
    expect(s.supervisor.releaseHeldClaims()).toEqual([]);
  });
});
