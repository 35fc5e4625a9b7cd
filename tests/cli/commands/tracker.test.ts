// Black-box tests of `helix tracker …`: the real launcher in a child process, real files, real git.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../../src/errors.js';
import { type CliResult, helix, tempDir, tempGitRepo } from '../../helpers/cli.js';
import { jsonl, parsedLines } from '../../tracker/builders.js';
import { bead } from '../../helpers/bead.js';

type Env = NodeJS.ProcessEnv;

function tracker(cwd: string, args: string[], env: Env = {}): CliResult {
  return helix(['tracker', ...args], { cwd, env: { DDX_BEAD_PREFIX: 'hx', ...env } });
}

/** Runs a tracker command that must succeed and returns its stdout. */
function ok(cwd: string, args: string[], env: Env = {}): string {
  const r = tracker(cwd, args, env);
  if (r.status !== 0) throw new Error(`helix tracker ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

const create = (cwd: string, ...args: string[]) => ok(cwd, ['create', ...args]).trim();
const json = <T = unknown>(cwd: string, args: string[]): T => JSON.parse(ok(cwd, [...args, '--json'])) as T;
const beadsText = (repo: string) => readFileSync(join(repo, '.ddx', 'beads.jsonl'), 'utf8');

function seeded(beads: object[]): { repo: string; text: string } {
  const repo = tempGitRepo();
  mkdirSync(join(repo, '.ddx'));
  const text = jsonl(beads);
  writeFileSync(join(repo, '.ddx', 'beads.jsonl'), text);
  return { repo, text };
}

describe('tracker help', () => {
  it('tracker --help begins "Manage beads" and lists create, import and export', () => {
    const r = tracker(tempDir(), ['--help']);
    expect(r.status).toBe(0);
    expect(r.stdout.startsWith('Manage beads')).toBe(true);
    expect(r.stdout).toMatch(/^\s+create \[options\] <title>\s+Create a new bead$/m);
    expect(r.stdout).toMatch(/^\s+import \[options\] \[file\]\s+Import beads/m);
    expect(r.stdout).toMatch(/^\s+export \[options\] \[file\]\s+Export beads as JSONL$/m);
  });

  it('tracker create --help begins "Create a new bead" and creates nothing', () => {
    const repo = tempGitRepo();
    const r = tracker(repo, ['create', '--help']);
    expect(r.status).toBe(0);
    expect(r.stdout.startsWith('Create a new bead')).toBe(true);
    expect(r.stdout).toContain('--priority');
    expect(existsSync(join(repo, '.ddx'))).toBe(false);
  });

  it('an unknown option names the subcommand, exit 1', () => {
    const r = tracker(tempDir(), ['ready', '--bogus']);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe('unknown option for ready: --bogus\n');
  });
});

describe('tracker init, create, show', () => {
  it('init creates an empty bead file and the git excludes', () => {
    const repo = tempGitRepo();
    expect(ok(repo, ['init'])).toBe(`Initialized bead tracker in ${join(repo, '.ddx')}\n`);
    expect(beadsText(repo)).toBe('');
    expect(readFileSync(join(repo, '.git', 'info', 'exclude'), 'utf8')).toContain('.ddx/beads.lock\n');
  });

  it('init on an existing tracker keeps the file as it is', () => {
    const { repo, text } = seeded([bead({ id: 'a' })]);
    expect(ok(repo, ['init'])).toBe(`Initialized bead tracker in ${join(repo, '.ddx')}\n`);
    expect(beadsText(repo)).toBe(text);
  });

  it('create prints the new id and stores the flags', () => {
    const repo = tempGitRepo();
    const dep = create(repo, 'dep');
    const parent = create(repo, 'parent', '--type', 'epic');
    const id = create(
      repo, 'Full bead', '--type', 'bug', '--priority', '1', '--labels', 'a, b', '--parent', parent, '--description', 'd',
      '--acceptance', 'acc', '--deps', dep, '--spec-id', 'FEAT-1', '--set', 'execution-eligible=false', '--set', 'verify=npm test',
    );
    expect(id).toMatch(/^hx-[0-9a-f]{8}$/);
    const shown = json<Record<string, unknown>>(repo, ['show', id]);
    expect(shown).toMatchObject({
      id, title: 'Full bead', status: 'open', priority: 1, issue_type: 'bug', labels: ['a', 'b'], parent, description: 'd',
      acceptance: 'acc', 'spec-id': 'FEAT-1', 'execution-eligible': false, verify: 'npm test',
    });
    expect(shown.dependencies).toEqual([expect.objectContaining({ issue_id: id, depends_on_id: dep, type: 'blocks' })]);
    expect(shown.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('show prints the fields as text; unknown id is "bead: not found: <id>", exit 3', () => {
    const repo = tempGitRepo();
    const id = create(repo, 'Shown', '--labels', 'x,y');
    const text = ok(repo, ['show', id]);
    expect(text).toContain(`id:               ${id}\n`);
    expect(text).toContain('title:            Shown\n');
    expect(text).toContain('labels:           x, y\n');
    const r = tracker(repo, ['show', 'hx-00000000']);
    expect(r.status).toBe(EXIT.notFound);
    expect(r.stderr).toBe('bead: not found: hx-00000000\n');
  });

  it('show --fingerprint prints the governance fields', () => {
    const { repo } = seeded([bead({ id: 'a' }), bead({ id: 'b', 'spec-id': 'S', parent: 'a', replaces: 'old', deps: ['a'], 'execution-eligible': false })]);
    expect(ok(repo, ['show', 'b', '--fingerprint'])).toBe(
      '{"spec-id":"S","parent":"a","superseded-by":"","replaces":"old","dependencies":["a"],"execution-eligible":false}\n',
    );
    expect(json(repo, ['show', 'b', '--fingerprint'])).toEqual({
      'spec-id': 'S', parent: 'a', 'superseded-by': '', replaces: 'old', dependencies: ['a'], 'execution-eligible': false,
    });
  });

  it.each([
    [['create', 'x', '--priority', '7'], 'bead: invalid priority "7": must be an integer 0-4'],
    [['create', 'x', '--type', 'story'], 'bead: invalid type "story": must be one of task, epic, bug, chore'],
    [['create', '  '], 'bead: title must not be blank'],
  ])('create %j is refused with exit 7 and writes nothing', (args, message) => {
    const repo = tempGitRepo();
    const r = tracker(repo, args);
    expect(r.status).toBe(EXIT.validation);
    expect(r.stderr).toBe(`${message}\n`);
    expect(existsSync(join(repo, '.ddx', 'beads.jsonl'))).toBe(false);
  });

  it('create with an unknown dependency is not found, exit 3', () => {
    const r = tracker(tempGitRepo(), ['create', 'x', '--deps', 'hx-deadbeef']);
    expect(r.status).toBe(EXIT.notFound);
    expect(r.stderr).toBe('bead: not found: hx-deadbeef\n');
  });
});

describe('id prefix', () => {
  const createIn = (repo: string, env: Env) => {
    const r = helix(['tracker', 'create', 'x'], { cwd: repo, env });
    expect(r.status).toBe(0);
    return r.stdout.trim();
  };

  it('DDX_BEAD_PREFIX, else bead.id_prefix in .ddx/config.yaml, else the repo folder name', () => {
    const repo = tempGitRepo('Prefix_Repo-');
    const folder = repo.split('/').pop()!.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
    expect(createIn(repo, {})).toMatch(new RegExp(`^${folder}-[0-9a-f]{8}$`));
    writeFileSync(join(repo, '.ddx', 'config.yaml'), 'bead:\n  id_prefix: cfg\n');
    expect(createIn(repo, {})).toMatch(/^cfg-[0-9a-f]{8}$/);
    expect(createIn(repo, { DDX_BEAD_PREFIX: 'envp' })).toMatch(/^envp-[0-9a-f]{8}$/);
  });

  it('outside git, bx', () => {
    expect(createIn(tempDir(), {})).toMatch(/^bx-[0-9a-f]{8}$/);
  });
});

describe('tracker dir override', () => {
  it.each(['HELIX_TRACKER_DIR', 'DDX_BEAD_DIR'])('%s moves the store', (name) => {
    const repo = tempGitRepo();
    const store = join(tempDir(), 'beads-here');
    const id = ok(repo, ['create', 'elsewhere'], { [name]: store }).trim();
    expect(parsedLines(readFileSync(join(store, 'beads.jsonl'), 'utf8')).map((b) => b.id)).toEqual([id]);
    expect(existsSync(join(repo, '.ddx'))).toBe(false);
    expect(ok(repo, ['list'], { [name]: store })).toContain(id);
  });
});

describe('round-trip of a file written by another tool', () => {
  it('an unrelated update keeps every other record equal as an object, key order included', () => {
    const foreign = [
      '{"id":"zz-3","title":"Ünïcødé ✓ — 日本語 \\u00e9","status":"open","priority":1,"created_at":"2025-01-01T00:00:00.123456789Z","updated_at":"2025-01-02T00:00:00.5+02:00","x-ddx":{"nested":[1,2,{"k":null}]},"labels":["a"]}',
      '{"status":"in_progress","id":"zz-1","title":"pid as number","priority":2,"claimed-pid":4242,"claimed-at":"2025-01-01T00:00:00.1Z","owner":"helix","issue_type":"bug","created_at":"2025-01-01T00:00:00Z","updated_at":"2025-01-01T00:00:00Z"}',
      '{"id":"zz-2","priority":0,"title":"pid as string","status":"in_progress","claimed-pid":"77","unknown_num":1.5e3,"created_at":"2025-01-01T00:00:00Z","updated_at":"2025-01-01T00:00:00Z","events":[]}',
      '{"id":"zz-0","title":"target","status":"open","priority":2,"issue_type":"task","created_at":"2025-01-01T00:00:00Z","updated_at":"2025-01-01T00:00:00Z","zzz":"last"}',
    ];
    const { repo } = seeded([]);
    writeFileSync(join(repo, '.ddx', 'beads.jsonl'), `${foreign.join('\n')}\n`);
    ok(repo, ['update', 'zz-0', '--claim', '--pid', '9']);
    const after = parsedLines(beadsText(repo));
    expect(after.map((b) => b.id)).toEqual(['zz-0', 'zz-1', 'zz-2', 'zz-3']);
    for (const line of foreign.slice(0, 3)) {
      const original = JSON.parse(line) as Record<string, unknown>;
      const now = after.find((b) => b.id === original.id)!;
      expect(now).toStrictEqual(original);
      expect(Object.keys(now)).toEqual(Object.keys(original));
    }
    const target = after[0]!;
    expect(Object.keys(target).slice(0, 8)).toEqual(['id', 'title', 'status', 'priority', 'issue_type', 'created_at', 'updated_at', 'zzz']);
    expect(target).toMatchObject({ status: 'in_progress', 'claimed-pid': '9', zzz: 'last' });
  });
});

describe('update, claim, unclaim, close, reopen', () => {
  it('update sets fields, --set and --unset', () => {
    const { repo } = seeded([bead({ id: 'a', 'superseded-by': 'z', design: 'old' })]);
    expect(ok(repo, ['update', 'a', '--title', 'T', '--notes', 'N', '--labels', 'p,q', '--assignee', 'me', '--set', 'design=new', '--unset', 'superseded-by'])).toBe(
      'Updated a\n',
    );
    const a = json<Record<string, unknown>>(repo, ['show', 'a']);
    expect(a).toMatchObject({ title: 'T', notes: 'N', labels: ['p', 'q'], owner: 'me', design: 'new' });
    expect(a).not.toHaveProperty('superseded-by');
  });

  it.each([
    [['update', 'a', '--priority', 'high'], EXIT.validation, 'bead: invalid priority "high": must be an integer 0-4'],
    [['update', 'a', '--status', 'done'], EXIT.validation, 'bead: invalid status "done": must be one of open, in_progress, closed, blocked, proposed, cancelled'],
    [['update', 'zz', '--notes', 'x'], EXIT.notFound, 'bead: not found: zz'],
    [['update', 'a', '--claim', '--pid', 'abc'], EXIT.validation, 'bead: --pid must be a whole number from 1 to 4194304, got "abc"'],
    [['update', 'a', '--claim', '--pid', '99999999999999999999'], EXIT.validation, 'bead: --pid must be a whole number from 1 to 4194304, got "99999999999999999999"'],
    [['update', 'a', '--claim', '--pid', '-1'], EXIT.validation, 'bead: --pid must be a whole number from 1 to 4194304, got "-1"'],
    [['close', 'zz'], EXIT.notFound, 'bead: not found: zz'],
    [['reopen', 'zz'], EXIT.notFound, 'bead: not found: zz'],
  ])('%j fails with exit %i and one clear line, file unchanged', (args, code, message) => {
    const { repo, text } = seeded([bead({ id: 'a' })]);
    const r = tracker(repo, args as string[]);
    expect(r.status).toBe(code);
    expect(r.stderr).toBe(`${message}\n`);
    expect(r.stdout).toBe('');
    expect(beadsText(repo)).toBe(text);
  });

  it('--claim sets in_progress, owner helix, claimed-at (Z), claimed-pid, claimed-machine and a token', () => {
    const { repo } = seeded([bead({ id: 'a' })]);
    const claimed = json<Record<string, unknown>>(repo, ['update', 'a', '--claim', '--pid', '4242']);
    expect(claimed).toMatchObject({ status: 'in_progress', owner: 'helix', 'claimed-pid': '4242' });
    expect(claimed['claimed-at']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(claimed['claimed-machine']).toBe(spawnSync('hostname', { encoding: 'utf8' }).stdout.trim());
    expect(claimed['claim-token']).toMatch(/^[0-9a-f]{24}$/);
  });

  it('--claim without --pid records the process that called helix (alive after helix exits) and honours --assignee', () => {
    const { repo } = seeded([bead({ id: 'a' })]);
    const claimed = json<Record<string, unknown>>(repo, ['update', 'a', '--claim', '--assignee', 'w1']);
    expect(claimed.owner).toBe('w1');
    expect(claimed['claimed-pid']).toBe(String(process.pid)); // this test process spawned helix
  });

  it('a second claim fails with the conflict code naming the holder, file unchanged', () => {
    const { repo } = seeded([bead({ id: 'a' })]);
    expect(ok(repo, ['update', 'a', '--claim', '--pid', '111'])).toBe('Claimed a\n');
    const before = beadsText(repo);
    const r = tracker(repo, ['update', 'a', '--claim', '--pid', '222']);
    expect(r.status).toBe(EXIT.conflict);
    expect(r.stderr).toBe('bead: cannot claim a from status in_progress (held by helix, pid 111)\n');
    expect(beadsText(repo)).toBe(before);
  });

  it('a closed bead cannot be claimed', () => {
    const { repo } = seeded([bead({ id: 'a', status: 'closed' })]);
    const r = tracker(repo, ['update', 'a', '--claim']);
    expect(r.status).toBe(EXIT.conflict);
    expect(r.stderr).toBe('bead: cannot claim a from status closed\n');
  });

  it('--unclaim reopens an in_progress bead but never a closed one', () => {
    const { repo } = seeded([
      bead({ id: 'a', status: 'in_progress', owner: 'helix', 'claimed-pid': '5', 'claim-token': 't' }),
      bead({ id: 'c', status: 'closed', owner: 'helix', 'claimed-pid': '5' }),
    ]);
    expect(ok(repo, ['update', 'a', '--unclaim'])).toBe('Released a\n');
    ok(repo, ['update', 'c', '--unclaim']);
    const [a, c] = parsedLines(beadsText(repo));
    expect(a).toMatchObject({ status: 'open' });
    expect(a).not.toHaveProperty('owner');
    expect(a).not.toHaveProperty('claim-token');
    expect(c).toMatchObject({ status: 'closed' });
    expect(c).not.toHaveProperty('claimed-pid');
  });

  it('close refuses while a blocks dependency is open (exit 9), --force closes', () => {
    const { repo, text } = seeded([bead({ id: 'a' }), bead({ id: 'b', deps: ['a'] })]);
    const r = tracker(repo, ['close', 'b']);
    expect(r.status).toBe(EXIT.openDependencies);
    expect(r.stderr).toBe('bead: cannot close b: blocked by open dependencies: a (use --force to override)\n');
    expect(beadsText(repo)).toBe(text);
    expect(ok(repo, ['close', 'b', '--force'])).toBe('Closed b\n');
    expect(json<Record<string, unknown>>(repo, ['show', 'b']).status).toBe('closed');
  });

  it('update --status closed (or --set status=closed) meets the same guard: exit 9, --force closes', () => {
    const { repo, text } = seeded([bead({ id: 'a' }), bead({ id: 'b', status: 'in_progress', deps: ['a'] })]);
    for (const args of [['--status', 'closed'], ['--set', 'status=closed']]) {
      const r = tracker(repo, ['update', 'b', ...args]);
      expect(r.status).toBe(EXIT.openDependencies);
      expect(r.stderr).toBe('bead: cannot close b: blocked by open dependencies: a (use --force to override)\n');
      expect(beadsText(repo)).toBe(text);
    }
    expect(ok(repo, ['update', 'b', '--status', 'closed', '--force'])).toBe('Updated b\n');
    expect(json<Record<string, unknown>>(repo, ['show', 'b']).status).toBe('closed');
  });

  it('close records --session and --commit; reopen --reason notes why', () => {
    const { repo } = seeded([bead({ id: 'a' })]);
    const closed = json<Record<string, unknown>>(repo, ['close', 'a', '--session', 'S1', '--commit', 'abc']);
    expect(closed).toMatchObject({ status: 'closed', session_id: 'S1', closing_commit_sha: 'abc' });
    expect(ok(repo, ['reopen', 'a', '--reason', 'tests failed'])).toBe('Reopened a\n');
    const reopened = json<Record<string, unknown>>(repo, ['show', 'a']);
    expect(reopened.status).toBe('open');
    expect(reopened.notes).toMatch(/^REOPENED \[.+Z\]: tests failed$/);
  });
});

describe('fencing', () => {
  const claimedFile = () => seeded([bead({ id: 'a', status: 'in_progress', owner: 'helix', 'claimed-pid': '5', 'claim-token': 'current' })]);

  it.each([
    [['close', 'a', '--token', 'stale']],
    [['update', 'a', '--notes', 'x', '--token', 'stale']],
    [['update', 'a', '--unclaim', '--token', 'stale']],
    [['update', 'a', '--status', 'open', '--token', 'stale']],
  ])('%j with a stale token is refused (exit 8) and the file bytes are unchanged', (args) => {
    const { repo, text } = claimedFile();
    const r = tracker(repo, args);
    expect(r.status).toBe(EXIT.staleToken);
    expect(r.stderr).toBe('bead: stale claim token for a: the claim is no longer yours\n');
    expect(beadsText(repo)).toBe(text);
  });

  it('the current token is accepted', () => {
    const { repo } = claimedFile();
    expect(ok(repo, ['close', 'a', '--token', 'current'])).toBe('Closed a\n');
  });

  it('a recovered and re-issued claim fences out the first worker', () => {
    const { repo } = seeded([bead({ id: 'a' })]);
    const first = json<Record<string, string>>(repo, ['update', 'a', '--claim', '--pid', '100'])['claim-token']!;
    ok(repo, ['update', 'a', '--unclaim']);
    const second = json<Record<string, string>>(repo, ['update', 'a', '--claim', '--pid', '200'])['claim-token']!;
    expect(second).not.toBe(first);
    const before = beadsText(repo);
    expect(tracker(repo, ['close', 'a', '--token', first]).status).toBe(EXIT.staleToken);
    expect(beadsText(repo)).toBe(before);
    expect(tracker(repo, ['close', 'a', '--token', second]).status).toBe(0);
  });
});

describe('list, ready, blocked, status', () => {
  const files = () =>
    seeded([
      bead({ id: 'c', priority: 1, labels: ['area:x'], 'spec-id': 'S-1', created_at: '2025-01-01T00:00:00.2Z' }),
      bead({ id: 'b', priority: 1, created_at: '2025-01-01T00:00:00.1Z' }),
      bead({ id: 'a', priority: 3 }),
      bead({ id: 'd', deps: ['a'] }),
      bead({ id: 'e', status: 'in_progress' }),
      bead({ id: 'f', status: 'closed', labels: ['area:x'] }),
      bead({ id: 'g', 'execution-eligible': false }),
      bead({ id: 'h', 'superseded-by': 'c' }),
      bead({ id: 'i', 'execute-loop-retry-after': '2999-01-01T00:00:00Z' }),
      bead({ id: 'j', deps: ['ghost'] }),
    ]);
  const idsOf = (beads: Array<{ id: string }>) => beads.map((b) => b.id);

  it('ready lists open beads with closed dependencies, ordered by priority, created_at, id', () => {
    const { repo } = files();
    expect(idsOf(json(repo, ['ready']))).toEqual(['b', 'c', 'g', 'h', 'i', 'a']);
    expect(ok(repo, ['ready']).split('\n')[0]).toBe('b  [P1] [open] [task] bead b');
  });

  it('ready --execution drops ineligible, superseded and retry-parked beads', () => {
    const { repo } = files();
    expect(idsOf(json(repo, ['ready', '--execution']))).toEqual(['b', 'c', 'a']);
  });

  it('blocked lists open beads with an unclosed or unknown dependency, then retry-parked ones, as DDx v0.6.1 does', () => {
    const { repo } = files();
    expect(idsOf(json(repo, ['blocked']))).toEqual(['d', 'i', 'j']);
  });

  it('list filters by --status, --label and --where, sorted by id', () => {
    const { repo } = files();
    expect(idsOf(json(repo, ['list']))).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j']);
    expect(idsOf(json(repo, ['list', '--status', 'closed']))).toEqual(['f']);
    expect(idsOf(json(repo, ['list', '--label', 'area:x']))).toEqual(['c', 'f']);
    expect(idsOf(json(repo, ['list', '--where', 'spec-id=S-1']))).toEqual(['c']);
    expect(idsOf(json(repo, ['list', '--where', 'priority=1', '--where', 'spec-id=S-1']))).toEqual(['c']);
    expect(idsOf(json(repo, ['list', '--where', 'execution-eligible=false']))).toEqual(['g']);
  });

  it('status prints the exact text and JSON keys', () => {
    const { repo } = files();
    expect(ok(repo, ['status'])).toBe('Total:   10\nOpen:    8\nClosed:  1\nReady:   6\nBlocked: 2\n');
    const counts = json<Record<string, number>>(repo, ['status']);
    expect(Object.keys(counts)).toEqual(['total', 'open', 'in_progress', 'closed', 'ready', 'blocked']);
    expect(counts).toEqual({ total: 10, open: 8, in_progress: 1, closed: 1, ready: 6, blocked: 2 });
  });

  it('empty lists print [] in JSON and nothing as text', () => {
    const repo = tempGitRepo();
    for (const cmd of [['list'], ['ready'], ['ready', '--execution'], ['blocked'], ['list', '--status', 'open']]) {
      expect(ok(repo, [...cmd, '--json'])).toBe('[]\n');
      expect(ok(repo, cmd)).toBe('');
    }
  });
});

describe('dep add, remove, tree', () => {
  it('add, tree and remove', () => {
    const { repo } = seeded([bead({ id: 'a', title: 'A' }), bead({ id: 'b', title: 'B' })]);
    expect(ok(repo, ['dep', 'add', 'b', 'a'])).toBe('Added dependency b -> a\n');
    expect(ok(repo, ['dep', 'tree', 'b'])).toBe('b [open] B\n  └─ a [open] A\n');
    expect(JSON.parse(ok(repo, ['dep', 'tree', 'b', '--json']))).toEqual([
      { id: 'b', depth: 0, status: 'open', title: 'B' },
      { id: 'a', depth: 1, status: 'open', title: 'A' },
    ]);
    expect((JSON.parse(ok(repo, ['blocked', '--json'])) as Array<{ id: string }>).map((x) => x.id)).toContain('b');
    expect(ok(repo, ['dep', 'remove', 'b', 'a'])).toBe('Removed dependency b -> a\n');
    expect(ok(repo, ['blocked', '--json'])).toBe('[]\n');
  });

  it.each([
    [['dep', 'add', 'a', 'a'], EXIT.validation, 'bead: a cannot depend on itself'],
    [['dep', 'add', 'a', 'b'], EXIT.validation, 'bead: dependency cycle: a -> b -> a'],
    [['dep', 'add', 'a', 'ghost'], EXIT.notFound, 'bead: not found: ghost'],
    [['dep', 'remove', 'a', 'b'], EXIT.notFound, 'bead: a has no dependency on b'],
    [['dep', 'tree', 'ghost'], EXIT.notFound, 'bead: not found: ghost'],
  ])('%j is refused (exit %i), file unchanged', (args, code, message) => {
    const { repo, text } = seeded([bead({ id: 'a' }), bead({ id: 'b', deps: ['a'] })]);
    const r = tracker(repo, args as string[]);
    expect(r.status).toBe(code);
    expect(r.stderr).toBe(`${message}\n`);
    expect(beadsText(repo)).toBe(text);
  });
});

describe('damaged files', () => {
  const good = [bead({ id: 'a' }), bead({ id: 'b', deps: ['a'] })];

  it('a malformed line: reads warn with the line number and go on; writes refuse with exit 6, file unchanged', () => {
    const text = `${JSON.stringify(good[0])}\n{"id":"x", oops\n${JSON.stringify(good[1])}\n`;
    const { repo } = seeded([]);
    writeFileSync(join(repo, '.ddx', 'beads.jsonl'), text);
    const read = tracker(repo, ['ready', '--json']);
    expect(read.status).toBe(0);
    expect(JSON.parse(read.stdout).map((b: { id: string }) => b.id)).toEqual(['a']);
    expect(read.stderr).toBe(`helix: warning: ${join(repo, '.ddx', 'beads.jsonl')}: malformed line(s) 2; run 'helix tracker doctor --fix'\n`);
    for (const args of [['create', 'new'], ['update', 'a', '--claim'], ['close', 'a'], ['dep', 'add', 'a', 'b']]) {
      const write = tracker(repo, args);
      expect(write.status).toBe(EXIT.malformedStore);
      expect(write.stderr).toContain('bead: refusing to write:');
      expect(write.stderr).toContain('malformed line(s) 2');
      expect(beadsText(repo)).toBe(text);
    }
  });

  it('conflict markers: reads warn naming the lines; writes refuse with exit 6, file unchanged', () => {
    const text = `<<<<<<< HEAD\n${JSON.stringify(good[0])}\n=======\n${JSON.stringify({ ...good[0], title: 'theirs' })}\n>>>>>>> other\n`;
    const { repo } = seeded([]);
    writeFileSync(join(repo, '.ddx', 'beads.jsonl'), text);
    const read = tracker(repo, ['list']);
    expect(read.status).toBe(0);
    expect(read.stderr).toContain('conflict marker line(s) 1, 3, 5');
    expect(read.stderr).toContain('duplicate id line(s) 2');
    const write = tracker(repo, ['update', 'a', '--notes', 'x']);
    expect(write.status).toBe(EXIT.malformedStore);
    expect(beadsText(repo)).toBe(text);
  });

  it('a dependencies value that is not a list: reads and doctor work (no stack trace)', () => {
    const { repo } = seeded([bead({ id: 'a', dependencies: { odd: true } as never }), bead({ id: 'b' })]);
    for (const args of [['ready'], ['blocked'], ['status'], ['dep', 'tree'], ['show', 'a', '--fingerprint']]) {
      const r = tracker(repo, args);
      expect(r.stderr, args.join(' ')).toBe('');
      expect(r.status, args.join(' ')).toBe(0);
    }
    // doctor names it as damage DDx would do (it drops the value on its next rewrite)
    const doctor = tracker(repo, ['doctor']);
    expect(doctor.status).toBe(EXIT.error);
    expect(doctor.stdout).toContain('DDx would damage a: dependencies is an object, not a list of dependency objects (DDx would drop it)');
    expect(ok(repo, ['blocked'])).toBe('a  [P2] [open] [task] bead a\n');
  });

  it('duplicate ids: a read uses the last copy', () => {
    const { repo } = seeded([{ ...good[0]!, title: 'first' }, good[1]!, { ...good[0]!, title: 'last' }]);
    const r = tracker(repo, ['show', 'a', '--json']);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).title).toBe('last');
    expect(r.stderr).toContain('duplicate id line(s) 1');
  });

  it('doctor reports each problem kind with exit 6, then --fix backs up, quarantines, folds and writes work again', () => {
    const firstA = JSON.stringify({ ...good[0], title: 'first' });
    const text = [
      firstA,
      '<<<<<<< HEAD',
      'not json',
      JSON.stringify({ ...good[0], title: 'last' }),
      JSON.stringify(bead({ id: 'c', deps: ['ghost'] })),
      JSON.stringify(bead({ id: 'd', deps: ['e'] })),
      JSON.stringify(bead({ id: 'e', deps: ['d'] })),
      '>>>>>>> theirs',
    ].join('\n') + '\n';
    const { repo } = seeded([]);
    const file = join(repo, '.ddx', 'beads.jsonl');
    writeFileSync(file, text);

    const report = tracker(repo, ['doctor']);
    expect(report.status).toBe(EXIT.malformedStore);
    expect(report.stdout).toContain('line 1: duplicate: duplicate id a (also on line 4)');
    expect(report.stdout).toContain('line 2: conflict-marker');
    expect(report.stdout).toContain('line 3: malformed');
    expect(report.stdout).toContain('line 8: conflict-marker');
    expect(report.stdout).toContain('dangling dependency: c -> ghost');
    expect(report.stdout).toContain('dependency cycle: d -> e -> d');
    expect(beadsText(repo)).toBe(text);
    const asJson = JSON.parse(tracker(repo, ['doctor', '--json']).stdout);
    expect(Object.keys(asJson)).toEqual(['healthy', 'total', 'problems', 'dangling', 'cycles', 'stale_claims', 'ddx_damage', 'future_claims', 'bom_lines', 'link']);
    expect(asJson.stale_claims).toEqual([]);

    const fix = tracker(repo, ['doctor', '--fix']);
    expect(fix.stderr).toMatch(/helix: backed up .*beads\.jsonl to .*beads\.jsonl\.bak-\d{8}T\d{6}Z\n/);
    expect(fix.stderr).toContain('helix: moved 4 line(s) to beads.quarantine.jsonl');
    // the store problems are gone; the graph problems are still reported (exit 1, not 6)
    expect(fix.status).toBe(EXIT.error);
    const backups = readdirSync(join(repo, '.ddx')).filter((f) => f.startsWith('beads.jsonl.bak-'));
    expect(backups).toHaveLength(1);
    expect(readFileSync(join(repo, '.ddx', backups[0]!), 'utf8')).toBe(text);
    expect(readFileSync(join(repo, '.ddx', 'beads.quarantine.jsonl'), 'utf8')).toBe(`${firstA}\n<<<<<<< HEAD\nnot json\n>>>>>>> theirs\n`);
    expect(parsedLines(beadsText(repo)).map((b) => [b.id, b.title])).toEqual([
      ['a', 'last'],
      ['c', 'bead c'],
      ['d', 'bead d'],
      ['e', 'bead e'],
    ]);
    expect(ok(repo, ['update', 'a', '--notes', 'writable again'])).toBe('Updated a\n');
  });

  it('doctor reports a stale claim and --fix releases it', () => {
    const deadPid = spawnSync(process.execPath, ['-e', '']).pid!;
    const { repo } = seeded([
      bead({ id: 'a', status: 'in_progress', owner: 'helix', 'claimed-pid': deadPid, 'claimed-at': '2020-01-01T00:00:00Z' }),
    ]);
    const report = tracker(repo, ['doctor']);
    expect(report.status).toBe(EXIT.error);
    expect(report.stdout).toMatch(new RegExp(`stale claim: a \\(age=\\d+s, pid=${deadPid} dead\\)`));
    const fix = tracker(repo, ['doctor', '--fix']);
    expect(fix.stderr).toContain('helix: released stale claim a');
    expect(fix.status).toBe(0);
    expect(json<Record<string, unknown>>(repo, ['show', 'a']).status).toBe('open');
  });
});

describe('import and export', () => {
  it('imports the older .helix/issues.jsonl format, normalising it', () => {
    const repo = tempGitRepo();
    mkdirSync(join(repo, '.helix'));
    writeFileSync(
      join(repo, '.helix', 'issues.jsonl'),
      [
        { id: 'old-1', title: 'first', status: 'open', type: 'epic', created: '2024-01-01T00:00:00Z', updated: '2024-01-02T00:00:00Z' },
        { id: 'old-2', title: 'second', status: 'in-progress', deps: ['old-1'], assignee: 'helix', priority: 1, created: '2024-01-03T00:00:00Z' },
      ].map((r) => JSON.stringify(r)).join('\n') + '\n',
    );
    expect(ok(repo, ['import'])).toBe('Imported 2 bead(s)\n');
    const [one, two] = parsedLines(beadsText(repo));
    expect(one).toEqual({ id: 'old-1', title: 'first', status: 'open', priority: 2, issue_type: 'epic', created_at: '2024-01-01T00:00:00Z', updated_at: '2024-01-02T00:00:00Z' });
    expect(two).toMatchObject({ id: 'old-2', status: 'in_progress', priority: 1, issue_type: 'task', owner: 'helix', updated_at: '2024-01-03T00:00:00Z' });
    expect(two!.dependencies).toEqual([{ issue_id: 'old-2', depends_on_id: 'old-1', type: 'blocks', created_at: '2024-01-03T00:00:00Z' }]);
    expect(two).not.toHaveProperty('deps');
    expect(two).not.toHaveProperty('assignee');
    expect(ok(repo, ['import'])).toBe('Imported 0 bead(s), skipped 2 existing\n');
  });

  it('export --stdout, then import into an empty tracker, round-trips every record', () => {
    const foreign = [
      { id: 'r-2', title: 'ünïcødé ✓', status: 'open', priority: 1, issue_type: 'task', created_at: '2025-01-01T00:00:00.5Z', updated_at: '2025-01-01T00:00:00.5Z', 'x-other': { a: [1, null] } },
      { status: 'in_progress', id: 'r-1', title: 'claimed', priority: 0, 'claimed-pid': 7, created_at: '2025-01-01T00:00:00Z', updated_at: '2025-01-01T00:00:00Z', issue_type: 'bug' },
    ];
    const { repo } = seeded(foreign);
    const exported = ok(repo, ['export', '--stdout']);
    expect(parsedLines(exported).map((b) => b.id)).toEqual(['r-1', 'r-2']);
    const source = join(tempDir(), 'exported.jsonl');
    writeFileSync(source, exported);
    const target = tempGitRepo();
    expect(ok(target, ['import', source])).toBe('Imported 2 bead(s)\n');
    const imported = parsedLines(beadsText(target));
    expect(imported).toEqual(parsedLines(exported));
    imported.forEach((b, i) => expect(Object.keys(b)).toEqual(Object.keys(parsedLines(exported)[i]!)));
  });

  it('export <file> writes the file', () => {
    const { repo, text } = seeded([bead({ id: 'a' })]);
    const out = join(tempDir(), 'out.jsonl');
    expect(ok(repo, ['export', out])).toBe('');
    expect(readFileSync(out, 'utf8')).toBe(text);
  });
});

describe('runtime files stay out of git status', () => {
  it('after writes, git status shows only the bead file', () => {
    const repo = tempGitRepo();
    const a = create(repo, 'a');
    ok(repo, ['update', a, '--claim']);
    ok(repo, ['close', a]);
    writeFileSync(join(repo, '.ddx', 'helix.pid'), '1 2025-01-01T00:00:00Z\n');
    writeFileSync(join(repo, '.ddx', 'run-state.json'), '{}\n');
    mkdirSync(join(repo, '.ddx', 'beads.lock'));
    writeFileSync(join(repo, '.ddx', 'beads.lock', 'pid'), '1\n');
    const status = spawnSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: repo, encoding: 'utf8' }).stdout;
    expect(status).toBe('?? .ddx/beads.jsonl\n');
  });
});
