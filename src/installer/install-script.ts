// `helix install` runs scripts/install-local-skills.sh, so the Bash script and the command are
// one installer (docs/contract/cli.md §11). Arguments go as an array; the script's output and exit code pass
// straight through.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface InstallFlags {
  uninstall?: boolean;
  dryRun?: boolean;
  withHooks?: boolean;
}

/** This checkout's root (dist/installer/… → the folder holding scripts/ and skills/). */
export const HELIX_ROOT = fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, '');

export function installScriptArgs(flags: InstallFlags): string[] {
  const args: string[] = [];
  if (flags.dryRun) args.push('--dry-run');
  if (flags.uninstall) args.push('--uninstall');
  if (flags.withHooks) args.push('--with-hooks');
  return args;
}

/** Runs the installer with the terminal attached and returns its exit code. */
export function runInstallScript(flags: InstallFlags, helixRoot = HELIX_ROOT): number {
  const script = `${helixRoot}/scripts/install-local-skills.sh`;
  const result = spawnSync('bash', [script, ...installScriptArgs(flags)], { stdio: 'inherit' });
  if (result.error) throw result.error;
  return result.status ?? 1;
}
