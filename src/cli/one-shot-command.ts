// What the one-shot HELIX actions share (docs/contract/cli.md §2, §8): one agent call each, the
// common flags, one optional positional; `--dry-run` prints the exact command instead.
import { parseNumber } from '../numbers.js';
import { baseOptions } from './agent-flags.js';
import { type CommandContext, type CommonOptions, type HelixCommand, finishWith, withCommonFlags } from './program.js';

type OneShotAction = import('../supervisor/shell/one-shot.js').OneShotAction;

/** Rounds go into the prompt; a hundred is already more than an agent call can do. */
export const rounds = (value: string) => parseNumber('--rounds', value, { min: 1, max: 100 });

export function registerOneShot(program: HelixCommand, ctx: CommandContext, action: OneShotAction, description: string, argument: string, extra?: (c: HelixCommand) => void): HelixCommand {
  const command = withCommonFlags(program.command(action).description(description)).argument(`[${argument}]`) as HelixCommand;
  extra?.(command);
  command.action(async (scope: string | undefined, o: CommonOptions & { rounds?: number; close?: boolean; reviewAgent?: string }) => {
    const { runOneShotAction } = await import('../supervisor/shell/one-shot.js');
    finishWith(ctx.io, await runOneShotAction(action, { ...baseOptions(ctx, o), reviewAgent: o.reviewAgent, scope, rounds: o.rounds, close: o.close }));
  });
  return command;
}
