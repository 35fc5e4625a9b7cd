import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EXIT, type HelixError } from '../../src/errors.js';
import { BeadStore, claimBead, createBead, describeProblems, parseBeads, updateBead } from '../../src/tracker/index.js';
import { tempDir } from '../helpers/cli.js';
import { errorOf, jsonl, parsedLines } from './builders.js';
import { bead } from '../helpers/bead.js';

/** A file as another tool (DDx, an editor, an old helix) might leave it: unsorted, odd keys and formats. */
const FOREIGN = [
  '{"id":"zz-00000003","title":"Ünïcødé ✓ — 日本語","status":"open","priority":1,"issue_type":"task","created_at":"2025-01-01T00:00:00.123456789Z","updated_at":"2025-01-02T00:00:00.5+02:00","x-ddx-internal":{"nested":[1,2,{"k":null}]},"labels":["a","b"]}',
  '{"status":"in_progress","id":"zz-00000001","title":"pid as number","priority":2,"claimed-pid":4242,"claimed-at":"2025-01-01T00:00:00.1Z","owner":"helix","issue_type":"bug","created_at":"2025-01-01T00:00:00Z","updated_at":"2025-01-01T00:00:00Z"}',
  '{"id":"zz-00000002","priority":0,"title":"pid as string","status":"in_progress","claimed-pid":"77","unknown_bool":false,"unknown_num":1.5e3,"created_at":"2025-01-01T00:00:00Z","updated_at":"2025-01-01T00:00:00Z","events":[{"kind":"x","at":"2025-01-01T00:00:00Z"}]}',
  '{"id":"zz-00000000","title":"target","status":"open","priority":2,"issue_type":"task","created_at":"2025-01-01T00:00:00Z","updated_at":"2025-01-01T00:00:00Z","zzz-trailing":"kept last"}',
].join('\n') + '\n';

function storeIn(dir: string): BeadStore {
  return new BeadStore(join(dir, '.ddx'), {});
}

describe('parseBeads', () => {
  it('keeps beads in file order and reports nothing for a clean file', () => {
    const snapshot = parseBeads(FOREIGN);
    expect(snapshot.problems).toEqual([]);
    expect(snapshot.beads.map((b) => b.id)).toEqual(['zz-00000003', 'zz-00000001', 'zz-00000002', 'zz-00000000']);
  });

  it('reports malformed lines by 1-based line number and goes on', () => {
    const text = `${jsonl([bead({ id: 'a' })])}{"id":"b",\nnot json\n[1,2]\n{"title":"no id"}\n${jsonl([bead({ id: 'c' })])}`;
    const snapshot = parseBeads(text);
    expect(snapshot.beads.map((b) => b.id)).toEqual(['a', 'c']);
    expect(snapshot.problems.map((p) => [p.line, p.kind])).toEqual([
      [2, 'malformed'],
      [3, 'malformed'],
      [4, 'malformed'],
      [5, 'malformed'],
    ]);
    expect(snapshot.problems[1]!.raw).toBe('not json');
  });

  it('for a duplicate id the last line wins on read and the earlier line is reported', () => {
    const first = bead({ id: 'a', title: 'first' });
    const text = jsonl([first, bead({ id: 'b' }), bead({ id: 'a', title: 'second' })]);
    const snapshot = parseBeads(text);
    expect(snapshot.byId.get('a')!.title).toBe('second');
    expect(snapshot.beads.map((b) => b.id)).toEqual(['b', 'a']);
    expect(snapshot.problems).toEqual([
      expect.objectContaining({ line: 1, kind: 'duplicate', raw: JSON.stringify(first) }),
    ]);
  });

  it('with three copies of an id, the last wins and both earlier lines are reported with their text', () => {
    const copies = ['one', 'two', 'three'].map((title) => JSON.stringify(bead({ id: 'a', title })));
    const text = `${copies[0]}\n${JSON.stringify(bead({ id: 'b' }))}\n${copies[1]}\n${copies[2]}\n`;
    const snapshot = parseBeads(text);
    expect(snapshot.beads.map((b) => [b.id, b.title])).toEqual([['b', 'bead b'], ['a', 'three']]);
    expect(snapshot.problems.map((p) => [p.line, p.kind, p.raw])).toEqual([
      [1, 'duplicate', copies[0]],
      [3, 'duplicate', copies[1]],
    ]);
  });

  it('reads UTF-8 files (non-ASCII) and ASCII files alike', () => {
    const dir = tempDir();
    const store = storeIn(dir);
    mkdirSync(store.dir);
    writeFileSync(store.file, jsonl([bead({ id: 'u', title: 'ünïcødé ✓ 日本 😀' }), bead({ id: 'a', title: 'plain' })]));
    expect(store.read().byId.get('u')!.title).toBe('ünïcødé ✓ 日本 😀');
    writeFileSync(store.file, jsonl([bead({ id: 'a', title: 'plain \u00e9 escaped' })]));
    expect(store.read().byId.get('a')!.title).toBe('plain é escaped');
  });

  it('reports git conflict markers', () => {
    const text = `<<<<<<< HEAD\n${jsonl([bead({ id: 'a' })])}=======\n${jsonl([bead({ id: 'b' })])}>>>>>>> branch\n`;
    const snapshot = parseBeads(text);
    expect(snapshot.problems.map((p) => [p.line, p.kind])).toEqual([
      [1, 'conflict-marker'],
      [3, 'conflict-marker'],
      [5, 'conflict-marker'],
    ]);
    expect(describeProblems('f', snapshot.problems)).toBe('f: conflict marker line(s) 1, 3, 5');
  });

  it('describeProblems names every kind and line', () => {
    const snapshot = parseBeads(`x\n${jsonl([bead({ id: 'a' }), bead({ id: 'a' })])}<<<<<<< ours\n`);
    expect(describeProblems('f', snapshot.problems)).toBe('f: malformed line(s) 1; duplicate id line(s) 2; conflict marker line(s) 4');
  });
});

