// `helix tracker <sub>`: the built-in bead tracker, `ddx bead`-compatible (docs/contract/cli.md §5).
// Thin wiring: parse flags, call src/tracker, print. The library is imported lazily.
import { Command } from 'commander';
import { EXIT, HelixError } from '../../errors.js';
import { parseNumber } from '../../numbers.js';
import { type CommandContext, type HelixCommand, NO_AGENT_FLAGS, printJson, withCommonFlags } from '../program.js';
import { blockedText, formatBeads, readyText } from '../tracker-read.js';

type Bead = import('../../tracker/index.js').Bead;

const loadTracker = () => import('../../tracker/index.js');

/**
 * What the read commands use. Loading just these modules instead of the whole library saves ~9 ms
 * of CPU on every cold `ready`/`status`/`show` (measured), which the supervisor runs often.
 */
const loadReadModules = async () => ({
  ...(await import('../../tracker/bead.js')),
  ...(await import('../../tracker/ready.js')),
  ...(await import('../../tracker/fingerprint.js')),
  ...(await import('../../tracker/deps.js')),
});

/** Opens the store for the context's project and warns (once) about damaged lines. */
async function open<T>(ctx: CommandContext, load: () => Promise<T>) {
  const [{ BeadStore, problemsWarning }, { trackerDir }, tracker] = await Promise.all([
    import('../../tracker/bead-store.js'),
    import('../../tracker/tracker-dir.js'),
    load(),
  ]);
  const dir = trackerDir(ctx.cwd, ctx.env);
  // DDx may keep the beads elsewhere (axon, bd, br): then this file is not the tracker (exit 14)
  (await import('../../tracker/backend.js')).assertJsonlBackend(dir, ctx.env);
  const store = new BeadStore(dir, ctx.env);
  const read = () => {
    const snapshot = store.read();
    if (snapshot.problems.length > 0) {
      ctx.io.stderr(`${problemsWarning(store.file, snapshot.problems)}\n`);
    }
    return snapshot;
  };
  return { tracker, dir, store, read };
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

function showText(bead: Bead): string {
  const order = ['id', 'title', 'status', 'priority', 'issue_type', 'owner', 'parent', 'labels', 'spec-id', 'created_at', 'updated_at'];
  const lines: string[] = [];
  const label = (key: string) => `${key}:`.padEnd(18);
  for (const key of order) {
    const value = bead[key];
    if (value === undefined || (Array.isArray(value) && value.length === 0)) continue;
    lines.push(`${label(key)}${Array.isArray(value) ? value.join(', ') : String(value)}`);
  }
  for (const [key, value] of Object.entries(bead)) {
    if (order.includes(key) || value === undefined) continue;
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    lines.push(text.includes('\n') ? `${key}:\n${text.replace(/^/gm, '  ')}` : `${label(key)}${text}`);
  }
  return `${lines.join('\n')}\n`;
}

/** The flags of `tracker create`, shared with `helix triage`. */
export function withCreateFlags<C extends Command>(command: C, options: { titleOptional?: boolean } = {}): C {
  return command
    .argument(options.titleOptional ? '[title]' : '<title>', 'bead title')
    .option('-t, --type <type>', 'task, epic, bug or chore', 'task')
    .option('-p, --priority <n>', 'priority 0 (highest) to 4', '2')
    .option('-l, --labels <labels>', 'comma-separated labels')
    .option('--parent <id>', 'parent bead id')
    .option('-d, --description <text>', 'description')
    .option('--acceptance <text>', 'acceptance criteria')
    .option('--deps <ids>', 'comma-separated ids this bead depends on (repeatable)', collect)
    .option('--depends-on <ids>', 'alias of --deps, as `ddx bead create --depends-on` (repeatable)', collect)
    .option('--spec-id <id>', 'governing spec id')
    .option('--set <k=v>', 'set any other field (repeatable)', collect) as C;
}

/** Creates a bead from `withCreateFlags` options in the current project's tracker. */
export async function createFromFlags(ctx: CommandContext, title: string, opts: Record<string, string | string[] | undefined>): Promise<Bead> {
  const { store, dir, tracker: t } = await open(ctx, loadTracker);
  const text = (key: string) => (typeof opts[key] === 'string' ? (opts[key] as string) : undefined);
  const prefix = t.idPrefix(dir); // a bad prefix is refused before the folder or the lock is touched
  return store.mutate((draft) =>
    t.createBead(draft, {
      title,
      type: text('type'),
      priority: text('priority'),
      labels: t.splitList(text('labels')),
      parent: text('parent'),
      description: text('description'),
      acceptance: text('acceptance'),
      deps: listFlag(opts.deps).concat(listFlag(opts.dependsOn)).flatMap((v) => t.splitList(v)),
      specId: text('specId'),
      set: Array.isArray(opts.set) ? opts.set : undefined,
    }, prefix),
  );
}

/** A repeatable flag's values (one string when given once by older callers). */
function listFlag(value: string | string[] | undefined): string[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

function sub(parent: Command, name: string, description: string): Command {
  return withCommonFlags(parent.command(name).description(description), NO_AGENT_FLAGS);
}

export function register(program: HelixCommand, ctx: CommandContext): void {
  const tracker = withCommonFlags(program.command('tracker').description('Manage beads (the built-in tracker, ddx bead-compatible)'), NO_AGENT_FLAGS);
  registerBeadCommands(tracker, ctx);
  registerQueries(tracker, ctx);
  registerDependencies(tracker, ctx);
  registerHealthAndTransfer(tracker, ctx);
}

/** init, create, show, update, close, reopen, unpark (in the order `tracker --help` lists them). */
function registerBeadCommands(tracker: Command, ctx: CommandContext): void {
  sub(tracker, 'init', 'Initialise the bead tracker (.ddx/beads.jsonl)').action(async () => {
    const { dir, store, tracker: t } = await open(ctx, () => import('../../tracker/init.js'));
    t.initTracker(dir, store.file);
    ctx.io.stdout(`Initialized bead tracker in ${dir}\n`);
  });

  withCreateFlags(sub(tracker, 'create', 'Create a new bead'))
    .option('--json', 'print the created bead as JSON')
    .action(async (title: string, opts) => {
      const bead = await createFromFlags(ctx, title, opts);
      if (opts.json) printJson(ctx.io, bead);
      else ctx.io.stdout(`${bead.id}\n`);
    });

  sub(tracker, 'show', 'Show one bead')
    .argument('<id>')
    .option('--json', 'print the bead as one JSON object')
    .option('--fingerprint', 'print the queue-drift fingerprint (spec-id, parent, superseded-by, replaces, dependencies, eligibility)')
    .action(async (id: string, opts) => {
      const { read, tracker: t } = await open(ctx, loadReadModules);
      const bead = read().byId.get(id);
      if (!bead) throw new HelixError('notFound', `bead: not found: ${id}`);
      if (opts.fingerprint) {
        const fp = t.fingerprintOf(bead);
        ctx.io.stdout(opts.json ? `${JSON.stringify(fp, null, 2)}\n` : `${t.fingerprintKey(fp)}\n`);
      } else if (opts.json) printJson(ctx.io, bead);
      else ctx.io.stdout(showText(bead));
    });

  registerUpdate(tracker, ctx);

  sub(tracker, 'close', 'Close a bead (refuses while a dependency is open)')
    .argument('<id>')
    .option('--session <id>', 'session id that closed it')
    .option('--commit <sha>', 'closing commit sha')
    .option('--token <token>', 'refuse unless the bead carries this claim token')
    .option('--force', 'close even with open dependencies')
    .option('--json', 'print the closed bead as JSON')
    .action(async (id: string, opts) => {
      const { store, tracker: t } = await open(ctx, loadTracker);
      const bead = store.mutate((draft) => t.closeBead(draft, id, { force: opts.force, session: opts.session, commit: opts.commit, token: opts.token }));
      if (opts.json) printJson(ctx.io, bead);
      else ctx.io.stdout(`Closed ${id}\n`);
    });

  sub(tracker, 'reopen', 'Reopen a closed bead')
    .argument('<id>')
    .option('--reason <text>', 'why it is reopened (added to notes)')
    .option('--append-notes <text>', 'text to append to the notes, as `ddx bead reopen --append-notes`')
    .option('--json', 'print the bead as JSON')
    .action(async (id: string, opts) => {
      const { store, tracker: t } = await open(ctx, loadTracker);
      const bead = store.mutate((draft) => t.reopenBead(draft, id, { reason: opts.reason, appendNotes: opts.appendNotes }));
      if (opts.json) printJson(ctx.io, bead);
      else ctx.io.stdout(`Reopened ${id}\n`);
    });

  sub(tracker, 'unpark', 'Clear a bead\'s retry cool-down (work-retry-after), so the next run may attempt it at once')
    .argument('<id>')
    .option('--json', 'print the bead as JSON')
    .action(async (id: string, opts) => {
      const { store, tracker: t } = await open(ctx, loadTracker);
      const { bead, cleared } = store.mutate((draft) => t.unparkBead(draft, id));
      if (opts.json) printJson(ctx.io, bead);
      else ctx.io.stdout(cleared.length > 0 ? `Unparked ${id} (cleared ${cleared.join(', ')})\n` : `${id} was not parked\n`);
    });
}

/** `tracker update`: a bead's fields, or its claim. */
function registerUpdate(tracker: Command, ctx: CommandContext): void {
  sub(tracker, 'update', 'Update fields of a bead, or claim / release it')
    .argument('<id>')
    .option('--title <text>')
    .option('--status <status>', 'open, in_progress, closed, blocked, proposed or cancelled (DDx lifecycle transitions)')
    .option('--external-blocker-reason <text>', 'why the bead is blocked (required with --status blocked)')
    .option('-p, --priority <n>')
    .option('--type <type>')
    .option('--labels <labels>', 'comma-separated labels (replaces the list)')
    .option('--assignee <name>')
    .option('--parent <id>')
    .option('--description <text>')
    .option('--notes <text>')
    .option('--acceptance <text>')
    .option('--set <k=v>', 'set a field (repeatable)', collect)
    .option('--unset <k>', 'remove a field (repeatable)', collect)
    .option('--claim', 'claim the bead (only from open): in_progress, owner, claimed-at, claimed-pid, claim-token')
    .option('--pid <pid>', 'pid recorded by --claim (default: the process that runs helix)')
    .option('--unclaim', 'release the claim; never reopens a closed bead')
    .option('--token <token>', 'refuse unless the bead carries this claim token')
    .option('--force', 'with --status closed: close even with open dependencies (as close --force)')
    .option('--json', 'print the updated bead as JSON')
    .action(async (id: string, opts) => {
      const { store, tracker: t } = await open(ctx, loadTracker);
      const pid = opts.pid === undefined ? undefined : parseNumber('--pid', String(opts.pid), { min: 1, max: t.MAX_PID }, 'bead:');
      const request = {
        title: opts.title,
        status: opts.status,
        priority: opts.priority,
        type: opts.type,
        labels: opts.labels === undefined ? undefined : t.splitList(opts.labels),
        assignee: opts.assignee,
        parent: opts.parent,
        description: opts.description,
        notes: opts.notes,
        acceptance: opts.acceptance,
        set: opts.set,
        unset: opts.unset,
        externalBlockerReason: opts.externalBlockerReason,
        token: opts.token,
        force: opts.force,
        claim: opts.claim,
        unclaim: opts.unclaim,
      };
      // Without --pid the claimant is the process that called helix: this CLI process exits at
      // once, so recording its own pid would make every such claim look abandoned.
      const bead = store.mutate((draft) => t.editBead(draft, id, request, { claimant: pid ?? process.ppid, leaseDir: store.leaseDir }));
      if (opts.json) printJson(ctx.io, bead);
      else ctx.io.stdout(`${opts.claim ? 'Claimed' : opts.unclaim ? 'Released' : 'Updated'} ${id}\n`);
    });
}

/** list, ready, blocked. */
function registerQueries(tracker: Command, ctx: CommandContext): void {
  sub(tracker, 'list', 'List beads')
    .option('--status <status>', 'only this status')
    .option('--label <label>', 'only beads with this label')
    .option('--where <k=v>', 'only beads whose field equals the value (repeatable)', collect)
    .option('--json', 'JSON array')
    .action(async (opts) => {
      const { read, tracker: t } = await open(ctx, () => import('../../tracker/list.js'));
      ctx.io.stdout(formatBeads(t.listBeads(read().beads, { status: opts.status, label: opts.label, where: opts.where }), opts.json));
    });

  sub(tracker, 'ready', 'List open beads whose dependencies are all closed')
    .option('--execution', 'only beads the supervisor may build (eligible, not superseded, not retry-parked)')
    .option('--json', 'JSON array')
    .action(async (opts) => {
      const ready = await readyText(opts, { cwd: ctx.cwd, env: ctx.env, warn: (text) => ctx.io.stderr(text) });
      ctx.io.stdout(typeof ready === 'string' ? ready : ready.toString('utf8'));
    });

  sub(tracker, 'blocked', 'List open beads waiting on an unclosed dependency')
    .option('--json', 'JSON array')
    .action(async (opts) => {
      ctx.io.stdout(await blockedText(opts, { cwd: ctx.cwd, env: ctx.env, warn: (text) => ctx.io.stderr(text) }));
    });

}

/** dep add, dep remove, dep tree. */
function registerDependencies(tracker: Command, ctx: CommandContext): void {
  const dep = sub(tracker, 'dep', 'Manage dependencies between beads');
  sub(dep, 'add', 'Make <id> depend on <dep> (rejects cycles and self-dependencies)')
    .argument('<id>')
    .argument('<dep>')
    .action(async (id: string, depId: string) => {
      const { store, tracker: t } = await open(ctx, loadTracker);
      store.mutate((draft) => t.addDependency(draft, id, depId));
      ctx.io.stdout(`Added dependency ${id} -> ${depId}\n`);
    });
  sub(dep, 'remove', 'Remove the dependency of <id> on <dep>')
    .argument('<id>')
    .argument('<dep>')
    .action(async (id: string, depId: string) => {
      const { store, tracker: t } = await open(ctx, loadTracker);
      store.mutate((draft) => t.removeDependency(draft, id, depId));
      ctx.io.stdout(`Removed dependency ${id} -> ${depId}\n`);
    });
  sub(dep, 'tree', 'Show the dependency tree of a bead (or of every bead with dependencies)')
    .argument('[id]')
    .option('--json', 'JSON list of rows in tree order: {id, depth, status, title, repeat?}')
    .action(async (id: string | undefined, opts: { json?: boolean }) => {
      const { read, tracker: t } = await open(ctx, loadReadModules);
      const snapshot = read();
      if (id && !snapshot.byId.has(id)) throw new HelixError('notFound', `bead: not found: ${id}`);
      if (opts.json) return printJson(ctx.io, t.dependencyRows(snapshot.beads, id));
      const tree = t.dependencyTree(snapshot.beads, id);
      if (tree) ctx.io.stdout(`${tree}\n`);
    });
}

/** status, doctor, import, export. */
function registerHealthAndTransfer(tracker: Command, ctx: CommandContext): void {
  sub(tracker, 'status', 'Counts of beads by state')
    .option('--json', 'JSON object')
    .action(async (opts) => {
      const { read, tracker: t } = await open(ctx, loadReadModules);
      const counts = t.statusCounts(read().beads);
      if (opts.json) printJson(ctx.io, counts);
      else {
        ctx.io.stdout(
          `Total:   ${counts.total}\nOpen:    ${counts.open}\nClosed:  ${counts.closed}\nReady:   ${counts.ready}\nBlocked: ${counts.blocked}\n`,
        );
      }
    });
  sub(tracker, 'doctor', 'Check integrity: malformed lines, duplicate ids, conflict markers, dangling deps, cycles, stale claims')
    .option('--fix', 'back the file up, quarantine bad lines, fold duplicates, release stale claims')
    .option('--json', 'JSON report')
    .action(async (opts) => {
      const { store, tracker: t } = await open(ctx, loadTracker);
      const facts = { now: new Date(), thresholdSec: t.orphanThresholdSec(ctx.env) };
      if (opts.fix) {
        const fixed = t.fixStore(store, facts);
        if (fixed.backup) ctx.io.stderr(`helix: backed up ${store.file} to ${fixed.backup}\n`);
        if (fixed.quarantined) ctx.io.stderr(`helix: moved ${fixed.quarantined} line(s) to ${t.QUARANTINE_FILE}\n`);
        for (const choice of fixed.choices) ctx.io.stderr(`helix: ${choice}\n`);
        for (const id of fixed.released) ctx.io.stderr(`helix: released stale claim ${id}\n`);
        for (const u of fixed.unsettled) ctx.io.stderr(`helix: ${u.id}: ${u.names} injected memory name(s) kept on the bead for the next helix run's feedback\n`);
        for (const id of fixed.repaired) ctx.io.stderr(`helix: repaired fields DDx would damage in ${id}\n`);
      }
      const snapshot = store.read();
      const report = { ...t.diagnose(snapshot.beads, snapshot.problems, facts, snapshot.bomLines), link: store.linkTarget() ?? null };
      if (opts.json) printJson(ctx.io, report);
      else ctx.io.stdout(doctorText(t, report, store.file));
      if (report.problems.length > 0) ctx.io.exitCode = EXIT.malformedStore;
      else if (!report.healthy) ctx.io.exitCode = EXIT.error;
    });

  sub(tracker, 'import', 'Import beads (like `ddx bead import`): from .helix/issues.jsonl or another beads JSONL file')
    .argument('[file]', 'file to import (default: .helix/issues.jsonl)')
    .action(async (file: string | undefined) => {
      const { store, tracker: t } = await open(ctx, loadTracker);
      const { join } = await import('node:path');
      const source = file ?? join(t.projectRoot(ctx.cwd), '.helix', 'issues.jsonl');
      const result = store.mutate((draft) => t.importBeads(draft, source));
      ctx.io.stdout(`Imported ${result.imported.length} bead(s)${result.skipped.length ? `, skipped ${result.skipped.length} existing` : ''}\n`);
    });

  sub(tracker, 'export', 'Export beads as JSONL')
    .argument('[file]', 'write to this file (default: stdout)')
    .option('--stdout', 'write to stdout')
    .action(async (file: string | undefined, opts) => {
      const { read } = await open(ctx, loadReadModules);
      const { Draft } = await import('../../tracker/bead-store.js');
      const text = new Draft(read()).serialise();
      if (!file || opts.stdout) ctx.io.stdout(text);
      else {
        const { writeFileAtomically } = await import('../../atomic-write.js');
        writeFileAtomically(file, text);
      }
    });
}

function doctorText(t: Pick<typeof import('../../tracker/index.js'), 'claimAge' | 'linkNote'>, report: import('../../tracker/index.js').DoctorReport & { link: string | null }, file: string): string {
  const lines: string[] = [];
  // a note, not a problem: helix writes through the link
  const notes = report.link ? [t.linkNote(file, report.link)] : [];
  for (const p of report.problems) lines.push(`line ${p.line}: ${p.kind}: ${p.detail}`);
  for (const d of report.dangling) lines.push(`dangling dependency: ${d.id} -> ${d.depends_on_id}`);
  for (const c of report.cycles) lines.push(`dependency cycle: ${c.join(' -> ')}`);
  for (const s of report.stale_claims) lines.push(`stale claim: ${s.id} (${t.claimAge(s)}, pid=${s.pid ?? 'none'} ${s.why})`);
  for (const f of report.future_claims.filter((f) => !report.stale_claims.some((s) => s.id === f.id))) {
    lines.push(`claim dated in the future: ${f.id} (${f.ahead_sec}s ahead; its claimer still runs, so it is left alone)`);
  }
  for (const s of report.ddx_damage) lines.push(`DDx would damage ${s.id}: ${s.problem}`);
  if (report.bom_lines.length > 0) lines.push(`line ${report.bom_lines.join(', ')}: starts with a UTF-8 byte order mark, which DDx cannot read (it drops the line); --fix removes the mark`);
  lines.push(report.healthy ? `ok: ${report.total} bead(s), no problems` : `${lines.length} problem(s) in ${report.total} bead(s)`);
  return `${[...notes, ...lines].join('\n')}\n`;
}


