// Can DDx build here (docs/ddx.md): the repository facts each DDx refuses, and the files that are DDx's and helix's own.
import { describe, expect, it } from 'vitest';
import { ddxBuildRefusal, isDdxProjectFile, isToolFile } from '../../../src/supervisor/core/ddx-preflight.js';

describe('can DDx build here', () => {
  const clean = { branch: 'main', hasOrigin: false, originDefault: undefined, upstream: undefined, dirty: [], ddxFiles: [] };
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

describe("DDx's own project files (issue 30: the first run after `ddx init`)", () => {
  it('are what ddx init and ddx bead create write, and nothing of the user\'s', () => {
    for (const path of ['.ddx/skills/ddx/SKILL.md', '.ddx/skills/ddx/reference/beads.md', '.ddx/config.yaml', '.ddx/versions.yaml', '.ddx/lifecycle-schema.json']) expect(isDdxProjectFile(path)).toBe(true);
    for (const path of ['.gitignore', 'AGENTS.md', 'src/app.ts', '.ddx/beads.jsonl', '.ddx/notes.md']) expect(isDdxProjectFile(path)).toBe(false);
  });
});