describe('BeadStore writes', () => {
  it('an unrelated update leaves every other record equal as an object, key order included, and sorts by id', () => {
    const dir = tempDir();
    const store = storeIn(dir);
    const file = join(dir, '.ddx', 'beads.jsonl');
    mkdirSync(join(dir, '.ddx'), { recursive: true });
    writeFileSync(file, FOREIGN);
    const before = new Map(parsedLines(FOREIGN).map((b) => [b.id, b]));

    store.mutate((draft) => updateBead(draft, 'zz-00000000', { notes: 'touched' }));

    const text = readFileSync(file, 'utf8');
    const after = parsedLines(text);
    expect(after.map((b) => b.id)).toEqual(['zz-00000000', 'zz-00000001', 'zz-00000002', 'zz-00000003']);
    for (const record of after) {
      if (record.id === 'zz-00000000') continue;
      const original = before.get(record.id)!;
      expect(record).toStrictEqual(original);
      expect(Object.keys(record)).toEqual(Object.keys(original));
    }
    // The untouched lines are even byte-identical.
    for (const line of FOREIGN.trim().split('\n').filter((l) => !l.includes('"zz-00000000"'))) expect(text).toContain(`${line}\n`);
    // The changed record keeps its keys in place; new keys go at the end.
    const target = after[0]!;
    expect(Object.keys(target)).toEqual([...Object.keys(before.get('zz-00000000')!), 'notes']);
    expect(target.notes).toBe('touched');
    expect(target['zzz-trailing']).toBe('kept last');
  });

  it('a claim on a bead with a numeric claimed-pid elsewhere writes its own as a string', () => {
    const dir = tempDir();
    mkdirSync(join(dir, '.ddx'), { recursive: true });
    writeFileSync(join(dir, '.ddx', 'beads.jsonl'), FOREIGN);
    storeIn(dir).mutate((draft) => claimBead(draft, 'zz-00000000', { pid: 123 }));
    const after = parsedLines(readFileSync(join(dir, '.ddx', 'beads.jsonl'), 'utf8'));
    expect(after.find((b) => b.id === 'zz-00000000')!['claimed-pid']).toBe('123');
    expect(after.find((b) => b.id === 'zz-00000001')!['claimed-pid']).toBe(4242);
  });

  it('a change that touches nothing does not rewrite the file', () => {
    const dir = tempDir();
    mkdirSync(join(dir, '.ddx'), { recursive: true });
    writeFileSync(join(dir, '.ddx', 'beads.jsonl'), FOREIGN);
    storeIn(dir).mutate((draft) => draft.get('zz-00000000'));
    expect(readFileSync(join(dir, '.ddx', 'beads.jsonl'), 'utf8')).toBe(FOREIGN);
  });

  it('a failing change writes nothing and leaves no temp file or lock behind', () => {
    const dir = tempDir();
    mkdirSync(join(dir, '.ddx'), { recursive: true });
    writeFileSync(join(dir, '.ddx', 'beads.jsonl'), FOREIGN);
    const error = errorOf(() => storeIn(dir).mutate((draft) => updateBead(draft, 'zz-00000000', { priority: '7' })));
    expect(error.exitCode).toBe(EXIT.validation);
    expect(readFileSync(join(dir, '.ddx', 'beads.jsonl'), 'utf8')).toBe(FOREIGN);
    expect(readdirSync(join(dir, '.ddx'))).toEqual(['beads.jsonl']);
  });

  it.each([
    ['a malformed line', `${FOREIGN}{"id": broken\n`, 'malformed line(s) 5'],
    ['a duplicate id', `${FOREIGN}${FOREIGN.split('\n')[0]}\n`, 'duplicate id line(s) 1'],
    ['conflict markers', `<<<<<<< HEAD\n${FOREIGN}>>>>>>> other\n`, 'conflict marker line(s) 1, 6'],
  ])('refuses every write while the file has %s, naming the lines, file unchanged', (_kind, text, named) => {
    const dir = tempDir();
    mkdirSync(join(dir, '.ddx'), { recursive: true });
    const file = join(dir, '.ddx', 'beads.jsonl');
    writeFileSync(file, text);
    const error = errorOf(() => storeIn(dir).mutate((draft) => createBead(draft, { title: 'new' }, 'zz')));
    expect(error.exitCode).toBe(EXIT.malformedStore);
    expect(error.message).toContain(named);
    expect(error.message).toContain("run 'helix tracker doctor --fix'");
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('creates the folder and file on the first write', () => {
    const dir = tempDir();
    const store = storeIn(dir);
    expect(store.exists()).toBe(false);
    expect(store.read().beads).toEqual([]);
    store.mutate((draft) => createBead(draft, { title: 'first' }, 'zz'));
    expect(parsedLines(readFileSync(store.file, 'utf8'))).toHaveLength(1);
    expect(existsSync(join(store.dir, 'beads.lock'))).toBe(false);
  });
});

describe('property: every written file parses and keeps every bead', () => {
  const title = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }).filter((s) => s.trim() !== '');
  const op = fc.oneof(
    fc.record({ kind: fc.constant('create' as const), title, priority: fc.integer({ min: 0, max: 4 }) }),
    fc.record({ kind: fc.constant('note' as const), index: fc.nat(), text: fc.string({ unit: 'grapheme', maxLength: 20 }) }),
    fc.record({ kind: fc.constant('claim' as const), index: fc.nat() }),
  );

  it('any sequence of creates, notes and claims', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 12 }), (ops) => {
        const dir = tempDir();
        const store = storeIn(dir);
        let expected = 0;
        for (const o of ops) {
          try {
            store.mutate((draft) => {
              const beads = draft.beads;
              if (o.kind === 'create') return createBead(draft, { title: o.title, priority: o.priority }, 'p');
              if (beads.length === 0) return undefined;
              const target = beads[o.index % beads.length]!;
              if (o.kind === 'note') return updateBead(draft, target.id, { notes: o.text });
              return claimBead(draft, target.id);
            });
            if (o.kind === 'create') expected++;
          } catch (error) {
            // a claim of a non-open bead is the only refusal expected here
            expect((error as HelixError).exitCode).toBe(EXIT.conflict);
          }
        }
        const text = store.readText();
        const lines = parsedLines(text);
        expect(lines).toHaveLength(expected);
        expect(parseBeads(text).problems).toEqual([]);
        const sorted = [...lines.map((b) => b.id)].sort();
        expect(lines.map((b) => b.id)).toEqual(sorted);
      }),
      { numRuns: 40 },
    );
  });
});
