// `helix tracker ready` answers as the project's DDx does (issue 30): current DDx's `ddx bead ready`
// leaves out what it may not execute (measured on ae663ca012: no `execution-eligible: false`, nothing
// superseded, no future work-retry-after; epics stay, execute-loop-retry-after is not read), v0.6.1's
// lists every open bead whose dependencies are closed. The project's DDx is the one `.ddx/versions.yaml` names, when a `ddx` is
// installed (any program named ddx on PATH: helix reads the project's file, it does not run ddx).
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, cleanEnv, helix, tempDir, tempGitRepo } from '../helpers/cli.js';
import { bead } from '../helpers/bead.js';

function project(beadsText: string, ddxVersion?: string): { root: string; env: NodeJS.ProcessEnv } {
  const root = tempGitRepo();
  mkdirSync(join(root, '.ddx'));
  writeFileSync(join(root, '.ddx', 'beads.jsonl'), beadsText);
  if (ddxVersion) writeFileSync(join(root, '.ddx', 'versions.yaml'), `ddx_version: "${ddxVersion}"\n`);
  const bin = tempDir('helix-ddx-bin-');
  writeFileSync(join(bin, 'ddx'), '#!/bin/sh\nexit 0\n');
  chmodSync(join(bin, 'ddx'), 0o755);
  return { root, env: { ...cleanEnv(), PATH: `${bin}:/usr/bin:/bin` } };
}

const ids = (stdout: string) => (JSON.parse(stdout) as Array<{ id: string }>).map((b) => b.id);
const lines = [
  bead({ id: 'hx-00000001', title: 'task' }),
  bead({ id: 'hx-00000002', title: 'an epic', issue_type: 'epic' }),
  bead({ id: 'hx-00000003', title: 'not for agents', 'execution-eligible': false }),
  bead({ id: 'hx-00000004', title: 'superseded', 'superseded-by': 'hx-00000001' }),
  bead({ id: 'hx-00000005', title: 'parked by current DDx', 'work-retry-after': '2099-01-01T00:00:00Z' }),
  bead({ id: 'hx-00000006', title: 'parked by the old key', 'execute-loop-retry-after': '2099-01-01T00:00:00Z' }),
  bead({ id: 'hx-00000007', title: 'an epic with a child', issue_type: 'epic' }),
  bead({ id: 'hx-00000008', title: 'its child, closed', parent: 'hx-00000007', status: 'closed' }),
].map((b) => `${JSON.stringify(b)}\n`).join('');

describe("tracker ready as the project's DDx reads it", () => {
  it('current DDx: what `ddx bead ready` lists (the real binary on these beads: 1, 2, 6 — a childless epic stays, one with a child does not)', () => {
    const p = project(lines, 'v0.6.2-alpha164');
    expect(ids(helix(['tracker', 'ready', '--json'], { cwd: p.root, env: p.env }).stdout)).toEqual(['hx-00000001', 'hx-00000002', 'hx-00000006']);
    // --execution stays helix's own: what the supervisor may build (no epic, no park under either key)
    expect(ids(helix(['tracker', 'ready', '--execution', '--json'], { cwd: p.root, env: p.env }).stdout)).toEqual(['hx-00000001']);
  });

  it('v0.6.1, no versions file, or no ddx installed: every open bead whose dependencies are closed, as before', () => {
    for (const p of [project(lines, 'v0.6.1'), project(lines)]) {
      expect(ids(helix(['tracker', 'ready', '--json'], { cwd: p.root, env: p.env }).stdout)).toHaveLength(7);
    }
    const noDdx = project(lines, 'v0.6.2-alpha164');
    expect(ids(helix(['tracker', 'ready', '--json'], { cwd: noDdx.root, env: { ...noDdx.env, PATH: '/usr/bin:/bin' } }).stdout)).toHaveLength(7);
  });

  /** DDx's own tracker (../shared/data next to the checkout; absent on a clean clone elsewhere). */
  const data = [resolve(REPO_ROOT, '../shared/data/ddx-beads-ae663ca012.jsonl')].find((f) => existsSync(f));
  it.skipIf(!data)("DDx's own bead file: 48 ready on current DDx (as its `ddx bead ready --json` lists), 99 on v0.6.1", () => {
    const text = readFileSync(data!, 'utf8');
    const count = (p: { root: string; env: NodeJS.ProcessEnv }) => helix(['tracker', 'ready'], { cwd: p.root, env: p.env }).stdout.split('\n').filter(Boolean).length;
    expect(count(project(text, 'v0.6.2-alpha164'))).toBe(48);
    expect(count(project(text, 'v0.6.1'))).toBe(99);
  });
});
