// DDx's bead backend (docs/ddx.md): read from .ddx/config.yaml as DDx writes it; helix refuses the backends that are not the JSONL file.
import { describe, expect, it } from 'vitest';
import { configBackend, otherBackendRefusal } from '../../src/tracker/index.js';

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
