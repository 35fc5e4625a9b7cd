// Which bead backend DDx uses for this project. DDx can keep beads somewhere other than
// `.ddx/beads.jsonl`; helix reads and writes only that file, so where DDx would not, helix refuses
// with one line before any effect. DDx's choice (ae663ca012 cli/internal/bead/store.go newStore;
// v0.6.1 reads only the environment): DDX_BEAD_BACKEND wins, then `bead.backend` in
// `.ddx/config.yaml`, else `jsonl`. `axon` is a store of DDx's own; `bd` / `br` go to that external
// tool when it is on PATH — and fall back to the JSONL file when it is not, as DDx does.
import { accessSync, constants, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { HelixError } from '../errors.js';

export interface BackendFacts {
  /** DDX_BEAD_BACKEND, if set. */
  env?: string;
  /** `bead.backend` read from `.ddx/config.yaml`, if any. */
  config?: string;
  /** Is this external tool (bd, br) on PATH? */
  onPath: (tool: string) => boolean;
}

/** The backend DDx uses and where that choice came from. */
export function ddxBeadBackend(facts: BackendFacts): { backend: string; from: string } {
  if (facts.env) return { backend: facts.env, from: 'DDX_BEAD_BACKEND' };
  if (facts.config) return { backend: facts.config, from: 'bead.backend in .ddx/config.yaml' };
  return { backend: 'jsonl', from: 'the default' };
}

/** Why helix must not touch the bead file, or undefined when DDx uses it too. */
export function otherBackendRefusal(facts: BackendFacts): string | undefined {
  const { backend, from } = ddxBeadBackend(facts);
  if (backend === 'jsonl') return undefined;
  if ((backend === 'bd' || backend === 'br') && !facts.onPath(backend)) return undefined; // DDx falls back to JSONL
  return `helix: DDx keeps this project's beads in the ${backend} backend (${from}); helix works only on .ddx/beads.jsonl and changed nothing — use \`ddx work\`, or switch DDx back to the jsonl backend`;
}

/**
 * `bead.backend` of a DDx config file. DDx writes it as a block (`bead:` then an indented
 * `backend: x`); a flow mapping (`bead: {backend: x}`) is read too. Only this one key is read.
 */
export function configBackend(yamlText: string): string | undefined {
  const flow = /^bead:\s*\{[^}]*\bbackend:\s*["']?([\w-]+)["']?/m.exec(yamlText);
  if (flow) return flow[1];
  const lines = yamlText.split('\n');
  const start = lines.findIndex((l) => /^bead:\s*(#.*)?$/.test(l));
  if (start < 0) return undefined;
  for (const line of lines.slice(start + 1)) {
    if (/^\S/.test(line)) break; // the next top-level key
    const key = /^(\s+)backend:\s*["']?([\w-]*)["']?\s*(#.*)?$/.exec(line);
    if (key) return key[2] || undefined;
  }
  return undefined;
}

function onPath(tool: string, env: NodeJS.ProcessEnv): boolean {
  return (env.PATH ?? '').split(delimiter).some((dir) => {
    try {
      accessSync(join(dir || '.', tool), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** Refuses (exit 14) when DDx keeps this project's beads in another backend. */
export function assertJsonlBackend(trackerDir: string, env: NodeJS.ProcessEnv): void {
  let config: string | undefined;
  try {
    config = configBackend(readFileSync(join(trackerDir, 'config.yaml'), 'utf8'));
  } catch {
    config = undefined; // no config: DDx's default
  }
  const refusal = otherBackendRefusal({ env: env.DDX_BEAD_BACKEND || undefined, config, onPath: (tool) => onPath(tool, env) });
  if (refusal) throw new HelixError('otherBeadBackend', refusal);
}
