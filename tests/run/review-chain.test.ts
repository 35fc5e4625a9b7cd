// A review chain ends (docs/contract/cli.md §6.5): a reviewer that finds issues after every build
// would file a follow-up for each answer, each built and reviewed again — an endless run. The
// follow-ups count their depth along the chain; the review of a follow-up at the limit (3) files
// nothing more: its findings stay in that bead's notes, with one line. Black-box: the real CLI,
// the stub agents (DDx v0.6.1's execute-bead; the direct path, codex, of an older DDx), a real
// bead file. --max-cycles 10 bounds the run should the chain not end (on main it ran to that cap).
import { describe, expect, it } from 'vitest';
import type { Bead } from '../../src/tracker/index.js';
import { bead } from '../helpers/bead.js';
import { Project, helixLines } from './stub-project.js';

const FINDING = 'error swallowed in parse()';
const ALWAYS_ISSUES = `The change is incomplete: ${FINDING}\nREVIEW_STATUS: ISSUES_FOUND\nISSUES_COUNT: 1\nFINDINGS_FILED: 0\n`;
// every build reviewed (no size skip), no alignment; the cap only bounds a chain that does not end
const RUN = ['run', '--no-auto-align', '--review-threshold', '0', '--max-cycles', '10'];
/** The beads that match, shallowest first (the file is sorted by id, not by age). */
const byDepth = (beads: Bead[]) => [...beads].sort((a, b) => Number(a['helix-review-depth']) - Number(b['helix-review-depth']));
const CHAIN_LINE = /^helix: review of (\S+) ends its follow-up chain at depth 3 \(limit 3\): .*$/gm;

describe('helix run: a review chain ends', () => {
  it(`DDx v0.6.1: a reviewer that always answers ISSUES_FOUND gets three follow-ups, then the findings stay in the last one's notes`, () => {
    const p = new Project({ beads: [bead({ id: 'hx-0000c0de', acceptance: 'parse works' })], script: { defaults: { review: { stdout: ALWAYS_ISSUES } } } });
    const r = p.helix(RUN);
    expect(r.status).toBe(0);
    expect(r.stderr).not.toContain('reached max cycles');
    expect(r.stderr).toContain('helix: stopping after check returned STOP');
    // the bead and three follow-ups, each built and reviewed once
    expect(p.buildCalls()).toHaveLength(4);
    expect(p.calls().filter((c) => c.action === 'review')).toHaveLength(4);
    const followUps = byDepth(p.beads().filter((b) => b.title.startsWith('Review findings for')));
    expect(followUps.map((b) => b['helix-review-depth'])).toEqual([1, 2, 3]);
    // counted along the chain: each follow-up depends on the bead whose review filed it
    expect(followUps.map((b) => (b.dependencies?.[0] as { depends_on_id?: string } | undefined)?.depends_on_id)).toEqual(['hx-0000c0de', followUps[0]!.id, followUps[1]!.id]);
    const last = followUps[2]!;
    expect(String(last.notes)).toContain(FINDING);
    expect(p.beads().every((b) => b.status === 'closed')).toBe(true);
    const said = [...r.stderr.matchAll(CHAIN_LINE)];
    expect(said.map((m) => m[1])).toEqual([last.id]);
    expect(helixLines(r.stderr).filter((l) => l.startsWith('helix: filed review follow-up'))).toHaveLength(3);
    // the last review filed nothing, and says nothing of filing
    expect(helixLines(r.stderr).filter((l) => l === 'helix: review filed actionable findings as tracker issues — continuing')).toHaveLength(3);
  });

  it('direct path: a reviewer that files its own finding each time ends its chain too, the last finding left open and not execution-eligible', () => {
    const files = { run: [['helix', 'tracker', 'create', 'Parse still swallows errors', '--type', 'bug', '--labels', 'helix,phase:build,review-finding']], stdout: ALWAYS_ISSUES.replace('FINDINGS_FILED: 0', 'FINDINGS_FILED: 1') };
    // an older DDx: helix builds through codex directly
    const p = new Project({ beads: [bead({ id: 'hx-0000c0de', acceptance: 'parse works' })], script: { executeBeadHelp: false, defaults: { review: files } } });
    const r = p.helix(RUN);
    expect(r.status).toBe(0);
    expect(r.stderr).not.toContain('reached max cycles');
    expect(p.buildCalls()).toHaveLength(4);
    const findings = byDepth(p.beads().filter((b) => b.title === 'Parse still swallows errors'));
    expect(findings.map((b) => [b['helix-review-depth'], b.status])).toEqual([[1, 'closed'], [2, 'closed'], [3, 'closed'], [4, 'open']]);
    expect(findings[3]!['execution-eligible']).toBe(false);
    const said = [...r.stderr.matchAll(CHAIN_LINE)];
    expect(said.map((m) => m[1])).toEqual([findings[2]!.id]);
    expect(said[0]![0]).toContain(findings[3]!.id);
    expect(String(findings[2]!.notes)).toContain(FINDING);
  });
});
