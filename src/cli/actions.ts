// The one-shot HELIX actions (contract §2): align, design (alias plan), polish, review, backfill,
// experiment. Each runs one agent call; `--dry-run` prints the exact command instead.
import { parseNumber } from '../numbers.js';
import { type CommonOptions, type HelixCommand, chosenAgent, finishWith, withCommonFlags } from './program.js';

type OneShotAction = import('../supervisor/one-shot.js').OneShotAction;

/** Rounds go into the prompt; a hundred is already more than an agent call can do. */
const rounds = (value: string) => parseNumber('--rounds', value, { min: 1, max: 100 });

function register(program: HelixCommand, action: OneShotAction, description: string, argument: string, extra?: (c: HelixCommand) => void): HelixCommand {
  const command = withCommonFlags(program.command(action === 'design' ? 'design' : action).description(description)).withGeneralUsage().argument(`[${argument}]`) as HelixCommand;
  extra?.(command);
  command.action(async (scope: string | undefined, o: CommonOptions & { rounds?: number; close?: boolean; reviewAgent?: string }) => {
    const { runOneShotAction } = await import('../supervisor/one-shot.js');
    finishWith(await runOneShotAction(action, {
      cwd: process.cwd(),
      env: process.env,
      mode: o.summary ? 'summary' : o.quiet ? 'quiet' : 'normal',
      dryRun: o.dryRun,
      agent: chosenAgent(o),
      model: o.model,
      effort: o.effort,
      reviewAgent: o.reviewAgent,
      scope,
      rounds: o.rounds,
      close: o.close,
    }));
  });
  return command;
}

export function registerActionCommands(program: HelixCommand): void {
  register(program, 'align', 'run the alignment action under a governing planning bead', 'scope');
  register(program, 'design', 'run the plan action (design rounds)', 'scope', (c) => c.alias('plan').option('--rounds <n>', 'design rounds (default 5)', rounds));
  register(program, 'polish', 'run the polish action (refine beads)', 'scope', (c) => c.option('--rounds <n>', 'polish rounds (default 6)', rounds));
  register(program, 'review', 'fresh-eyes review of a change (default scope: last-commit)', 'scope', (c) => c.option('--review-agent <agent>', 'agent for the review'));
  register(program, 'backfill', 'run the backfill action; requires BACKFILL_STATUS and an existing BACKFILL_REPORT', 'scope');
  register(program, 'experiment', 'run the experiment action (refuses a dirty worktree)', 'bead-or-goal', (c) => c.option('--close', 'close the experiment bead when decided'));
}
