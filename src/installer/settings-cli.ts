// The node half of `install-local-skills.sh --with-hooks` / `--uninstall`: merges the helix hooks
// into (or removes them from) Claude Code's settings.json. The Bash script calls it with an
// argument array:
//   node dist/installer/settings-cli.js add|remove --settings <file> --helix-bin <path> [--dry-run]
// It prints one line (`unchanged: …`, `added …`, `removed …`, `would …`) and exits 0, or prints
// one error line on stderr and exits 1 without touching the file. Node built-ins only, so it runs
// from a bare checkout with no node_modules.
import { constants, copyFileSync, existsSync, mkdirSync, readFileSync, realpathSync } from 'node:fs';
import { writeFileAtomically } from '../atomic-write.js';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { addHelixHooks, helixHookSpecs, parseSettings, removeHelixHooks, shellQuote } from './claude-settings.js';
import { createUniquely } from '../unique-path.js';

export interface SettingsChange {
  action: 'add' | 'remove';
  settingsPath: string;
  helixBin: string;
  dryRun: boolean;
  now?: Date;
}

/** Applies the change to the file and returns the line to print. Throws Error on bad input. */
export function changeSettingsFile(change: SettingsChange): string {
  const { action, settingsPath, dryRun } = change;
  const exists = existsSync(settingsPath);
  if (!exists && action === 'remove') return `unchanged: ${settingsPath} does not exist`;
  // Write through a symlinked settings.json (dotfiles) to the real file, keeping the link.
  const realPath = exists ? realpathSync(settingsPath) : settingsPath;
  const before = exists ? parseSettings(readFileSync(realPath, 'utf8'), settingsPath) : {};
  const specs = helixHookSpecs(shellQuote(change.helixBin));
  const result = action === 'add' ? addHelixHooks(before, specs) : removeHelixHooks(before, specs);
  const verb = action === 'add' ? 'add helix hooks to' : 'remove helix hooks from';
  if (!result.changed) return `unchanged: helix hooks already ${action === 'add' ? 'in' : 'absent from'} ${settingsPath}`;
  if (dryRun) return `would ${verb} ${settingsPath}`;

  let backup = '';
  if (exists) {
    // Never over an earlier backup: an install and an uninstall in the same second keep both.
    const stamp = (change.now ?? new Date()).toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
    backup = createUniquely(`${realPath}.helix-backup-${stamp}`, '', (path) => copyFileSync(realPath, path, constants.COPYFILE_EXCL));
  } else {
    mkdirSync(dirname(realPath), { recursive: true });
  }
  writeFileAtomically(realPath, `${JSON.stringify(result.settings, null, 2)}\n`);
  const done = action === 'add' ? 'added helix hooks to' : 'removed helix hooks from';
  return `${done} ${settingsPath}${backup ? ` (backup: ${backup})` : ''}`;
}

function main(argv: string[]): number {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        settings: { type: 'string' },
        'helix-bin': { type: 'string' },
        'dry-run': { type: 'boolean', default: false },
      },
    });
    const action = positionals[0];
    if ((action !== 'add' && action !== 'remove') || !values.settings || !values['helix-bin']) {
      throw new Error('usage: settings-cli.js add|remove --settings <file> --helix-bin <path> [--dry-run]');
    }
    const line = changeSettingsFile({
      action,
      settingsPath: values.settings,
      helixBin: values['helix-bin'],
      dryRun: values['dry-run'] === true,
    });
    process.stdout.write(`${line}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`install-local-skills.sh: ${(error as Error).message}\n`);
    return 1;
  }
}

if (process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))) {
  process.exitCode = main(process.argv.slice(2));
}
