// The supervisor's commands (contract §2): run, build/implement, check, next, triage, status,
// start, stop. Thin wiring: flags in, a src/supervisor entry point called, its exit code out.
import { Option } from 'commander';
import { HelixError } from '../errors.js';
import { parseNumber } from '../numbers.js';
import { type CommonOptions, type HelixCommand, chosenAgent, finishWith, printJson, withCommonFlags } from './program.js';
import { createFromFlags, withCreateFlags } from './tracker.js';
import { noReadyIssues, titleRequired, unknownRunOption } from '../supervisor/lines.js';

/** Build, deploy and iterate work is buildable; anything else a triaged bead is not, unless told (§13.1). */
const BUILD_PHASES = ['phase:build', 'phase:deploy', 'phase:iterate'];

/** The flags `triage` adds to `tracker create` (the Bash CLI's `helix triage`). */
function withTriageFlags(command: HelixCommand): HelixCommand {
  return command
    .option('--design <text>', 'design notes')
    .option('--execution-eligible <bool>', 'true or false (default: true with a phase:build, phase:deploy or phase:iterate label)')
    .option('--superseded-by <id>', 'the bead that replaces this one')
    .option('--replaces <id>', 'the bead this one replaces')
    .option('--silent', 'accepted for compatibility; no effect') as HelixCommand;
}

/** `triage` flags as create fields: `execution-eligible` is always written (§13.1). */
function triageFields(o: Record<string, string | string[] | boolean | undefined>): Record<string, string | string[] | undefined> {
  const text = (key: string) => (typeof o[key] === 'string' ? (o[key] as string) : undefined);
  const given = text('executionEligible');
  if (given !== undefined && given !== 'true' && given !== 'false') {
    throw new HelixError('validation', `helix: --execution-eligible expects true or false, got '${given}'`);
  }
  const labels = (text('labels') ?? '').split(',').map((l) => l.trim());
  const eligible = given ?? String(labels.some((l) => BUILD_PHASES.includes(l)));
  const set = [...(Array.isArray(o.set) ? o.set : []), `execution-eligible=${eligible}`];
  for (const [flag, key] of [['design', 'design'], ['supersededBy', 'superseded-by'], ['replaces', 'replaces']] as const) {
    const value = text(flag);
    if (value) set.push(`${key}=${value}`);
  }
  const fields: Record<string, string | string[] | undefined> = {};
  for (const [key, value] of Object.entries(o)) if (typeof value === 'string') fields[key] = value;
  return { ...fields, set };
}

type OutputMode = import('../supervisor/output.js').OutputMode;

const outputMode = (o: CommonOptions): OutputMode => (o.summary ? 'summary' : o.quiet ? 'quiet' : 'normal');

/** The run's count flags: far beyond any real run, and exact (no rounding of huge values). */
const MAX_RUN_COUNT = 1_000_000;
const MAX_REVIEW_THRESHOLD_LINES = 1_000_000_000;
const wholeNumber = (flag: string, max: number) => (value: string) => parseNumber(flag, value, { min: 0, max });

/** Like every other read: one warning naming the damaged lines, here also that counts leave them out. */
async function warnIfDamaged(file: string, problems: import('../tracker/index.js').StoreProblem[]): Promise<void> {
  if (problems.length === 0) return;
  const { problemsWarning } = await import('../tracker/read.js');
  process.stderr.write(`${problemsWarning(file, problems, { counts: true })}\n`);
}

function baseOptions(o: CommonOptions) {
  return { cwd: process.cwd(), env: process.env, mode: outputMode(o), dryRun: o.dryRun, agent: chosenAgent(o), model: o.model, effort: o.effort };
}

interface RunFlags extends CommonOptions {
  memory: boolean;
  reviewEvery?: number;
  maxCycles?: number;
  autoAlign: boolean;
  autoReview: boolean;
  reviewThreshold?: number;
  reviewAgent?: string;
}

function withRunFlags(command: HelixCommand): HelixCommand {
  return command
    .addOption(new Option('--ephemeral', 'accepted for compatibility; ignored').hideHelp())
    .option('--no-memory', 'neither inject memories nor feed results back (HELIX_MEMORY=0)')
    .option('--review-every <n>', 'alignment pass every N completed cycles (default 15)', wholeNumber('--review-every', MAX_RUN_COUNT))
    .option('--max-cycles <n>', 'stop after N completed cycles (0 = unlimited)', wholeNumber('--max-cycles', MAX_RUN_COUNT))
    .option('--no-auto-align', 'do not auto-run align on ALIGN / before STOP')
    .option('--no-auto-review', 'no post-implementation review')
    .option('--review-threshold <n>', 'changed lines below which review is skipped (default 100)', wholeNumber('--review-threshold', MAX_REVIEW_THRESHOLD_LINES))
    .option('--review-agent <agent>', 'agent for reviews (cross-model)') as HelixCommand;
}

