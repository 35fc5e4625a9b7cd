// The ready cache (src/cli/ready-cache.ts): a large bead file that has settled is parsed once; the
// reads after it print from the cache exactly what a parse prints, and any change to the file, a
// damaged line or a cache that cannot be used falls back to parsing.
//
// The cache is defined on wall time (a file changed in the last SETTLE_MS is not cached), so these
// tests wait, once, until their files are that old: there is nothing else to wait for.
import { beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { type BigIntStats, existsSync, mkdirSync, readFileSync, rmSync, statSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CACHE_FROM_BYTES, SETTLE_MS, cachePath, settled } from '../../src/cli/ready-cache.js';
import type { Bead } from '../../src/tracker/index.js';
import { leaseDir } from '../../src/tracker/liveness.js';
import { bead } from '../helpers/bead.js';
import { HELIX_BIN, runProcess, tempGitRepo } from '../helpers/cli.js';

const DAY = 24 * 60 * 60 * 1000;
const VARIANTS = [['ready'], ['ready', '--json'], ['ready', '--execution'], ['ready', '--execution', '--json']];

/**
 * A bead file past CACHE_FROM_BYTES with everything readiness and printing look at: dependencies
 * on closed, open and missing beads; epics; both retry keys, past and future; beads not eligible or
 * superseded; priorities as strings; text the terminal rules rewrite (bidi overrides, C1
 * controls); and one line that is not valid UTF-8.
 */
function backlogBytes(): Buffer {
  const lines: string[] = [];
  const ids: string[] = [];
  const now = Date.now();
  let i = 0;
  let size = 0;
  while (size < CACHE_FROM_BYTES * 1.05) {
    const id = `rc-${i.toString(16).padStart(6, '0')}`;
    const fields: Partial<Bead> & { deps?: string[] } = {
      id,
      title: i % 97 === 5 ? `Bead ${i} \u202Eevil\u202C and \u0085next` : `Bead ${i}: part ${i % 13}`,
      status: i % 5 === 0 ? 'closed' : i % 11 === 0 ? 'in_progress' : 'open',
      priority: (i % 7 === 0 ? String(i % 4) : i % 5) as number, // other tools write it as a string
      issue_type: i % 17 === 0 ? 'epic' : 'task',
      description: `Description of bead ${i}. `.repeat(16),
    };
    if (i > 3 && i % 3 === 0) fields.deps = [ids[(i * 7) % ids.length]!, ...(i % 29 === 0 ? ['rc-gone'] : [])];
    if (i % 19 === 0) fields['execution-eligible'] = false;
    if (i % 23 === 0) fields['superseded-by'] = 'rc-000001';
    if (i % 13 === 0) fields['work-retry-after'] = new Date(now + (i % 2 ? DAY : -DAY)).toISOString();
    if (i % 31 === 0) fields['execute-loop-retry-after'] = new Date(now + DAY).toISOString();
    lines.push(JSON.stringify(bead(fields)));
    size += lines[lines.length - 1]!.length + 1;
    ids.push(id);
    i++;
  }
  const bytes = Buffer.from(`${lines.join('\n')}\n`, 'utf8');
  bytes[bytes.indexOf('"Bead 8: part 8"') + 9] = 0xe9; // a latin-1 é for the p: not valid UTF-8
  return bytes;
}

/** A project with a large bead file, its own cache folder and temp folder, and a live DDx lease on one ready bead. */
function project(bytes: Buffer = backlogBytes()) {
  const root = tempGitRepo('helix-ready-cache-');
  const env = { XDG_CACHE_HOME: join(root, '..', `${root.split('/').pop()}-cache`), TMPDIR: join(root, '..', `${root.split('/').pop()}-tmp`) };
  const file = join(root, '.ddx', 'beads.jsonl');
  mkdirSync(join(root, '.ddx'));
  writeFileSync(file, bytes);
  const leases = leaseDir(join(root, '.ddx'), env);
  mkdirSync(leases, { recursive: true });
  const stamp = new Date(Date.now() + DAY).toISOString(); // live for the whole test
  writeFileSync(join(leases, 'rc-000002.json'), `${JSON.stringify({ bead_id: 'rc-000002', owner: 'ddx-worker', machine: 'elsewhere', started_at: stamp, updated_at: stamp, pid: 1 })}\n`);
  return { root, env, file, cache: cachePath(file, env)! };
}

/** One `helix tracker <args>`; each parses a 1 MiB file, so the tests run them side by side. */
async function read(p: { root: string; env: NodeJS.ProcessEnv }, args: string[], env: NodeJS.ProcessEnv = p.env) {
  return { args, ...(await runProcess(process.execPath, [HELIX_BIN, 'tracker', ...args], p.root, env)) };
}

/** Every ready variant, or the one given. */
const readAll = (p: { root: string; env: NodeJS.ProcessEnv }, variants = VARIANTS, env: NodeJS.ProcessEnv = p.env) => Promise.all(variants.map((args) => read(p, args, env)));

/** The same reads with no cache folder at all: what a parse prints. */
const parsed = (p: { root: string; env: NodeJS.ProcessEnv }, variants = VARIANTS) => readAll(p, variants, { ...p.env, XDG_CACHE_HOME: '', HOME: '' });

/** The variant the tests past the first two read: the one that decides the most. */
const ONE = [['ready', '--execution', '--json']];

async function settle(...files: string[]): Promise<void> {
  const changedAt = (file: string) => Math.max(statSync(file).mtimeMs, statSync(file).ctimeMs);
  while (files.some((file) => Date.now() - changedAt(file) <= SETTLE_MS + 50)) await new Promise((r) => setTimeout(r, 100));
}

describe('the ready cache', () => {
  const cached = project();
  const edited = project();
  const damaged = project(Buffer.concat([backlogBytes(), Buffer.from('not json\n')]));
  const unwritable = project();
  const gone = project();

  beforeAll(async () => {
    await settle(cached.file, edited.file, damaged.file, unwritable.file, gone.file);
  }, 10_000);

  it('a file changed in the last SETTLE_MS, or dated ahead, is parsed and not cached', async () => {
    const at = (ms: number) => BigInt(ms) * 1_000_000n;
    const times = (mtime: number, ctime: number) => ({ mtimeNs: at(mtime), ctimeNs: at(ctime) }) as BigIntStats;
    const now = Date.now();
    expect(settled(times(now - 3 * SETTLE_MS, now - 3 * SETTLE_MS), now)).toBe(true);
    expect(settled(times(now - 100, now - 100), now)).toBe(false);
    // an old mtime set back over a fresh write (`touch -r`, `cp -p`): the ctime tells
    expect(settled(times(now - 3 * SETTLE_MS, now - 100), now)).toBe(false);
    expect(settled(times(now + DAY, now - 3 * SETTLE_MS), now)).toBe(false);

    const fresh = project();
    utimesSync(fresh.file, new Date(Date.now() + DAY), new Date(Date.now() + DAY));
    const [reads, reference] = await Promise.all([readAll(fresh, ONE), parsed(fresh, ONE)]);
    expect(reads).toEqual(reference);
    expect(existsSync(fresh.cache)).toBe(false);
  });

  it('a settled file is cached, and the reads from the cache print what a parse prints, byte for byte', async () => {
    const [reference, first] = await Promise.all([parsed(cached), readAll(cached)]); // the second writes the cache
    expect(reference.every((r) => r.code === 0 && r.stderr === '')).toBe(true);
    // the fixture reaches every branch: the lease, the parked, the epic and the rewritten text
    const ids = (i: number) => (JSON.parse(reference[i]!.stdout) as Bead[]).map((b) => b.id);
    expect(ids(1)).not.toContain('rc-000002');
    expect(ids(1).length).toBeGreaterThan(ids(3).length);
    expect(reference[0]!.stdout).toContain('\\u202e');
    expect(reference[1]!.stdout).toContain('Bead 8: \uFFFDart 8');

    expect(first).toEqual(reference);
    expect(existsSync(cached.cache)).toBe(true);
    expect(await readAll(cached)).toEqual(reference); // from the cache
  });

  it('a read is served from the cache: an edit of the cache shows', async () => {
    await readAll(cached, ONE);
    const bytes = readFileSync(cached.cache);
    bytes.write('Xe', bytes.lastIndexOf('Bead 1'), 'latin1');
    writeFileSync(cached.cache, bytes);
    expect((await read(cached, ['ready'])).stdout).toContain('Xead 1');
  });

  it('any write to the file misses: an edit in place of the same size, its mtime set back to the nanosecond', { timeout: 20_000 }, async () => {
    expect(await readAll(edited, ONE)).toEqual(await parsed(edited, ONE));
    expect(existsSync(edited.cache)).toBe(true);
    const before = statSync(edited.file, { bigint: true });
    const copy = `${edited.file}.before`;
    expect(spawnSync('cp', ['-p', edited.file, copy]).status).toBe(0);
    const text = readFileSync(edited.file, 'latin1');
    writeFileSync(edited.file, text.replace('"Bead 1: part 1"', '"Read 1: part 1"'), 'latin1');
    expect(spawnSync('touch', ['-m', '-r', copy, edited.file]).status).toBe(0); // as `cp -p` would leave it
    const after = statSync(edited.file, { bigint: true });
    expect([after.ino, after.size, after.mtimeNs]).toEqual([before.ino, before.size, before.mtimeNs]);
    await settle(edited.file); // until then a read would not even look (settled); after it, only the ctime tells
    const [reads, reference] = await Promise.all([readAll(edited, ONE), parsed(edited, ONE)]);
    expect(reads).toEqual(reference);
    expect(reads[0]!.stdout).toContain('Read 1: part 1');
  });

  it('a file with a damaged line is not cached: every read still warns', async () => {
    const [first, second, reference] = await Promise.all([readAll(damaged, ONE), readAll(damaged, ONE), parsed(damaged, ONE)]);
    for (const r of [...first, ...second]) expect(r.stderr).toMatch(/malformed line\(s\) \d+/);
    expect(second).toEqual(reference);
    expect((await readAll(damaged, ONE))[0]!.stderr).toMatch(/malformed line\(s\) \d+/);
    expect(existsSync(damaged.cache)).toBe(false);
  });

  it('a cache folder that cannot be used, or a cache cut short, is only a miss', async () => {
    const asFile = { ...unwritable, env: { ...unwritable.env, XDG_CACHE_HOME: join(unwritable.root, '.ddx', 'beads.jsonl') } };
    const [reference, unusable, written] = await Promise.all([parsed(unwritable, ONE), readAll(asFile, ONE), readAll(unwritable, ONE)]);
    expect(unusable).toEqual(reference);
    expect(written).toEqual(reference);
    const full = statSync(unwritable.cache).size;
    truncateSync(unwritable.cache, Math.floor(full / 2));
    expect(await readAll(unwritable, ONE)).toEqual(reference);
    expect(statSync(unwritable.cache).size).toBe(full); // written again
  });

  it('writing a cache removes the caches of bead files that are gone', async () => {
    await read(gone, ['ready']);
    const other = { ...cached, env: { ...cached.env, XDG_CACHE_HOME: gone.env.XDG_CACHE_HOME } };
    const otherCache = cachePath(cached.file, other.env)!;
    expect(existsSync(gone.cache)).toBe(true);
    rmSync(gone.root, { recursive: true, force: true });
    await read(other, ['ready']);
    expect(existsSync(otherCache)).toBe(true);
    expect(existsSync(gone.cache)).toBe(false);
  });
});
