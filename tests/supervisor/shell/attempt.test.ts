// One attempt (shell/attempt.ts) through its ports, with a scripted agent call and no process:
// what the tracker is told and what the loop hears when the close is refused, a batch member
// drifts, the call hits a limit, or DDx's gate keeps the work aside.
import { describe, expect, it } from 'vitest';
import { attempt } from '../../../src/supervisor/shell/attempt.js';
import { claimBead, closeBead, unclaimBead } from '../../../src/tracker/index.js';
import { bead } from '../../helpers/bead.js';
import { attemptWorld } from './attempt-world.js';

const A = 'hx-0000000a';
const B = 'hx-0000000b';

describe('one attempt through its ports', () => {
  it('helix\'s close refused (another worker took the claim meanwhile): a failed attempt that says why, and no close', async () => {
    const w = attemptWorld([bead({ id: A, title: 'a' })], 'execute-bead', (_command, _info, store) => {
      store.mutate((d) => {
        unclaimBead(d, A);
        claimBead(d, A, { pid: 4242 });
      });
      return { stdout: JSON.stringify({ bead_id: A, outcome: 'merged', status: 'success', result_rev: 'abc' }) };
    });
    const event = await attempt({ ports: w.ports, selected: bead({ id: A, title: 'a' }), cycle: 1, ready: [], readyCount: 1, command: 'run' });
    expect(event).toMatchObject({ type: 'attempted', outcome: { kind: 'failed', detail: expect.stringMatching(/^could not close: /) } });
    expect(w.store.read().byId.get(A)).toMatchObject({ status: 'in_progress', 'claimed-pid': '4242' });
  });

  it('a batch member whose governance changed during the call drifts and is released; the primary completes', async () => {
    const beads = [bead({ id: A, title: 'a', parent: 'hx-000000ee' }), bead({ id: B, title: 'b', parent: 'hx-000000ee' })];
    const w = attemptWorld(beads, 'direct', (_command, _info, store) => {
      store.mutate((d) => {
        closeBead(d, A, {});
        d.change(B, (b) => { b['spec-id'] = 'SPEC-CHANGED'; });
      });
      return { stdout: '' };
    });
    const event = await attempt({ ports: w.ports, selected: beads[0]!, cycle: 1, ready: beads, readyCount: 2, command: 'run' });
    expect(event).toMatchObject({ type: 'attempted', outcome: { kind: 'completed' }, batch: [{ bead: { id: B }, outcome: { kind: 'drift', changes: ['spec-id'] } }] });
    expect(w.store.read().byId.get(B)).toMatchObject({ status: 'open' });
    expect(w.store.read().byId.get(B)?.owner).toBeUndefined();
  });

  it('a call that ended on a usage or rate limit is no attempt: the claim goes back, the machine hears `limited`', async () => {
    const limited = [{ type: 'assistant', message: { content: [{ type: 'text', text: 'API Error: Request rejected (429)' }] } }, { type: 'result', is_error: true, api_error_status: 429, result: 'API Error: Request rejected (429)' }];
    const w = attemptWorld([bead({ id: A, title: 'a' })], 'direct', () => ({ exitCode: 1, stdout: limited.map((e) => JSON.stringify(e)).join('\n') }));
    const event = await attempt({ ports: w.ports, selected: bead({ id: A, title: 'a' }), cycle: 1, ready: [], readyCount: 1, command: 'run' });
    expect(event).toMatchObject({ type: 'limited', bead: { id: A }, limit: { agent: 'claude', kind: 'rate' } });
    expect(w.store.read().byId.get(A)).toMatchObject({ status: 'open' });
    expect(w.store.read().byId.get(A)?.owner).toBeUndefined();
  });

  it("DDx's pre-merge gate kept the work aside: a failed attempt, not landed, with DDx's reason", async () => {
    const w = attemptWorld([bead({ id: A, title: 'a' })], 'try', () => ({
      exitCode: 2,
      stdout: `\nbead: ${A}\nstatus: post_run_check_failed\ndetail: pre-merge checks blocked: helix-verify\nresult_rev: abc\npreserve_ref: refs/ddx/iterations/${A}/20261128T120000Z-0123456789ab\n`,
    }));
    const event = await attempt({ ports: w.ports, selected: bead({ id: A, title: 'a' }), cycle: 1, ready: [], readyCount: 1, command: 'run' });
    expect(event).toMatchObject({ type: 'attempted', outcome: { kind: 'failed', detail: expect.stringContaining('post_run_check_failed: pre-merge checks blocked: helix-verify') } });
    expect(event).toMatchObject({ outcome: { detail: expect.stringContaining(`kept under refs/ddx/iterations/${A}/`) } });
    expect(w.store.read().byId.get(A)?.status).toBe('open');
  });
});