export function registerRunCommands(program: HelixCommand): void {
  withRunFlags(withCommonFlags(program.command('run').description('the bounded supervisor loop: claim, delegate, verify, close or back off, then check')))
    .withGeneralUsage()
    // `run` takes no positionals: any is reported the way an unknown flag is (bash-interface §2.1)
    .argument('[unexpected...]')
    .action(async (unexpected: string[], o: RunFlags) => {
      if (unexpected.length > 0) throw new HelixError('error', unknownRunOption('run', unexpected[0] as string));
      const { runLoop } = await import('../supervisor/commands.js');
      const { openMemoryPort } = await import('../supervisor/memory-port.js');
      const memoryOn = o.memory !== false && process.env.HELIX_MEMORY !== '0';
      const settings: Record<string, unknown> = {};
      if (o.maxCycles !== undefined) settings.maxCycles = o.maxCycles;
      if (o.reviewEvery !== undefined) settings.reviewEvery = o.reviewEvery;
      if (o.reviewThreshold !== undefined) settings.reviewThreshold = o.reviewThreshold;
      if (o.autoAlign === false) settings.autoAlign = false;
      if (o.autoReview === false) settings.autoReview = false;
      finishWith(await runLoop({
        ...baseOptions(o),
        reviewAgent: o.reviewAgent,
        settings,
        openMemory: memoryOn ? (root, say) => openMemoryPort(root, process.env, say) : undefined,
      }));
    });

  withCommonFlags(program.command('build').alias('implement').description('one bounded implementation pass on one execution-ready bead'))
    .withGeneralUsage()
    .argument('[selector]', 'bead id, id suffix or title words (default: the first ready bead)')
    .action(async (selector: string | undefined, o: CommonOptions) => {
      const { buildOnce } = await import('../supervisor/commands.js');
      const { openMemoryPort } = await import('../supervisor/memory-port.js');
      const memoryOn = process.env.HELIX_MEMORY !== '0';
      finishWith(await buildOnce({ ...baseOptions(o), selector, openMemory: memoryOn ? (root, say) => openMemoryPort(root, process.env, say) : undefined }));
    });

  withCommonFlags(program.command('check').description('run the check action and print its answer (exit 0 when it names a NEXT_ACTION)'))
    .withGeneralUsage()
    .argument('[scope]', 'scope to check', 'repo')
    .action(async (scope: string, o: CommonOptions) => {
      const { checkOnce } = await import('../supervisor/commands.js');
      finishWith(await checkOnce({ ...baseOptions(o), scope }));
    });

  withCommonFlags(program.command('next').description('print the first ready execution bead id, or "no ready issues"'))
    .withGeneralUsage()
    .action(async () => {
      const { openStore } = await import('../supervisor/project.js');
      const { readyBeads } = await import('../tracker/index.js');
      const { store } = openStore(process.cwd(), process.env);
      const snapshot = store.read();
      await warnIfDamaged(store.file, snapshot.problems);
      const first = readyBeads(snapshot.beads, { execution: true, held: store.leased() })[0];
      process.stdout.write(`${first ? first.id : noReadyIssues}\n`);
    });

  // `triage` is `tracker create` with the Bash CLI's defaults (bash-interface §13): its help is the create help.
  withTriageFlags(withCreateFlags(withCommonFlags(program.command('triage').description('Create a new bead')), { titleOptional: true })).action(
    async (title: string | undefined, o: Record<string, string | string[] | boolean | undefined>) => {
      if (!title) throw new HelixError('error', titleRequired);
      const bead = await createFromFlags(title, triageFields(o));
      const { trackerDir } = await import('../tracker/index.js');
      const { countSupervisoryInjection } = await import('../supervisor/run-state.js');
      countSupervisoryInjection(trackerDir(), Array.isArray(bead.labels) ? bead.labels : []);
      process.stdout.write(`${bead.id}\n`);
    },
  );

  withCommonFlags(program.command('status').description('tracker counts, the active run, claimed beads and the last run'))
    .withGeneralUsage()
    .option('--json', 'JSON document (contract §10 keys)')
    .action(async (o: { json?: boolean }) => {
      const { openStore } = await import('../supervisor/project.js');
      const { buildStatus, statusText } = await import('../supervisor/status.js');
      const { readRunState } = await import('../supervisor/run-state.js');
      const { memoryHealth } = await import('../supervisor/memory-port.js');
      const { detectDdx } = await import('../agents/ddx-surface.js');
      const { root, store } = openStore(process.cwd(), process.env);
      await warnIfDamaged(store.file, store.read().problems);
      const now = new Date();
      const report = buildStatus(store, now, process.env, await memoryHealth(root, process.env), await detectDdx(process.env, root));
      if (o.json) printJson(report);
      else process.stdout.write(statusText(report, store.read().beads.filter((b) => b.status === 'in_progress'), readRunState(store.dir) !== undefined));
    });

  withRunFlags(withCommonFlags(program.command('start').description('run `helix run` in the background with a pid file'))).withGeneralUsage().action(async (o: RunFlags) => {
    // The background run is a --summary run with start's own flags (bash-interface §16).
    const given = process.argv.slice(process.argv.indexOf('start') + 1);
    const args = given.includes('--summary') || given.includes('-s') ? given : ['--summary', ...given];
    if (o.dryRun) {
      // nothing to background: show what the run would do, as `helix run --dry-run` does
      const { runLoop } = await import('../supervisor/commands.js');
      finishWith(await runLoop({ ...baseOptions(o), dryRun: true }));
      return;
    }
    const { startBackground } = await import('../supervisor/background.js');
    finishWith(await startBackground(process.cwd(), process.env, args));
  });

  withCommonFlags(program.command('stop').description('stop the background run (SIGTERM, wait up to 10 s, then SIGKILL)')).withGeneralUsage().action(async () => {
    const { stopBackground } = await import('../supervisor/background.js');
    finishWith(await stopBackground(process.cwd(), process.env));
  });
}
