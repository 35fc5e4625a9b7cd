// The supervisor's commands (contract §2): run, build/implement, check, next, triage, status,
// start, stop. Thin wiring: flags in, a src/supervisor entry point called, its exit code out.
import { Option } from 'commander';
import { parseNumber } from '../numbers.js';
import { type CommonOptions, type HelixCommand, chosenAgent, printJson, withCommonFlags } from './program.js';
import { createFromFlags, withCreateFlags } from './tracker.js';

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
  withRunFlags(withCommonFlags(program.command('run').description('the bounded supervisor loop: claim, delegate, verify, close or back off, then check'))).action(
    async (o: RunFlags) => {
      const { runLoop } = await import('../supervisor/commands.js');
      const { openMemoryPort } = await import('../supervisor/memory-port.js');
      const memoryOn = o.memory !== false && process.env.HELIX_MEMORY !== '0';
      const settings: Record<string, unknown> = {};
      if (o.maxCycles !== undefined) settings.maxCycles = o.maxCycles;
      if (o.reviewEvery !== undefined) settings.reviewEvery = o.reviewEvery;
      if (o.reviewThreshold !== undefined) settings.reviewThreshold = o.reviewThreshold;
      if (o.autoAlign === false) settings.autoAlign = false;
      if (o.autoReview === false) settings.autoReview = false;
      process.exitCode = await runLoop({
        ...baseOptions(o),
        reviewAgent: o.reviewAgent,
        settings,
        openMemory: memoryOn ? (root, say) => openMemoryPort(root, process.env, say) : undefined,
      });
    },
  );

  withCommonFlags(program.command('build').alias('implement').description('one bounded implementation pass on one execution-ready bead'))
    .argument('[selector]', 'bead id, id suffix or title words (default: the first ready bead)')
    .action(async (selector: string | undefined, o: CommonOptions) => {
      const { buildOnce } = await import('../supervisor/commands.js');
      const { openMemoryPort } = await import('../supervisor/memory-port.js');
      const memoryOn = process.env.HELIX_MEMORY !== '0';
      process.exitCode = await buildOnce({ ...baseOptions(o), selector, openMemory: memoryOn ? (root, say) => openMemoryPort(root, process.env, say) : undefined });
    });

  withCommonFlags(program.command('check').description('run the check action and print its answer (exit 0 when it names a NEXT_ACTION)'))
    .argument('[scope]', 'scope to check', 'repo')
    .action(async (scope: string, o: CommonOptions) => {
      const { checkOnce } = await import('../supervisor/commands.js');
      process.exitCode = await checkOnce({ ...baseOptions(o), scope });
    });

  withCommonFlags(program.command('next').description('print the first ready execution bead id, or "no ready issues"')).action(async () => {
    const { openStore } = await import('../supervisor/project.js');
    const { readyBeads } = await import('../tracker/index.js');
    const { store } = openStore(process.cwd(), process.env);
    const snapshot = store.read();
    await warnIfDamaged(store.file, snapshot.problems);
    const first = readyBeads(snapshot.beads, { execution: true, held: store.leased() })[0];
    process.stdout.write(`${first ? first.id : 'no ready issues'}\n`);
  });

  withCreateFlags(withCommonFlags(program.command('triage').description('create a bead and print its id'))).action(async (title: string, o) => {
    const bead = await createFromFlags(title, o);
    process.stdout.write(`${bead.id}\n`);
  });

  withCommonFlags(program.command('status').description('tracker counts, the active run, claimed beads and the last run'))
    .option('--json', 'JSON document (contract §10 keys)')
    .action(async (o: { json?: boolean }) => {
      const { openStore } = await import('../supervisor/project.js');
      const { buildStatus, statusText } = await import('../supervisor/status.js');
      const { memoryHealth } = await import('../supervisor/memory-port.js');
      const { detectDdx } = await import('../agents/ddx-surface.js');
      const { root, store } = openStore(process.cwd(), process.env);
      await warnIfDamaged(store.file, store.read().problems);
      const now = new Date();
      const report = buildStatus(store, now, process.env, await memoryHealth(root, process.env), await detectDdx(process.env, root));
      if (o.json) printJson(report);
      else process.stdout.write(statusText(report, store.read().beads.filter((b) => b.status === 'in_progress'), now));
    });

  withRunFlags(withCommonFlags(program.command('start').description('run `helix run` in the background with a pid file'))).action(async (o: RunFlags) => {
    const args = process.argv.slice(process.argv.indexOf('start') + 1);
    if (o.dryRun) {
      // nothing to background: show what the run would do, as `helix run --dry-run` does
      const { runLoop } = await import('../supervisor/commands.js');
      process.exitCode = await runLoop({ ...baseOptions(o), dryRun: true });
      return;
    }
    const { startBackground } = await import('../supervisor/background.js');
    process.exitCode = await startBackground(process.cwd(), process.env, args);
  });

  withCommonFlags(program.command('stop').description('stop the background run (SIGTERM, wait up to 10 s, then SIGKILL)')).action(async () => {
    const { stopBackground } = await import('../supervisor/background.js');
    process.exitCode = await stopBackground(process.cwd(), process.env);
  });
}
