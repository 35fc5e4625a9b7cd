// The bead file and its folder in shapes the rest of the suite never makes: a byte order mark,
// latin-1 bytes, numbers a double cannot hold, nesting 5,000 deep, a symlinked bead file (a backlog
// shared between checkouts), `.ddx` that is a file or a link to nothing, a prefix with path
// separators, values with line breaks, a relative DDX_BEAD_DIR used from a subfolder. Each ends
// in "it works" or one line with its documented exit code; and every bound accepts every line of
// the real DDx files in ../shared/data.
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Draft, parseBeads, validateBeadId } from '../../src/tracker/index.js';
import { readBeadsText } from '../../src/tracker/read.js';
import { encodeBeadsText } from '../../src/tracker/bytes.js';
import { REPO_ROOT, helix, tempDir, tempGitRepo } from '../helpers/cli.js';
import { Project } from '../run/stub-project.js';
import { bead } from '../helpers/bead.js';
import { generic, report } from './fault-checks.js';

const line = (fields: Record<string, unknown>) => JSON.stringify({ title: 't', status: 'open', priority: 2, issue_type: 'task', created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z', ...fields });

function repoWith(bytes: Buffer | string): { repo: string; file: string } {
  const repo = tempGitRepo('helix-files-');
  mkdirSync(join(repo, '.ddx'));
  const file = join(repo, '.ddx', 'beads.jsonl');
  writeFileSync(file, bytes);
  return { repo, file };
}

const run = (repo: string, args: string[], env: NodeJS.ProcessEnv = {}) => helix(['tracker', ...args], { cwd: repo, env: { DDX_BEAD_PREFIX: 'hx', ...env } });
const stderrLines = (stderr: string) => stderr.split('\n').filter(Boolean);

describe('odd bytes', () => {
  it('a leading BOM is reported by doctor and dropped by the first write with a warning, never moved into the file', () => {
    const { repo, file } = repoWith(`\uFEFF${line({ id: 'hx-ffffffff' })}\n`);
    const doctor = run(repo, ['doctor']);
    expect(doctor.status).toBe(1);
    expect(doctor.stdout).toContain('line 1: starts with a UTF-8 byte order mark, which DDx cannot read');
    const creates = [1, 2, 3].map((i) => run(repo, ['create', `t${i}`]));
    expect(creates.map((c) => c.status)).toEqual([0, 0, 0]);
    const bytes = readFileSync(file);
    expect(bytes.includes(Buffer.from([0xef, 0xbb, 0xbf]))).toBe(false);
    expect(bytes.toString('utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l).id)).toContain('hx-ffffffff');
    expect(stderrLines(creates[0]!.stderr)).toEqual([`helix: warning: ${file}: removed the UTF-8 byte order mark at the start of line 1 (DDx cannot read a line that starts with one)`]);
    expect(run(repo, ['doctor']).status).toBe(0);
    report({ group: 'files', scenario: 'beads.jsonl starts with a UTF-8 BOM; three creates', exit: '0 (doctor before: 1)', bead: 'BOM gone, every bead kept', processes: '0', recovery: '—', line: generic(stderrLines(creates[0]!.stderr)[0]!, repo) });
  });

  it('a latin-1 byte in a line the write did not change stays byte for byte; in a changed bead it stays in the value helix did not touch', () => {
    // {"id":"hx-00000001","title":"caf\xE9",…}: the title's last byte is latin-1
    const text = line({ id: 'hx-00000001', title: 'cafX' });
    const [before, after] = text.split('X') as [string, string];
    const odd = Buffer.concat([Buffer.from(before), Buffer.from([0xe9]), Buffer.from(after), Buffer.from('\n')]);
    const { repo, file } = repoWith(Buffer.concat([odd, Buffer.from(`${line({ id: 'hx-00000002', description: 'caf\u00e9 in UTF-8' })}\n`)]));
    const update = run(repo, ['update', 'hx-00000002', '--notes', 'changed']);
    expect(update.status).toBe(0);
    const lines = readFileSync(file).toString('latin1').split('\n');
    expect(Buffer.from(`${lines[0]}\n`, 'latin1').equals(odd)).toBe(true);
    expect(run(repo, ['update', 'hx-00000001', '--notes', 'changed too']).status).toBe(0);
    const changed = readFileSync(file).subarray(0, readFileSync(file).indexOf(0x0a));
    expect(changed.includes(Buffer.from([0x63, 0x61, 0x66, 0xe9]))).toBe(true); // "caf" + E9, not EF BF BD
    expect(JSON.parse(changed.toString('utf8')).notes).toBe('changed too');
    report({ group: 'files', scenario: 'a latin-1 byte (E9) in one bead; the other bead updated, then this one', exit: '0 / 0', bead: 'the untouched line byte for byte; the changed bead keeps E9 in its title', processes: '0', recovery: '—', line: '(none: it works)' });
  });

  it('extras a double cannot hold keep their text when helix rewrites the bead (DDx would write …567000 and null)', () => {
    const raw = line({ id: 'hx-00000001' }).replace(/}$/, ',"big":12345678901234567890,"huge":1e400,"price":1.10,"nested":{"n":1e400}}');
    const { repo, file } = repoWith(`${raw}\n`);
    expect(run(repo, ['update', 'hx-00000001', '--title', 'renamed']).status).toBe(0);
    const written = readFileSync(file, 'utf8');
    expect(written).toContain('"big":12345678901234567890,"huge":1e400,"price":1.10,"nested":{"n":1e400}');
    expect(JSON.parse(written).title).toBe('renamed');
    report({ group: 'files', scenario: 'extras 12345678901234567890, 1e400, 1.10 in a bead helix rewrites', exit: '0', bead: 'each extra written back as its original text', processes: '0', recovery: '—', line: '(none: it works)' });
  });

  it('a key nested 5,000 deep is a damaged line: one warning, writes refuse (6), doctor --fix quarantines it verbatim, the rest runs', () => {
    const deep = line({ id: 'hx-00000002' }).replace(/}$/, `,"x":${'['.repeat(5000)}${']'.repeat(5000)}}`);
    const p = new Project({ beads: [bead({ id: 'hx-00000001', labels: ['phase:build'] })] });
    writeFileSync(p.beadsFile, `${readFileSync(p.beadsFile, 'utf8')}${deep}\n`);
    const show = p.helix(['tracker', 'show', 'hx-00000002']);
    expect(show.status).toBe(3);
    expect(show.stderr).not.toMatch(/RangeError|\n\s+at /);
    expect(stderrLines(show.stderr)).toEqual([`helix: warning: ${p.beadsFile}: malformed line(s) 2; run 'helix tracker doctor --fix'`, 'bead: not found: hx-00000002']);
    const claim = p.helix(['tracker', 'update', 'hx-00000001', '--claim']);
    expect(claim.status).toBe(6);
    const doctor = p.helix(['tracker', 'doctor']);
    expect(doctor.status).toBe(6);
    expect(doctor.stdout).toContain('line 2: malformed: nested deeper than 1000 levels');
    expect(p.helix(['tracker', 'doctor', '--fix']).status).toBe(0);
    expect(readFileSync(join(p.root, '.ddx', 'beads.quarantine.jsonl'), 'utf8')).toBe(`${deep}\n`);
    const runResult = p.helix(['run', '--summary', '--max-cycles', '1']);
    expect(runResult.status).toBe(0);
    expect(p.bead('hx-00000001').status).toBe('closed');
    report({ group: 'files', scenario: 'a key nested 5,000 deep: show, --claim, doctor, doctor --fix, run', exit: '3, 6, 6, 0, 0', bead: 'the deep line quarantined verbatim; the other bead built and closed', processes: '0', recovery: '—', line: generic(doctor.stdout.split('\n')[0]!, p.root) });
  });
});

/** The real DDx files (../shared/data next to the checkout); absent on a clean clone elsewhere. */
const DATA = [resolve(REPO_ROOT, '../shared/data'), resolve(REPO_ROOT, '../../shared/data')].find((dir) => existsSync(dir));

describe('the real DDx files', () => {
  it.skipIf(!DATA)('every line of every real bead file passes every bound and validation, and a write leaves the others byte for byte', () => {
    const files = readdirSync(DATA!).filter((f) => f.endsWith('.jsonl'));
    expect(files.length).toBeGreaterThan(0);
    for (const name of files) {
      const bytes = readFileSync(join(DATA!, name));
      const snapshot = parseBeads(readBeadsText(join(DATA!, name)));
      expect(snapshot.problems, name).toEqual([]);
      expect(snapshot.bomLines, name).toEqual([]);
      for (const b of snapshot.beads) expect(() => validateBeadId(b.id), `${name}: ${b.id}`).not.toThrow();
      // unchanged, the file is written back exactly; one changed bead leaves every other line as it was
      const draft = new Draft(snapshot);
      const sortedInput = [...bytes.toString('utf8').split('\n').filter(Boolean)];
      const written = encodeBeadsText(draft.serialise()).toString('utf8').split('\n').filter(Boolean);
      expect(new Set(written)).toEqual(new Set(sortedInput));
      const target = snapshot.beads[0]!;
      draft.change(target.id, (b) => { b.notes = 'changed'; });
      const after = draft.serialise().split('\n').filter(Boolean);
      expect(after.filter((l) => !sortedInput.includes(l)).map((l) => JSON.parse(l).id)).toEqual([target.id]);
    }
  });
});

describe('links and the tracker folder', () => {
  it('a symlinked beads.jsonl is written through (the link stays, the shared file gets the bead); doctor says DDx would replace the link', () => {
    const shared = tempDir('helix-shared-');
    writeFileSync(join(shared, 'beads.jsonl'), `${line({ id: 'hx-00000001' })}\n`);
    const repos = [tempGitRepo('helix-link-a-'), tempGitRepo('helix-link-b-')];
    for (const repo of repos) {
      mkdirSync(join(repo, '.ddx'));
      symlinkSync(join(shared, 'beads.jsonl'), join(repo, '.ddx', 'beads.jsonl'));
    }
    const created = run(repos[0]!, ['create', 'from checkout a']);
    expect(created.status).toBe(0);
    const id = created.stdout.trim();
    expect(lstatSync(join(repos[0]!, '.ddx', 'beads.jsonl')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(shared, 'beads.jsonl'), 'utf8')).toContain(id);
    expect(run(repos[1]!, ['show', id]).status).toBe(0);
    expect(existsSync(join(shared, 'beads.lock'))).toBe(false); // the lock is each checkout's own
    const doctor = run(repos[0]!, ['doctor']);
    expect(doctor.stdout.split('\n')[0]).toBe(`note: ${join(repos[0]!, '.ddx', 'beads.jsonl')} is a link to ${join(shared, 'beads.jsonl')}: helix writes through it, but DDx replaces the link with a plain file on its next write, and the two then diverge`);
    report({ group: 'files', scenario: 'beads.jsonl a symlink shared by two checkouts; create in one', exit: '0', bead: 'in the shared file, seen from the other checkout; the link kept', processes: '0', recovery: '—', line: generic(doctor.stdout.split('\n')[0]!.replace(shared, '<shared>'), repos[0]) });

    const dangling = tempGitRepo('helix-link-c-');
    mkdirSync(join(dangling, '.ddx'));
    symlinkSync(join(shared, 'gone.jsonl'), join(dangling, '.ddx', 'beads.jsonl'));
    for (const args of [['list'], ['create', 'x']]) {
      const r = run(dangling, args);
      expect(r.status).toBe(16);
      expect(stderrLines(r.stderr)).toEqual([`helix: ${join(dangling, '.ddx', 'beads.jsonl')} is a link to ${join(shared, 'gone.jsonl')}, which does not exist: restore the file it points to or remove the link`]);
    }
    expect(readlinkSync(join(dangling, '.ddx', 'beads.jsonl'))).toBe(join(shared, 'gone.jsonl'));
    report({ group: 'files', scenario: 'beads.jsonl a link to nothing: list, create', exit: '16 / 16', bead: 'unchanged (the link left as it was)', processes: '0', recovery: '—', line: generic(stderrLines(run(dangling, ['list']).stderr)[0]!.replace(shared, '<shared>'), dangling) });
  });

  it('.ddx that is a file or a dangling link: one line and exit 16 from every command that reads the tracker', () => {
    const commands = [['tracker', 'list'], ['tracker', 'create', 'x'], ['tracker', 'init'], ['tracker', 'ready'], ['run', '--dry-run'], ['status'], ['next'], ['doctor'], ['build', '--dry-run']];
    for (const shape of ['file', 'dangling link'] as const) {
      const repo = tempGitRepo('helix-ddx-');
      if (shape === 'file') writeFileSync(join(repo, '.ddx'), 'not a folder\n');
      else symlinkSync(join(repo, 'nowhere'), join(repo, '.ddx'));
      const expected = shape === 'file'
        ? `helix: ${join(repo, '.ddx')} is a file, not a folder: the bead tracker needs a folder there (move the file away)`
        : `helix: ${join(repo, '.ddx')} is a link to ${join(repo, 'nowhere')}, which does not exist: create that folder or remove the link`;
      for (const args of commands) {
        const r = helix(args, { cwd: repo, env: { PATH: `${join(REPO_ROOT, 'tests/stubs')}:${process.env.PATH}` } });
        expect([args.join(' '), r.status]).toEqual([args.join(' '), 16]);
        expect(stderrLines(r.stderr)).toEqual([expected]);
      }
      report({ group: 'files', scenario: `.ddx is a ${shape}: ${commands.map((c) => c.join(' ')).join(', ')}`, exit: '16 from each', bead: '—', processes: '0', recovery: '—', line: generic(expected, repo) });
    }
  });
});

describe('names and values', () => {
  it('a prefix with path separators is refused before anything is written; values with line breaks are quoted on one line', () => {
    const repo = tempGitRepo('helix-names-');
    const r = helix(['tracker', 'create', 'x'], { cwd: repo, env: { DDX_BEAD_PREFIX: '../../../escape' } });
    expect(r.status).toBe(7);
    expect(stderrLines(r.stderr)).toEqual(['helix: DDX_BEAD_PREFIX must be letters, digits and dashes, at most 55 characters, got "../../../escape"']);
    expect(existsSync(join(repo, '.ddx'))).toBe(false);
    report({ group: 'files', scenario: 'DDX_BEAD_PREFIX=../../../escape; tracker create', exit: '7', bead: 'nothing written', processes: '0', recovery: '—', line: stderrLines(r.stderr)[0]! });

    mkdirSync(join(repo, '.ddx'));
    writeFileSync(join(repo, '.ddx', 'beads.jsonl'), `${line({ id: 'hx-00000001' })}\n`);
    const refusals: Array<[string[], NodeJS.ProcessEnv, number, string]> = [
      [['tracker', 'show', 'a\nb'], {}, 3, 'bead: not found: a\\nb'],
      [['triage', 't', '--execution-eligible', 'x\ny'], {}, 7, "helix: --execution-eligible expects true or false, got 'x\\ny'"],
      [['run', '--agent', 'x\ny', '--dry-run'], {}, 7, "helix: invalid agent name in --agent: 'x\\ny'"],
      [['run', '--dry-run'], { HELIX_AGENT: 'a\nb' }, 7, "helix: invalid agent name in HELIX_AGENT: 'a\\nb'"],
      [['tracker', 'dep', 'add', 'hx-00000001', 'n\nx'], {}, 3, 'bead: not found: n\\nx'],
    ];
    for (const [args, env, code, text] of refusals) {
      const refused = helix(args, { cwd: repo, env: { DDX_BEAD_PREFIX: 'hx', ...env } });
      expect([args.join(' '), refused.status, stderrLines(refused.stderr)]).toEqual([args.join(' '), code, [text]]);
    }
    report({ group: 'files', scenario: 'an id, a flag value and HELIX_AGENT holding a line break (5 refusals)', exit: '3, 7, 7, 7, 3', bead: 'unchanged', processes: '0', recovery: '—', line: 'bead: not found: a\\nb' });
  });

  it('a relative DDX_BEAD_DIR used from a subfolder reads the project root backlog, or is refused when the subfolder has its own', () => {
    const repo = tempGitRepo('helix-beaddir-');
    mkdirSync(join(repo, 'src', 'deep'), { recursive: true });
    const created = helix(['tracker', 'create', 'at the root'], { cwd: repo, env: { DDX_BEAD_DIR: '.alt', DDX_BEAD_PREFIX: 'hx' } });
    expect(created.status).toBe(0);
    const fromSub = helix(['tracker', 'list'], { cwd: join(repo, 'src', 'deep'), env: { DDX_BEAD_DIR: '.alt' } });
    expect(fromSub.status).toBe(0);
    expect(fromSub.stdout).toContain(created.stdout.trim());
    report({ group: 'files', scenario: 'DDX_BEAD_DIR=.alt; create at the root, list from src/deep', exit: '0', bead: 'the root backlog listed', processes: '0', recovery: '—', line: '(none: it works)' });
    mkdirSync(join(repo, 'src', 'deep', '.alt'));
    const ambiguous = helix(['tracker', 'list'], { cwd: join(repo, 'src', 'deep'), env: { DDX_BEAD_DIR: '.alt' } });
    expect(ambiguous.status).toBe(16);
    expect(stderrLines(ambiguous.stderr)).toEqual([`helix: DDX_BEAD_DIR=".alt" is relative: helix reads it from the project root (${join(repo, '.alt')}), but from here it names another folder (${join(repo, 'src', 'deep', '.alt')}); set an absolute path`]);
    report({ group: 'files', scenario: 'the same, with a src/deep/.alt folder of its own', exit: '16', bead: 'unchanged', processes: '0', recovery: '—', line: generic(stderrLines(ambiguous.stderr)[0]!, repo) });
  });
});
