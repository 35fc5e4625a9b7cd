import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BeadStore, createBead, diagnose, fixStore, parseBeads } from '../../src/tracker/index.js';
import { tempDir } from '../helpers/cli.js';
import { deadPid, jsonl, parsedLines } from './builders.js';
import { bead } from '../helpers/bead.js';

const NOW = new Date('2025-06-01T12:00:00Z');
const facts = { now: NOW, thresholdSec: 7200, isAlive: () => false, machine: 'here' };

function storeWith(text: string): BeadStore {
  const dir = join(tempDir(), '.ddx');
  mkdirSync(dir);
  writeFileSync(join(dir, 'beads.jsonl'), text);
  return new BeadStore(dir, {});
}

describe('diagnose', () => {
  it('a clean file is healthy', () => {
    const report = diagnose([bead({ id: 'a' }), bead({ id: 'b', deps: ['a'] })], [], facts);
    expect(report).toEqual({ healthy: true, total: 2, problems: [], dangling: [], cycles: [], stale_claims: [], ddx_damage: [], future_claims: [], bom_lines: [] });
  });

  it('reports dangling dependencies, cycles and stale claims', () => {
    const beads = [
      bead({ id: 'a', deps: ['ghost'] }),
      bead({ id: 'b', deps: ['c'] }),
      bead({ id: 'c', deps: ['b'] }),
      bead({ id: 'd', status: 'in_progress', owner: 'helix', 'claimed-pid': '9', 'claimed-at': '2025-06-01T00:00:00Z' }),
    ];
    const report = diagnose(beads, [], facts);
    expect(report.healthy).toBe(false);
    expect(report.dangling).toEqual([{ id: 'a', depends_on_id: 'ghost' }]);
    expect(report.cycles).toEqual([['b', 'c', 'b']]);
    expect(report.stale_claims).toEqual([{ id: 'd', ageSec: 43200, pid: 9, why: 'dead' }]);
  });

  it('passes through the malformed, duplicate and conflict-marker problems of the read', () => {
    const snapshot = parseBeads(`<<<<<<< HEAD\nnope\n${jsonl([bead({ id: 'a' }), bead({ id: 'a' })])}`);
    const report = diagnose(snapshot.beads, snapshot.problems, facts);
    expect(report.problems.map((p) => p.kind)).toEqual(['conflict-marker', 'malformed', 'duplicate']);
    expect(report.healthy).toBe(false);
  });
});

