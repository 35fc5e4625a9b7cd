// The hot read commands of `helix tracker` — `ready` and `blocked` — without commander.
// Scripts and the supervisor's callers run them constantly, so bin/helix sends a plain
// `helix tracker ready|blocked [--execution] [--json]` straight here (anything else, including
// --help or an unknown flag, goes through the full CLI). The commander wiring in tracker.ts calls
// the same functions, so both paths print exactly the same thing.
import type { Bead } from '../tracker/bead.js';

/**
 * Prints beads as text lines, or as a JSON array. Given the file's own lines, the array holds each
 * record exactly as stored (one per line): valid JSON, byte-faithful, and no re-serialising of
 * thousands of records on every `ready --json`.
 */
export function printBeads(beads: Bead[], json: boolean | undefined, rawLines?: Map<string, string>): void {
  if (json) {
    if (!rawLines) {
      process.stdout.write(`${JSON.stringify(beads, null, 2)}\n`);
      return;
    }
    const items = beads.map((b) => `  ${rawLines.get(b.id)?.trim() ?? JSON.stringify(b)}`);
    process.stdout.write(items.length ? `[\n${items.join(',\n')}\n]\n` : '[]\n');
    return;
  }
  let out = '';
  for (const bead of beads) out += `${bead.id}  [P${String(bead.priority)}] [${bead.status}] [${String(bead.issue_type ?? 'task')}] ${bead.title}\n`;
  process.stdout.write(out);
}

async function readBeads(): Promise<{ beads: Bead[]; rawLines: Map<string, string> }> {
  // The read side only: the store's write side (lock, pid checks) is not loaded for a read.
  const [{ parseBeads, problemsWarning, readBeadsText }, { beadsFile, trackerDir }] = await Promise.all([
    import('../tracker/read.js'),
    import('../tracker/paths.js'),
  ]);
  const file = beadsFile(trackerDir());
  const snapshot = parseBeads(readBeadsText(file));
  if (snapshot.problems.length > 0) {
    process.stderr.write(`${problemsWarning(file, snapshot.problems)}\n`);
  }
  return snapshot;
}

export async function readyCommand(options: { execution?: boolean; json?: boolean }): Promise<void> {
  const [{ readyBeads }, { beads, rawLines }] = await Promise.all([import('../tracker/ready.js'), readBeads()]);
  printBeads(readyBeads(beads, { execution: options.execution }), options.json, rawLines);
}

export async function blockedCommand(options: { json?: boolean }): Promise<void> {
  const [{ blockedBeads }, { beads, rawLines }] = await Promise.all([import('../tracker/ready.js'), readBeads()]);
  printBeads(blockedBeads(beads), options.json, rawLines);
}

/** Flags the fast path understands; the common agent flags are accepted and ignored as usual. */
const IGNORED = new Set(['--quiet', '-q', '--summary', '-s', '--dry-run', '--claude', '--codex']);
const FAST_FLAGS: Record<string, Set<string>> = { ready: new Set(['--execution', '--json']), blocked: new Set(['--json']) };

/** True when `args` (after `tracker`) is a plain ready/blocked call the fast path can serve. */
export function isFastRead(args: string[]): boolean {
  const [command, ...flags] = args;
  const known = command ? FAST_FLAGS[command] : undefined;
  return known !== undefined && flags.every((f) => known.has(f) || IGNORED.has(f));
}

export async function fastRead(args: string[]): Promise<void> {
  const [command, ...flags] = args;
  const has = (flag: string) => flags.includes(flag);
  if (command === 'ready') await readyCommand({ execution: has('--execution'), json: has('--json') });
  else await blockedCommand({ json: has('--json') });
}
