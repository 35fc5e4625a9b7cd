// The options every agent-running command hands to src/supervisor, from the common flags (the
// output mode, the agent and its model and effort), and the flags `run` and `start` share.
import { Option } from 'commander';
import { parseNumber, quoted } from '../numbers.js';
import { HelixError } from '../errors.js';
import { parseDurationFlag } from '../durations.js';
import { type CommandContext, type CommonOptions, type HelixCommand, chosenAgent } from './program.js';

type OutputMode = import('../supervisor/shell/output.js').OutputMode;

export const outputMode = (o: CommonOptions): OutputMode => (o.summary ? 'summary' : o.quiet ? 'quiet' : 'normal');

export function baseOptions(ctx: CommandContext, o: CommonOptions) {
  return { cwd: ctx.cwd, env: ctx.env, mode: outputMode(o), dryRun: o.dryRun, agent: chosenAgent(o), model: o.model, effort: o.effort };
}

/** The run's count flags: far beyond any real run, and exact (no rounding of huge values). */
const MAX_RUN_COUNT = 1_000_000;
/** --jobs: each slot is a `ddx try` with its agent and its clone; more than this is a flood, not a fleet. */
const MAX_JOBS = 16;
const MAX_REVIEW_THRESHOLD_LINES = 1_000_000_000;
const wholeNumber = (flag: string, max: number) => (value: string) => parseNumber(flag, value, { min: 0, max });

export interface RunFlags extends CommonOptions {
  memory: boolean;
  reviewEvery?: number;
  maxCycles?: number;
  autoAlign: boolean;
  autoReview: boolean;
  reviewThreshold?: number;
  reviewAgent?: string;
  maxWait?: string;
  maxCost?: string;
  maxTokens?: string;
  maxDuration?: string;
  jobs?: number;
  progress?: 'auto' | 'plain';
}

/** `--progress auto|plain`; anything else is one line and exit 7, as every bad run flag. */
function progressFlag(value: string): 'auto' | 'plain' {
  if (value === 'auto' || value === 'plain') return value;
  throw new HelixError('validation', `helix: --progress must be auto or plain, got ${quoted(value)}`);
}

/** Checks a value as it is parsed (a bad one is one line and exit 7), keeps the text for the supervisor's parser. */
const checked = (check: (value: string) => unknown) => (value: string) => {
  check(value);
  return value;
};

export function withRunFlags(command: HelixCommand): HelixCommand {
  return command
    .addOption(new Option('--ephemeral', 'accepted for compatibility; ignored').hideHelp())
    .option('--no-memory', 'neither inject memories nor feed results back (HELIX_MEMORY=0)')
    .option('--review-every <n>', 'alignment pass every N completed cycles (default 15)', wholeNumber('--review-every', MAX_RUN_COUNT))
    .option('--max-cycles <n>', 'stop after N completed cycles (0 = unlimited)', wholeNumber('--max-cycles', MAX_RUN_COUNT))
    .option('--no-auto-align', 'do not auto-run align on ALIGN / before STOP')
    .option('--no-auto-review', 'no post-implementation review')
    .option('--review-threshold <n>', 'changed lines below which review is skipped (default 100)', wholeNumber('--review-threshold', MAX_REVIEW_THRESHOLD_LINES))
    .option('--review-agent <agent>', 'agent for reviews (cross-model)')
    .option('--max-wait <duration>', 'longest wait for usage/rate limits to reset, Go syntax (default 6h; 0 = stop at the first limit)', checked((v) => parseDurationFlag('--max-wait', v)))
    .option('--max-cost <usd>', 'stop once the agents report this many US dollars spent (0 = no cap)', checked((v) => parseNumber('--max-cost', v, { min: 0, max: Number.MAX_SAFE_INTEGER, fraction: true })))
    .option('--max-tokens <n>', 'stop once this many tokens are spent (0 = no cap)', checked((v) => parseNumber('--max-tokens', v, { min: 0, max: Number.MAX_SAFE_INTEGER })))
    .option('--max-duration <duration>', 'start no attempt once the run is this old, Go syntax (0 = no cap)', checked((v) => parseDurationFlag('--max-duration', v)))
    .option('--progress <mode>', 'auto (default): a live board of the slots on a terminal (not in CI, NO_COLOR or TERM=dumb); plain: lines only', progressFlag)
    .option('--jobs <n>', `builds in flight at once, each in DDx's own worktree (current DDx only; default 1, at most ${MAX_JOBS})`, (v) => parseNumber('--jobs', v, { min: 1, max: MAX_JOBS })) as HelixCommand;
}

/** The run flags' caps as supervisor settings (core/limit-wait.ts and core/budget.ts parse them). */
export async function capSettings(o: RunFlags): Promise<Record<string, unknown>> {
  const { parseMaxWait } = await import('../supervisor/core/limit-wait.js');
  const { parseBudgetFlags } = await import('../supervisor/core/budget.js');
  return { maxWaitMs: parseMaxWait(o.maxWait), budget: parseBudgetFlags(o), ...(o.jobs !== undefined ? { jobs: o.jobs } : {}) };
}