describe('fixStore', () => {
  const good = bead({ id: 'b', title: 'good' });
  const firstA = JSON.stringify(bead({ id: 'a', title: 'first copy' }));
  const lastA = JSON.stringify(bead({ id: 'a', title: 'last copy' }));
  const text = `${firstA}\n<<<<<<< HEAD\n{"id": "broken",\n${JSON.stringify(good)}\n${lastA}\n>>>>>>> theirs\n`;

  it('backs up, quarantines bad lines and earlier duplicates verbatim, keeps the last copy, and writes work again', () => {
    const store = storeWith(text);
    const result = fixStore(store, facts);

    expect(result.quarantined).toBe(4);
    expect(result.backup).toBe(join(store.dir, 'beads.jsonl.bak-20250601T120000Z'));
    expect(readFileSync(result.backup!, 'utf8')).toBe(text);
    expect(readFileSync(join(store.dir, 'beads.quarantine.jsonl'), 'utf8')).toBe(
      `${firstA}\n<<<<<<< HEAD\n{"id": "broken",\n>>>>>>> theirs\n`,
    );
    const fixed = readFileSync(store.file, 'utf8');
    expect(fixed).toBe(`${lastA}\n${JSON.stringify(good)}\n`);
    expect(parseBeads(fixed).problems).toEqual([]);

    store.mutate((draft) => createBead(draft, { title: 'after the fix' }, 'x'));
    expect(parsedLines(store.readText())).toHaveLength(3);
  });

  it('appends to an existing quarantine file rather than replacing it', () => {
    const store = storeWith('junk\n');
    writeFileSync(join(store.dir, 'beads.quarantine.jsonl'), 'older junk\n');
    fixStore(store, facts);
    expect(readFileSync(join(store.dir, 'beads.quarantine.jsonl'), 'utf8')).toBe('older junk\njunk\n');
  });

  it('releases stale claims (never reopening closed beads) and leaves live ones', () => {
    const stale = bead({ id: 's', status: 'in_progress', owner: 'helix', 'claimed-pid': String(deadPid()), 'claimed-at': '2025-06-01T00:00:00Z', 'claim-token': 't' });
    const live = bead({ id: 'l', status: 'in_progress', owner: 'helix', 'claimed-pid': String(process.pid), 'claimed-at': '2025-06-01T00:00:00Z' });
    const store = storeWith(jsonl([stale, live]));
    const result = fixStore(store, { now: NOW, thresholdSec: 7200, machine: 'here' });
    expect(result.released).toEqual(['s']);
    const after = new Map(parsedLines(store.readText()).map((b) => [b.id, b]));
    expect(after.get('s')!.status).toBe('open');
    expect(after.get('s')).not.toHaveProperty('claim-token');
    expect(after.get('l')).toEqual(live);
  });

  it('a released claim\'s injected memory names move to helix-injected-unsettled for the next run, merged as a set', () => {
    const stale = bead({ id: 's', status: 'in_progress', owner: 'helix', 'claimed-pid': String(deadPid()), 'claimed-at': '2025-06-01T00:00:00Z', 'helix-injected': ['m1', 'm2'], 'helix-injected-unsettled': ['m2', 'm0'] });
    const store = storeWith(jsonl([stale]));
    const result = fixStore(store, { now: NOW, thresholdSec: 7200, machine: 'here' });
    expect(result.unsettled).toEqual([{ id: 's', names: 2 }]);
    const after = parsedLines(store.readText())[0]!;
    expect(after).not.toHaveProperty('helix-injected');
    expect(after['helix-injected-unsettled']).toEqual(['m2', 'm0', 'm1']);
  });

  it('a git conflict: keeps the newer edit whichever side it is on, moves the other verbatim, and says which', () => {
    const ours = JSON.stringify({ id: 'a', title: 'closed on main', status: 'closed', updated_at: '2025-06-01T10:00:00Z' });
    const theirs = JSON.stringify({ id: 'a', title: 'edited on the branch', status: 'open', updated_at: '2025-05-01T10:00:00Z' });
    const onlyOurs = JSON.stringify({ id: 'b', title: 'new on main', status: 'open', updated_at: '2025-06-01T09:00:00Z' });
    const onlyTheirs = JSON.stringify({ id: 'c', title: 'new on the branch', status: 'open', updated_at: '2025-05-02T09:00:00Z' });
    const text = `<<<<<<< HEAD\n${ours}\n${onlyOurs}\n=======\n${theirs}\n${onlyTheirs}\n>>>>>>> feature-x\n`;
    const store = storeWith(text);
    const result = fixStore(store, facts);
    // every bead one side added stays; of the one both changed, the newer edit (here: ours)
    expect(parsedLines(store.readText()).map((b) => [b.id, b.title])).toEqual([['a', 'closed on main'], ['b', 'new on main'], ['c', 'new on the branch']]);
    expect(readFileSync(join(store.dir, 'beads.quarantine.jsonl'), 'utf8')).toBe(`<<<<<<< HEAD\n=======\n${theirs}\n>>>>>>> feature-x\n`);
    expect(result.choices).toEqual([
      'git conflict: kept the newer edit of a — ours (HEAD), line 2, updated 2025-06-01T10:00:00Z; moved theirs (feature-x), line 5, updated 2025-05-01T10:00:00Z to beads.quarantine.jsonl',
    ]);
  });

  it('a git conflict with equal dates keeps the theirs copy, the one reads showed; a diff3 ancestor never wins', () => {
    const at = '2025-06-01T10:00:00Z';
    const ours = JSON.stringify({ id: 'a', title: 'ours', status: 'open', updated_at: at });
    const base = JSON.stringify({ id: 'a', title: 'base', status: 'open', updated_at: '2099-01-01T00:00:00Z' });
    const theirs = JSON.stringify({ id: 'a', title: 'theirs', status: 'open', updated_at: at });
    const store = storeWith(`<<<<<<< HEAD\n${ours}\n||||||| merged common ancestors\n${base}\n=======\n${theirs}\n>>>>>>> topic\n`);
    const result = fixStore(store, facts);
    expect(parsedLines(store.readText()).map((b) => b.title)).toEqual(['theirs']);
    expect(result.choices[0]).toMatch(/^git conflict: kept the newer edit of a — theirs \(topic\), line 6, .*; moved ours \(HEAD\), line 2, .*; base \(merged common ancestors\), line 4, /);
  });

  it('two fixes in the same second keep both backups', () => {
    const store = storeWith('junk\n');
    const first = fixStore(store, facts).backup;
    writeFileSync(store.file, 'more junk\n');
    const second = fixStore(store, facts).backup;
    expect(first).toBe(join(store.dir, 'beads.jsonl.bak-20250601T120000Z'));
    expect(second).toBe(join(store.dir, 'beads.jsonl.bak-20250601T120000Z-2'));
    expect(readFileSync(first!, 'utf8')).toBe('junk\n');
    expect(readFileSync(second!, 'utf8')).toBe('more junk\n');
  });

  it('on a healthy file makes no backup and changes nothing', () => {
    const clean = jsonl([bead({ id: 'a' })]);
    const store = storeWith(clean);
    expect(fixStore(store, facts)).toEqual({ backup: undefined, quarantined: 0, released: [], unsettled: [], repaired: [], choices: [] });
    expect(readdirSync(store.dir)).toEqual(['beads.jsonl']);
    expect(store.readText()).toBe(clean);
    expect(existsSync(join(store.dir, 'beads.quarantine.jsonl'))).toBe(false);
  });
});
