// The Claude Code plugin files (`claude --plugin-dir <helix>`): the manifest matches the package,
// and hooks/hooks.json is the installer's hook set, whose commands run as Claude Code runs them
// (through a shell, with CLAUDE_PLUGIN_ROOT set).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, REPO_ROOT, tempGitRepo } from '../helpers/cli.js';
import { helixHookSpecs, hooksDocument } from '../../src/installer/claude-settings.js';
import { VERSION } from './fixtures.js';

const readJson = (path: string) => JSON.parse(readFileSync(join(REPO_ROOT, path), 'utf8')) as Record<string, unknown>;
type HooksFile = { hooks: Record<string, { matcher?: string; hooks: { type: string; command: string }[] }[]> };

describe('Claude Code plugin', () => {
  it('.claude-plugin/plugin.json names helix at the package version', () => {
    const manifest = readJson('.claude-plugin/plugin.json');
    expect(manifest.name).toBe('helix');
    expect(manifest.version).toBe(VERSION);
    expect(typeof manifest.description).toBe('string');
    // `claude plugin validate` (2.1.332) warns without an author; it is the package's
    expect(manifest.author).toEqual({ name: readJson('package.json').author });
    expect(typeof readJson('package.json').author).toBe('string');
  });

  it('hooks/hooks.json is the installer\'s hook set with ${CLAUDE_PLUGIN_ROOT}/bin/helix', () => {
    expect(readJson('hooks/hooks.json')).toEqual(hooksDocument(helixHookSpecs('"${CLAUDE_PLUGIN_ROOT}/bin/helix"')));
  });

  it('its commands run through a shell and answer a sample PreToolUse payload with exit 0', () => {
    const hooks = (readJson('hooks/hooks.json') as HooksFile).hooks;
    const pre = hooks.PreToolUse![0]!;
    expect(pre.matcher).toBe('Edit|Write|MultiEdit');
    const root = tempGitRepo();
    const env = { ...cleanEnv(), CLAUDE_PLUGIN_ROOT: REPO_ROOT, CLAUDE_PROJECT_DIR: root };
    const input = JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: join(root, 'a.ts'), content: 'x' }, cwd: root });
    const r = spawnSync('sh', ['-c', pre.hooks[0]!.command], { env, input, encoding: 'utf8', cwd: root });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');

    const start = spawnSync('sh', ['-c', hooks.SessionStart![0]!.hooks[0]!.command], { env, input: '{}', encoding: 'utf8', cwd: root });
    expect(start.status).toBe(0);
    expect(start.stdout).toContain(`helix: project ${root};`);
  });
});
