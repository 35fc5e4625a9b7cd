// The pure decisions behind helix's DDx fixes, on the texts the real binaries printed and wrote
// (docs/ddx.md): the `ddx try` result past keys helix does not know, DDx's park, its records, the
// repository preflight, the notes block and DDx's bead backend.
import { describe, expect, it } from 'vitest';
import { attemptsSince, parseTryResult } from '../../src/agents/index.js';
import { ddxBuildRefusal, isToolFile } from '../../src/supervisor/core/ddx-preflight.js';
import { NOTES_BEGIN, NOTES_BLOCK_LIMIT, NOTES_END, renderNotesBlock, withNotesBlock, withoutNotesBlock } from '../../src/supervisor/text/ddx-notes.js';
import { assessDispatch, ddxParkOf } from '../../src/supervisor/core/judge.js';
import { configBackend, fingerprintOf, otherBackendRefusal } from '../../src/tracker/index.js';

// What ae663ca012 `ddx try` printed on stdout for a landed bead on a feature branch.
const LANDED = `
▶ hx-00000001: first bead
✓ hx-00000001 → merged (f1ee2a3d)

bead: hx-00000001
status: success
detail: success
result_rev: f1ee2a3df79e378f88b9ce4883fff7609f02fbda
landed_branch: feature
project_root: /tmp/p
landing_scope: branch-local
preserve_ref: refs/ddx/iterations/hx-00000001/x
routing intent: difficulty=medium minPower=7 source=readiness
`;

describe('the ddx try result', () => {
  it('reads every key of the block, past the ones helix does not know (landed_branch, project_root come before preserve_ref)', () => {
    expect(parseTryResult(LANDED, 'hx-00000001')).toEqual({ bead_id: 'hx-00000001', status: 'success', detail: 'success', result_rev: 'f1ee2a3df79e378f88b9ce4883fff7609f02fbda', preserve_ref: 'refs/ddx/iterations/hx-00000001/x' });
  });
});

describe('DDx parked the bead: a failed attempt, never drift', () => {
  const now = new Date('2026-11-26T18:41:40Z');
  const open = { id: 'hx-1', title: 't', status: 'open', priority: 2, issue_type: 'task' };
  // as ae663ca012 left the bead after execution_failed
  const parked = { ...open, 'work-retry-after': '2026-11-27T00:41:39Z', 'work-cooldown-base-rev': 'abc', 'work-last-status': 'execution_failed' };

  it('a retry time does not change the fingerprint', () => {
    expect(fingerprintOf(parked, now)).toEqual(fingerprintOf(open, now));
  });

  it('the failure carries DDx\'s status, detail and park', () => {
    const assessment = assessDispatch({
      before: fingerprintOf(open, now), after: parked, afterFingerprint: fingerprintOf(parked, now), exitCode: 2, timedOut: false,
      result: { bead_id: 'hx-1', status: 'execution_failed', detail: 'exit status 1' }, closer: 'ddx', now,
    });
    expect(assessment).toEqual({ kind: 'failed', failure: 'agent-failed', detail: 'execution_failed: exit status 1; DDx parked it until 2026-11-27T00:41:39.000Z (work-retry-after)' });
  });

  it('DDx marking the bead execution-ineligible during its own attempt is its park, not drift; someone else\'s is drift', () => {
    const ineligible = { ...open, 'execution-eligible': false };
    const facts = { before: fingerprintOf(open, now), after: ineligible, afterFingerprint: fingerprintOf(ineligible, now), exitCode: 2, timedOut: false, now };
    expect(assessDispatch({ ...facts, result: { bead_id: 'hx-1', status: 'execution_failed' }, closer: 'ddx' }).kind).toBe('failed');
    expect(assessDispatch({ ...facts, result: undefined, closer: 'helix' }).kind).toBe('drift');
  });

  it('names each park DDx makes', () => {
    expect(ddxParkOf({ ...open, status: 'proposed', 'needs-human-reason': 'no_evidence_produced' }, now)).toBe('DDx moved it to proposed for a human (no_evidence_produced)');
    expect(ddxParkOf({ ...open, 'work-retry-after': '2026-11-26T18:00:00Z' }, now)).toBeUndefined(); // over
  });
});

describe("DDx's records of an attempt", () => {
  const jsonl = [
    '{"attempt_id":"20261126T184117-old","bead_id":"hx-1","ts_start":"2026-11-26T18:41:10Z","cost_usd":0.5}',
    '{"attempt_id":"20261126T184117-51d6a675","bead_id":"hx-1","ts_start":"2026-11-26T18:41:18Z","cost_usd":0.001}',
    '{"attempt_id":"other","bead_id":"hx-2","ts_start":"2026-11-26T18:41:19Z"}',
    '{"torn',
  ].join('\n');
  it('counts the attempts at this bead since the call began (DDx writes whole seconds)', () => {
    expect(attemptsSince(jsonl, 'hx-1', new Date('2026-11-26T18:41:18.400Z')).map((a) => a.attempt_id)).toEqual(['20261126T184117-51d6a675']);
  });
});

