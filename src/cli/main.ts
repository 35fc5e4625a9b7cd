// helix's command-line entry: builds the commander program with the one command the arguments ask
// for (src/cli/command-list.ts) and maps every thrown HelixError to its message on stderr and its
// exit code (src/errors.ts).
import { CommanderError } from 'commander';
import { HelixError, EXIT, oneLine } from '../errors.js';
import { helixVersion } from '../version.js';
import { BufferedOutput, type CommandContext, type CommandOutput, HelixCommand, NO_AGENT_FLAGS, UnknownCommandError, processContext, withCommonFlags } from './program.js';
import { registerCommands, requestedCommand } from './command-list.js';
import { guardOutputStreams } from '../supervisor/shell/interrupts.js';
import { printOnlyPrintable } from './terminal.js';
import { versionLine } from '../supervisor/text/lines.js';
import { damagedStoreMessage } from '../memory/damage.js';

/**
 * The program with the commands `names` asks for (every command when undefined: the tests that
 * walk the whole tree). The root answers `version`, `help`, `--version` and an unknown command.
 */
export async function buildProgram(ctx: CommandContext = processContext(), names?: readonly string[]): Promise<HelixCommand> {
  const program = new HelixCommand('helix');
  program
    .description('HELIX supervisor: a bounded run loop over a DDx-compatible bead tracker, with a memory that learns from verification')
    .usage('<command> [options]')
    .option('-V, --version', 'print the version')
    .exitOverride()
    // usage and help go where the command's output goes; commander's own error text is not printed
    .configureOutput({ writeOut: (text) => ctx.io.stdout(text), writeErr: (text) => ctx.io.stderr(text), outputError: () => undefined })
    .withGeneralUsage();
  withCommonFlags(program.command('version').description('print the version'), NO_AGENT_FLAGS).action(() => {
    ctx.io.stdout(`${versionLine(helixVersion())}\n`);
  });
  // `help tracker` / `help memory` show their own help; anything else the general usage.
  withCommonFlags(program.command('help [command]').description('show usage'), NO_AGENT_FLAGS)
    .withGeneralUsage()
    .action((name?: string) => {
      const target = name ? program.commands.find((c) => c.name() === name || c.aliases().includes(name)) : undefined;
      (target ?? program).outputHelp();
    });
  await registerCommands(program, ctx, names);
  program.argument('[command]').action((name?: string) => {
    if (name) throw new UnknownCommandError(name, program.helpInformation());
    if (program.opts<{ version?: boolean }>().version) {
      ctx.io.stdout(`${versionLine(helixVersion())}\n`);
      return;
    }
    program.outputHelp();
  });
  return program;
}

export async function main(argv: string[]): Promise<void> {
  // A reader that goes away (`helix tracker list | head -1`) stops the output, never the cleanup.
  guardOutputStreams();
  // No bead or agent text reaches the terminal with its control sequences.
  printOnlyPrintable();
  await runCli(argv, processContext());
}

/** Parses and runs one command line in `ctx`; failures become their line on stderr and exit code. */
export async function runCli(argv: string[], ctx: CommandContext): Promise<void> {
  const requested = requestedCommand(argv);
  const program = await buildProgram(ctx, requested === undefined ? [] : [requested]);
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    ctx.io.exitCode = reportError(error, ctx.io);
  }
}

/** Runs one command line in this process with its output kept in memory (tests of the wiring). */
export async function runCliBuffered(argv: string[], place: { cwd: string; env: NodeJS.ProcessEnv }): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  const io = new BufferedOutput();
  await runCli(argv, { ...place, io });
  return { exitCode: io.exitCode ?? 0, stdout: io.out, stderr: io.err };
}

/** A full disk, a file-size limit, a read-only or forbidden place: the write did not happen. */
const WRITE_FAILURES = new Set(['ENOSPC', 'EFBIG', 'EDQUOT', 'EACCES', 'EPERM', 'EROFS']);

/** Prints one clear line for a failure and returns the exit code for it. */
export function reportError(error: unknown, io: CommandOutput = processContext().io): number {
  if (error instanceof UnknownCommandError) {
    io.stderr(`${oneLine(error.message)}\n${error.usage}`);
    return error.exitCode;
  }
  if (error instanceof HelixError) {
    // an empty message means the command already said what went wrong
    if (error.message) io.stderr(`${error.multiline ? error.message : oneLine(error.message)}\n`);
    return error.exitCode;
  }
  if (error instanceof CommanderError) {
    // help and version displays end in a CommanderError; the help is already printed
    if (error.exitCode === 0) return 0;
    if (error.code === 'commander.help') return EXIT.error;
    io.stderr(`${oneLine(error.message.replace(/^error: /, ''))}\n`);
    return EXIT.error;
  }
  const err = error as NodeJS.ErrnoException;
  if (err && WRITE_FAILURES.has(err.code ?? '')) {
    io.stderr(`helix: write failed: ${err.message}\n`);
    return EXIT.writeFailed;
  }
  // a damaged page (or not a database at all), met by whatever query read it first
  const damaged = damagedStoreMessage(err);
  if (damaged) {
    process.stderr.write(`${damaged}\n`);
    return EXIT.storeUnavailable;
  }
  // SQLite rolls the transaction back on these: the memory store is as it was
  if (err && /^SQLITE_(FULL|IOERR|READONLY)/.test(err.code ?? '')) {
    io.stderr(`helix: write failed: ${err.message} (${err.code}); nothing was changed\n`);
    return EXIT.writeFailed;
  }
  io.stderr(`helix: ${err?.stack ?? String(error)}\n`);
  return EXIT.error;
}
