// Files DDx wrote (tests/ddx/fixtures): helix reads them, rewrites only the lines it touched, and
// DDx (its stand-in) reads helix's claim as a live claim — both ways round, for both versions.
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ddx, ddxProject } from './standin.js';
import type { DdxVersion } from './standin.js';

const fixture = (version: DdxVersion) => readFileSync(resolve(import.meta.dirname, 'fixtures', `beads-${version}.jsonl`), 'utf8');
const ids = (json: string) => (JSON.parse(json) as Array<{ id: string }>).map((b) => b.id);

describe.each(['0.6.1', 'current'] as const)('a bead file DDx %s wrote', (version) => {
  it('helix reads it with DDx\'s readiness and rewrites only the line it touched', () => {
    const p = ddxProject(version, []);
    writeFileSync(p.beadsFile, fixture(version));
    // every dependency type blocks (fx-3 waits on its open parent epic and on fx-6), the epic is
    // not execution work, a past retry time no longer parks fx-6, proposed/cancelled never ready
    expect(ids(p.helix(['tracker', 'ready', '--execution', '--json']).stdout)).toEqual(['fx-00000009', 'fx-00000006']);
    const before = fixture(version).split('\n');
    const claim = p.helix(['tracker', 'update', 'fx-00000009', '--claim', '--pid', String(process.pid)]);
    expect(claim.status, claim.stderr).toBe(0);
    const after = readFileSync(p.beadsFile, 'utf8').split('\n');
    expect(after).toHaveLength(before.length);
    const changed = after.map((line, i) => (line === before[i] ? null : i)).filter((i) => i !== null);
    expect(changed).toEqual([8]); // fx-00000009 only; every other record byte for byte
    const claimed = JSON.parse(after[8]!);
    expect(claimed).toMatchObject({ status: 'in_progress', description: 'unicode ✓ and \u2028 separator' });
    if (version === 'current') expect(claimed.schema_version).toBe(1);
  });

  it('DDx reads helix\'s claim as live (its heartbeat key), and helix keeps its claim keys through DDx\'s rewrite', () => {
    const p = ddxProject(version, []);
    writeFileSync(p.beadsFile, fixture(version));
    expect(p.helix(['tracker', 'update', 'fx-00000009', '--claim', '--pid', String(process.pid)]).status).toBe(0);
    // DDx's queue leaves the bead helix holds alone
    expect(ids(ddx(version, p, ['bead', 'ready', '--execution', '--json']).stdout)).toEqual(['fx-00000006']);
    // a DDx write re-marshals every line: helix's keys survive in DDx's Extra map
    expect(ddx(version, p, ['bead', 'update', 'fx-00000006', '--notes', 'touched by DDx']).status).toBe(0);
    const mine = JSON.parse(p.helix(['tracker', 'show', 'fx-00000009', '--json']).stdout);
    expect(mine).toMatchObject({ status: 'in_progress', owner: 'helix', 'claimed-pid': String(process.pid), 'claim-token': expect.stringMatching(/^[0-9a-f]{24}$/) });
    const lines = readFileSync(join(p.root, '.ddx', 'beads.jsonl'), 'utf8').split('\n').filter(Boolean);
    expect(lines.map((l) => JSON.parse(l).id)).toEqual([...lines.map((l) => JSON.parse(l).id)].sort());
  });
});
