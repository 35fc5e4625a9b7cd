// The backlog vanishing during an agent call: an agent that truncates beads.jsonl or deletes
// `.ddx`. That is a loud stop (exit 15) naming every bead that went, with their last lines saved
// where `helix tracker import` puts them back — not a "queue drift" line and a run that goes on.
// DDx's own `bead archive` (closed beads moved to beads-archive.jsonl) is not a loss.
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STUBS, Project } from '../run/stub-project.js';
import { bead } from '../helpers/bead.js';
import { beadState, generic, lineMatching, report } from './fault-checks.js';

const IDS = ['hx-000000aa', 'hx-000000bb', 'hx-000000cc'];

function project(agentBody: string): { p: Project; env: NodeJS.ProcessEnv } {
  const p = new Project({ beads: IDS.map((id) => bead({ id, labels: ['phase:build'] })) });
  const bin = p.path('bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'ddx'), `#!/bin/sh\nif [ "$2" = execute-bead ]; then\n${agentBody}\nfi\nexec "${join(STUBS, 'ddx')}" "$@"\n`);
  chmodSync(join(bin, 'ddx'), 0o755);
  return { p, env: { PATH: `${bin}:${p.env.PATH}` } };
}

const lostFile = (p: Project) => readdirSync(join(p.root, '.ddx')).find((f) => f.startsWith('beads.lost-'));

describe('beads that vanish during an agent call', () => {
  for (const [what, body] of [
    ['truncates beads.jsonl', ': > .ddx/beads.jsonl; exit 0'],
    ['deletes .ddx', 'rm -rf .ddx; exit 0'],
  ] as const) {
    it(`an agent that ${what}: exit 15, one line naming every lost bead, their lines saved and importable`, () => {
      const { p, env } = project(body);
      const before = readFileSync(p.beadsFile, 'utf8');
      const run = p.helix(['run', '--summary'], env);
      expect(run.status).toBe(15);
      const line = lineMatching(run.stderr, /lost/);
      expect(line).toMatch(new RegExp(`^helix: the bead file lost 3 bead\\(s\\) during the claude call: ${IDS.join(', ')}; their last lines are in .*beads\\.lost-\\d{8}T\\d{6}Z\\.jsonl \\(\`helix tracker import .*\` puts them back\\); stopping$`));
      expect(run.stderr).not.toMatch(/queue drift/);
      expect(p.checkCalls()).toEqual([]); // the run stopped: no queue-drain check afterwards
      const saved = join(p.root, '.ddx', lostFile(p)!);
      expect(readFileSync(saved, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l).id)).toEqual(IDS);
      const imported = p.helix(['tracker', 'import', saved]);
      expect(imported.status).toBe(0);
      expect(p.beads().map((b) => b.id).sort()).toEqual(IDS);
      expect(before).toContain(IDS[2]);
      report({ group: 'vanished', scenario: `the agent ${what} during its call`, exit: String(run.status), bead: `${beadState(p.bead(IDS[0]!))} after the import of the saved lines`, processes: '0', recovery: 'helix tracker import <saved file> brought all 3 back', line: generic(line, p.root).replace(/beads\.lost-\d{8}T\d{6}Z/g, 'beads.lost-<stamp>') });
    });
  }

  it("closed beads DDx's bead archive moved to beads-archive.jsonl during the call are not a loss", () => {
    const { p, env } = project(`grep -v '"hx-000000cc"' .ddx/beads.jsonl > .ddx/rest; grep '"hx-000000cc"' .ddx/beads.jsonl > .ddx/beads-archive.jsonl; mv .ddx/rest .ddx/beads.jsonl`);
    const lines = readFileSync(p.beadsFile, 'utf8').replace(/("id":"hx-000000cc","title":"[^"]*","status":)"open"/, '$1"closed"');
    writeFileSync(p.beadsFile, lines);
    const run = p.helix(['run', '--summary', '--max-cycles', '1'], env);
    expect(run.status).toBe(0);
    expect(existsSync(join(p.root, '.ddx', 'beads-archive.jsonl'))).toBe(true);
    expect(lostFile(p)).toBeUndefined();
    report({ group: 'vanished', scenario: 'a closed bead moved to beads-archive.jsonl (DDx bead archive) during the call', exit: String(run.status), bead: beadState(p.bead(IDS[0]!)), processes: '0', recovery: '—', line: '(none: not a loss)' });
  });
});
