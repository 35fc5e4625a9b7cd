// The options every agent-running command hands to src/supervisor, from the common flags (the
// output mode, the agent and its model and effort), and the flags `run` and `start` share.
import { Option } from 'commander';
import { parseNumber } from '../numbers.js';
import { type CommandContext, type CommonOptions, type HelixCommand, chosenAgent } from './program.js';

type OutputMode = import('../supervisor/shell/output.js').OutputMode;

export const outputMode = (o: CommonOptions): OutputMode => (o.summary ? 'summary' : o.quiet ? 'quiet' : 'normal');

export function baseOptions(ctx: CommandContext, o: CommonOptions) {
  return { cwd: ctx.cwd, env: ctx.env, mode: outputMode(o), dryRun: o.dryRun, agent: chosenAgent(o), model: o.model, effort: o.effort };
}

/** The run's count flags: far beyond any real run, and exact (no rounding of huge values). */
const MAX_RUN_COUNT = 1_000_000;
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
}

export function withRunFlags(command: HelixCommand): HelixCommand {
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
