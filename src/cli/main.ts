// helix's command-line entry: builds the commander program from the thin command files and maps
// every thrown HelixError to its message on stderr and its exit code (src/errors.ts).
import { CommanderError } from 'commander';
import { HelixError, EXIT, oneLine } from '../errors.js';
import { HelixCommand, UnknownCommandError, withCommonFlags } from './program.js';
import { registerCommands } from './command-list.js';
import { guardOutputStreams } from '../supervisor/interrupts.js';
import { printOnlyPrintable } from './terminal.js';
import { versionLine } from '../supervisor/lines.js';
import { helixVersion } from '../version.js';
import { damagedStoreMessage } from '../memory/damage.js';

export { helixVersion } from '../version.js';

export function buildProgram(): HelixCommand {
  const program = new HelixCommand('helix');
  program
    .description('HELIX supervisor: a bounded run loop over a DDx-compatible bead tracker, with a memory that learns from verification')
    .usage('<command> [options]')
    .option('-V, --version', 'print the version')
    .exitOverride()
    .configureOutput({ outputError: () => undefined })
    .withGeneralUsage();
  withCommonFlags(program.command('version').description('print the version')).action(() => {
    process.stdout.write(`${versionLine(helixVersion())}\n`);
  });
  // `help tracker` / `help memory` show their own help; anything else the general usage.
  withCommonFlags(program.command('help [command]').description('show usage'))
    .withGeneralUsage()
    .action((name?: string) => {
      const target = name ? program.commands.find((c) => c.name() === name || c.aliases().includes(name)) : undefined;
      (target ?? program).outputHelp();
    });
  registerCommands(program);
  program.argument('[command]').action((name?: string) => {
    if (name) throw new UnknownCommandError(name, program.helpInformation());
    if (program.opts<{ version?: boolean }>().version) {
      process.stdout.write(`${versionLine(helixVersion())}\n`);
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
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    process.exitCode = reportError(error);
  }
}

/** A full disk, a file-size limit, a read-only or forbidden place: the write did not happen. */
const WRITE_FAILURES = new Set(['ENOSPC', 'EFBIG', 'EDQUOT', 'EACCES', 'EPERM', 'EROFS']);

/** Prints one clear line for a failure and returns the exit code for it. */
export function reportError(error: unknown): number {
  if (error instanceof UnknownCommandError) {
    process.stderr.write(`${oneLine(error.message)}\n${error.usage}`);
    return error.exitCode;
  }
  if (error instanceof HelixError) {
    // an empty message means the command already said what went wrong
    if (error.message) process.stderr.write(`${error.multiline ? error.message : oneLine(error.message)}\n`);
    return error.exitCode;
  }
  if (error instanceof CommanderError) {
    // help and version displays end in a CommanderError; the help is already printed
    if (error.exitCode === 0) return 0;
    if (error.code === 'commander.help') return EXIT.error;
    process.stderr.write(`${oneLine(error.message.replace(/^error: /, ''))}\n`);
    return EXIT.error;
  }
  const err = error as NodeJS.ErrnoException;
  if (err && WRITE_FAILURES.has(err.code ?? '')) {
    process.stderr.write(`helix: write failed: ${err.message}\n`);
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
    process.stderr.write(`helix: write failed: ${err.message} (${err.code}); nothing was changed\n`);
    return EXIT.writeFailed;
  }
  process.stderr.write(`helix: ${err?.stack ?? String(error)}\n`);
  return EXIT.error;
}
