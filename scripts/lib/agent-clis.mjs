// What the lanes that run the real codex and claude CLIs share (`npm run test:agents`,
// `npm run test:first-night`): the pinned CLIs in tests/e2e/clis, installed there (~640 MB that the
// main `npm ci` never downloads) unless exactly those versions are already there.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './offline-vitest.mjs';

const CLIS = join(ROOT, 'tests', 'e2e', 'clis');

function installedVersion(name) {
  try {
    return JSON.parse(readFileSync(join(CLIS, 'node_modules', name, 'package.json'), 'utf8')).version;
  } catch {
    return undefined;
  }
}

/**
 * Installs the pinned CLIs when needed; returns undefined when they run, else why not (one line:
 * npm's own summary of a failed install, or a CLI that does not start on this platform).
 */
export function ensurePinnedClis(say) {
  const pinned = JSON.parse(readFileSync(join(CLIS, 'package.json'), 'utf8')).dependencies;
  const pinnedText = Object.entries(pinned).map(([name, version]) => `${name} ${version}`).join(', ');
  const missing = Object.entries(pinned).filter(([name, version]) => installedVersion(name) !== version);
  if (missing.length > 0) {
    say(`installing ${pinnedText} into tests/e2e/clis`);
    const started = Date.now();
    const install = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: CLIS, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    if (install.error || install.status !== 0) {
      // npm's own summary line (`npm error FetchError: request to … failed, reason: …`), else its code
      const lines = (install.error?.message ?? install.stderr ?? '').split('\n').map((l) => l.replace(/^npm error\s*/, '').trim());
      const detail = lines.find((l) => /Error|failed|reason/.test(l) && !l.startsWith('at ')) ?? lines.find(Boolean) ?? `npm ci exited ${install.status}`;
      return `could not install the pinned agent CLIs (${pinnedText}): ${detail}`;
    }
    say(`installed in ${Math.round((Date.now() - started) / 1000)}s`);
  }
  for (const program of ['codex', 'claude']) {
    const bin = join(CLIS, 'node_modules', '.bin', program);
    if (!existsSync(bin)) return `could not install the pinned agent CLIs (${pinnedText}): ${program} has no executable in tests/e2e/clis/node_modules/.bin`;
    // Each gets a throwaway HOME: `codex --version` alone creates ~/.codex.
    const probe = spawnSync(bin, ['--version'], { encoding: 'utf8', env: { ...process.env, HOME: join(CLIS, 'node_modules', '.probe-home'), CODEX_HOME: join(CLIS, 'node_modules', '.probe-home') } });
    if (probe.error || probe.status !== 0) return `could not install the pinned agent CLIs (${pinnedText}): \`${program} --version\` failed on this platform: ${(probe.error?.message ?? probe.stderr).trim().split('\n')[0]}`;
  }
  return undefined;
}
