// Direct-agent batching end to end: the related ready beads listed in a direct prompt are claimed
// with the primary for the whole agent call, and each is judged after it like the primary —
// closed and verified counts as completed, untouched is released without an attempt, closed but
// failing verification is reopened, drift is skipped; SIGTERM releases every claim of the batch.
// Mid-dispatch state is read from a copy of the bead file the stub agent takes, or while it hangs.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Bead } from '../../src/tracker/index.js';
import { Project, RUN_COMPLETE, helixLines, waitUntil } from './stub-project.js';
import { bead } from '../helpers/bead.js';

// a close or reopen keeps `owner` (who worked on it); a release drops it too
const CLAIM_KEYS = ['claimed-pid', 'claimed-at', 'claim-token'];
const DIRECT = { executeBeadHelp: false };
// the primary sorts after its siblings in the file, so `status` must not take the first live claim
const P = 'hx-000000c1';
const S1 = 'hx-000000a2';
const S2 = 'hx-000000a3';
const OTHER = 'hx-000000b1';

/** A primary, two siblings of its area and one bead of another area, all ready. */
const areaBeads = (extra: Partial<Bead> = {}) => [
  bead({ id: P, labels: ['area:ui'] }),
  bead({ id: S1, labels: ['area:ui'], title: 'Sibling one', ...extra }),
  bead({ id: S2, labels: ['area:ui'], title: 'Sibling two' }),
  bead({ id: OTHER, labels: ['area:db'] }),
];

const readJsonl = (file: string) => new Map(readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => {
  const b = JSON.parse(l) as Bead;
  return [b.id, b] as const;
}));

/** Claim keys still on a bead (`owner` too when it is open again after a release). */
const unclaimed = (b: Bead) => [...CLAIM_KEYS, ...(b.status === 'open' && !String(b.notes ?? '').includes('REOPENED') ? ['owner'] : [])].filter((key) => key in b);