describe('can DDx build here', () => {
  const clean = { branch: 'main', hasOrigin: false, originDefault: undefined, upstream: undefined, dirty: [] };
  it('a clean branch without origin: yes, on both', () => {
    expect(ddxBuildRefusal('agent', clean, false)).toBeUndefined();
    expect(ddxBuildRefusal('current', clean, false)).toBeUndefined();
  });
  it('a branch that does not track origin\'s default: current refuses unless allowed; v0.6.1 builds', () => {
    const feature = { ...clean, branch: 'feature', hasOrigin: true, originDefault: 'main', upstream: 'feature' };
    expect(ddxBuildRefusal('current', feature, false)).toMatch(/tracks feature, not origin's default branch main/);
    expect(ddxBuildRefusal('current', { ...feature, upstream: undefined }, false)).toMatch(/has no upstream/);
    expect(ddxBuildRefusal('current', feature, true)).toBeUndefined();
    expect(ddxBuildRefusal('agent', feature, false)).toBeUndefined();
  });
  it('detached HEAD and the user\'s changes: refused on both', () => {
    expect(ddxBuildRefusal('agent', { ...clean, branch: undefined }, true)).toMatch(/HEAD is detached/);
    expect(ddxBuildRefusal('agent', { ...clean, dirty: ['a', 'b', 'c', 'd'] }, false)).toMatch(/uncommitted changes \(a, b, c, … \(4 in all\)\): DDx would commit them/);
  });
  it('DDx\'s and helix\'s own files are not the user\'s changes', () => {
    for (const path of ['.ddx/beads.jsonl', '.ddx/executions/x/result.json', '.ddx/beads.jsonl.bak-1', '.helix/context.md', '.helix-logs/helix-1.log', '.ddx/helix.pid', '.ddx/run-state.json.tmp-13232-1795725494011', '.ddx/beads.quarantine.jsonl', '.ddx/beads.lost-20261126T204900Z.jsonl']) expect(isToolFile(path), path).toBe(true);
    for (const path of ['README', '.ddx/config.yaml', 'src/.ddx/x']) expect(isToolFile(path), path).toBe(false);
    // a tracker folder elsewhere (HELIX_TRACKER_DIR) holds the same bookkeeping
    expect(isToolFile('fresh/.ddx/helix.pid', 'fresh/.ddx')).toBe(true);
    expect(isToolFile('fresh/.ddx/config.yaml', 'fresh/.ddx')).toBe(false);
    expect(isToolFile('fresh/.ddx/helix.pid')).toBe(false);
  });
});

describe('the notes block', () => {
  it('is added at the end and taken out again, leaving the notes as they were', () => {
    const block = renderNotesBlock({ action: 'Follow the action.', context: 'ctx', memory: { block: 'MEMORIES', names: ['m1'] } });
    expect(block.startsWith(NOTES_BEGIN) && block.endsWith(NOTES_END)).toBe(true);
    expect(block).toContain('INJECTED: ["m1"]');
    const notes = 'REOPENED [x]: verification failed';
    expect(withoutNotesBlock(withNotesBlock(notes, block))).toBe(notes);
    expect(withoutNotesBlock(withNotesBlock('', block))).toBe('');
    // a stale block is replaced, never doubled
    expect(withNotesBlock(withNotesBlock(notes, block), block).split(NOTES_BEGIN)).toHaveLength(2);
  });
  it('stays under its limit: the context is cut, never the memories', () => {
    const block = renderNotesBlock({ action: 'a', context: 'é'.repeat(100_000), memory: { block: 'MEMORIES', names: ['m1'] } });
    expect(Buffer.byteLength(block, 'utf8')).toBeLessThanOrEqual(NOTES_BLOCK_LIMIT);
    expect(block).toContain('MEMORIES');
    expect(block).toContain('cut by helix');
  });
});

describe("DDx's bead backend", () => {
  it('reads bead.backend as DDx writes it (block or flow), and only that key', () => {
    expect(configBackend('version: "1.0"\nbead:\n    backend: axon\n    id_prefix: hx\nlibrary:\n    backend: nope\n')).toBe('axon');
    expect(configBackend('bead: {backend: br}\n')).toBe('br');
    expect(configBackend('bead: {}\nlibrary:\n  backend: x\n')).toBeUndefined();
  });
  it('refuses axon, and bd/br only when the tool is on PATH (DDx falls back to the JSONL file otherwise)', () => {
    expect(otherBackendRefusal({ config: 'axon', onPath: () => false })).toMatch(/in the axon backend \(bead.backend in .ddx\/config.yaml\)/);
    expect(otherBackendRefusal({ env: 'bd', onPath: () => false })).toBeUndefined();
    expect(otherBackendRefusal({ env: 'bd', config: 'axon', onPath: (t) => t === 'bd' })).toMatch(/bd backend \(DDX_BEAD_BACKEND\)/);
    expect(otherBackendRefusal({ env: 'jsonl', onPath: () => true })).toBeUndefined();
  });
});
