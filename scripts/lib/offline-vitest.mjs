// The lanes that run real programs (test:agents, test:first-night, test:ddx) run vitest inside a
// network namespace with only loopback up where this machine allows one (root + unshare), so nothing
// they start reaches beyond 127.0.0.1.
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '..', '..');

/**
 * Runs vitest with a config in a private network namespace where the machine allows one; returns
 * its exit status. `without`: what the lane does instead, said when there is no namespace.
 */
export function vitestOffline(config, args, say, without) {
  const vitest = [process.execPath, join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--config', join(ROOT, config), ...args];
  const isolated = spawnSync('unshare', ['--net', 'sh', '-c', 'ip link set lo up'], { stdio: 'ignore' }).status === 0;
  let run;
  if (isolated) {
    say('network: a private namespace with only loopback up (nothing beyond 127.0.0.1 is reachable)');
    run = spawnSync('unshare', ['--net', 'sh', '-c', 'ip link set lo up && exec "$@"', 'sh', ...vitest], { cwd: ROOT, stdio: 'inherit' });
  } else {
    say(`network: no private namespace here (it needs root and unshare); ${without}`);
    run = spawnSync(vitest[0], vitest.slice(1), { cwd: ROOT, stdio: 'inherit' });
  }
  return run.status ?? 1;
}