describe('direct-agent batching', () => {
  it('claims the siblings with the run’s pid for the agent call; a sibling the agent closed and verify passed is completed and counted', () => {
    const p = new Project({ beads: areaBeads() });
    const during = p.path('during.jsonl');
    const verifyRuns = p.path('verify-runs');
    p.script({
      ...DIRECT,
      responses: [{ when: 'implementation', run: [['cp', '.ddx/beads.jsonl', during], ['helix', 'tracker', 'close', '{{id}}'], ['helix', 'tracker', 'close', S1]] }],
    });
    const r = p.helix(['run', '--summary', '--agent', 'claude', '--max-cycles', '2'], { HELIX_VERIFY_CMD: `echo ran >> ${verifyRuns}` });
    expect(r.status).toBe(0);

    const mid = readJsonl(during);
    const primary = mid.get(P) as Bead;
    expect(primary).toMatchObject({ status: 'in_progress', owner: 'helix', 'claimed-pid': expect.stringMatching(/^\d+$/) });
    for (const id of [S1, S2]) {
      expect(mid.get(id)).toMatchObject({ status: 'in_progress', owner: 'helix', 'claimed-pid': primary['claimed-pid'], 'claim-token': expect.stringMatching(/\w{8,}/) });
    }
    expect(mid.get(S1)?.['claim-token']).not.toBe(primary['claim-token']);
    expect(mid.get(OTHER)?.status).toBe('open');

    const prompt = p.buildCalls()[0]?.stdin ?? '';
    // the batch prompt of docs/contract/bash-interface.md §1.2; helix claimed the beads, so it does not ask the agent to
    expect(prompt).toContain('Execute the following HELIX implementation action for 3 related issues.\n');
    expect(prompt).toContain('BATCH MODE: Implement these 3 related issues sequentially in this session:\n');
    expect(prompt).toContain(`  - ${S1}: Sibling one\n`);
    expect(prompt).toContain(`  - ${S2}: Sibling two\n`);
    expect(prompt).toContain('For each issue: implement it, run scoped verification on changed crates,\n');
    expect(prompt).not.toMatch(/claim it,|--claim/);
    // the batch form of the cycle line (§2.4)
    expect(r.stderr).toMatch(new RegExp(`^helix: \\[[\\d:]+\\] cycle 1: batch 3 issues \\(${P},${S1},${S2}\\), \\d+ ready$`, 'm'));
    expect(prompt).not.toContain(OTHER);

    // one cycle, two completed beads; --max-cycles 2 is reached by the batch
    expect(p.buildCalls()).toHaveLength(1);
    expect(r.stderr).toMatch(new RegExp(`cycle 1: ${P} → COMPLETE \\(1/1 done, 0 tokens\\)`));
    expect(r.stderr).toMatch(new RegExp(`cycle 1: ${S1} → COMPLETE \\(2/1 done, 0 tokens\\)`));
    expect(r.stderr).toContain('helix: reached max cycles (2)');
    expect(r.stderr.match(RUN_COMPLETE)?.slice(1, 4)).toEqual(['1', '2', '0']);
    expect(p.runState()).toMatchObject({ attempted_cycles: 1, completed_cycles: 2 });
    // the shared verify command ran once for the cycle, not once per bead
    expect(readFileSync(verifyRuns, 'utf8').trim().split('\n')).toHaveLength(1);

    expect(p.statuses(P, S1, S2, OTHER)).toEqual(['closed', 'closed', 'open', 'open']);
    expect(unclaimed(p.bead(S2))).toEqual([]);
  });

  it('a sibling the agent left alone is released without counting an attempt, and is worked on later', () => {
    const p = new Project({ beads: areaBeads() });
    // cycle 1 closes only the primary; later cycles take the stub's default (close the target)
    p.script({ ...DIRECT, responses: [{ when: 'implementation', run: [['helix', 'tracker', 'close', '{{id}}']] }] });
    const r = p.helix(['run', '--agent', 'claude']);
    expect(r.status).toBe(0);
    const lines = helixLines(r.stderr);
    expect(lines).toContain(`helix: batch member ${S1} not closed this cycle; claim released, no attempt counted`);
    expect(lines).toContain(`helix: batch member ${S2} not closed this cycle; claim released, no attempt counted`);
    expect(r.stderr).not.toMatch(/FAILED|attempt \d+ failed|BLOCKERS/);
    // released, so the next cycle takes S1 as its primary (and S2 with it; the default closes S1 only)
    expect(p.buildCalls().map((c) => c.id)).toEqual([P, S1, S2, OTHER]);
    expect(p.statuses(P, S1, S2, OTHER)).toEqual(['closed', 'closed', 'closed', 'closed']);
    expect(r.stderr.match(RUN_COMPLETE)?.slice(1, 4)).toEqual(['4', '4', '0']);
    for (const id of [P, S1, S2, OTHER]) expect(unclaimed(p.bead(id))).toEqual([]);
  });

  it('a sibling the agent closed that fails its verify command is reopened and counted as its failed attempt', () => {
    const p = new Project({ beads: areaBeads({ verify: 'echo "sibling check broke" && exit 3' }) });
    p.script({ ...DIRECT, responses: [{ when: 'implementation', run: [['helix', 'tracker', 'close', '{{id}}'], ['helix', 'tracker', 'close', S1]] }] });
    // --summary too: a member's failure is a line in every mode (issue 31, item 5)
    const r = p.helix(['run', '--summary', '--agent', 'claude', '--max-cycles', '1']);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`helix: batch member ${S1} attempt 1 failed: verification failed: echo "sibling check broke" && exit 3 exited 3: sibling check broke`));
    expect(r.stderr.match(RUN_COMPLETE)?.slice(1, 4)).toEqual(['1', '1', '0']);
    const reopened = p.bead(S1);
    expect(reopened.status).toBe('open');
    expect(String(reopened.notes)).toMatch(/REOPENED \[.+\]: verification failed/);
    expect(unclaimed(reopened)).toEqual([]);
    expect(p.statuses(P, S2)).toEqual(['closed', 'open']);
  });

  it('a sibling whose governance fields changed during the call is released and skipped as queue drift', () => {
    const p = new Project({ beads: areaBeads() });
    p.script({ ...DIRECT, responses: [{ when: 'implementation', run: [['helix', 'tracker', 'close', '{{id}}'], ['helix', 'tracker', 'update', S1, '--set', 'spec-id=CHANGED']] }] });
    const r = p.helix(['run', '--summary', '--agent', 'claude', '--max-cycles', '1']);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain(`helix: queue drift detected for ${S1}; refusing stale completion`);
    expect(r.stderr).toContain('helix: BLOCKERS (1 issue):');
    expect(r.stderr.match(RUN_COMPLETE)?.slice(1, 4)).toEqual(['1', '1', '1']);
    expect(p.bead(S1)).toMatchObject({ status: 'open', 'spec-id': 'CHANGED' });
    expect(unclaimed(p.bead(S1))).toEqual([]);
  });

  it('the execute-bead path claims only the primary', () => {
    const p = new Project({ beads: areaBeads() });
    const during = p.path('during.jsonl');
    p.script({ responses: [{ when: 'execute-bead', run: [['cp', '.ddx/beads.jsonl', during]], result: {} }] });
    const r = p.helix(['run', '--summary', '--max-cycles', '1']);
    expect(r.status).toBe(0);
    const mid = readJsonl(during);
    expect(mid.get(P)?.status).toBe('in_progress');
    expect([S1, S2].map((id) => mid.get(id)?.status)).toEqual(['open', 'open']);
  });

  it('SIGTERM mid-dispatch releases the primary and every sibling (status names the primary as the running bead)', async () => {
    const p = new Project({ beads: areaBeads() });
    const marker = p.path('agent.json');
    p.script({ ...DIRECT, responses: [{ when: 'implementation', marker, hang: true }] });
    const run = p.helixInBackground(['run', '--summary', '--agent', 'claude']);
    await waitUntil(() => existsSync(marker), 'the agent to start');
    for (const id of [P, S1, S2]) expect(p.bead(id)).toMatchObject({ status: 'in_progress', 'claimed-pid': String(run.child.pid) });
    const status = p.helix(['status', '--json']);
    expect((JSON.parse(status.stdout) as { running_bead: { id: string } }).running_bead.id).toBe(P);

    run.child.kill('SIGTERM');
    const r = await run.done;
    expect(r.status).toBe(143);
    expect(r.stderr).toContain(`helix: interrupted by SIGTERM; claims on ${P}, ${S1}, ${S2} released`);
    expect(r.stderr).toMatch(RUN_COMPLETE);
    for (const id of [P, S1, S2, OTHER]) {
      expect(p.bead(id).status).toBe('open');
      expect(unclaimed(p.bead(id))).toEqual([]);
    }
  });
});
