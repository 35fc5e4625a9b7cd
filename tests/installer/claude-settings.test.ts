// Merging the helix hooks into Claude Code's settings.json and taking them out again.
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import {
  addHelixHooks,
  findHelixHooks,
  helixHookSpecs,
  isHelixHookCommand,
  parseSettings,
  removeHelixHooks,
  shellQuote,
  type Json,
} from '../../src/installer/claude-settings.js';
import { changeSettingsFile } from '../../src/installer/settings-cli.js';

const ours = helixHookSpecs(shellQuote('/opt/helix/bin/helix'));
const older = helixHookSpecs(shellQuote('/old/place/bin/helix'));
type Settings = { [key: string]: Json };

describe('helix hooks in settings.json', () => {
  it('adds a SessionStart hook, an Edit|Write|MultiEdit PreToolUse hook and the Stop and SubagentStop hooks', () => {
    const { settings, changed } = addHelixHooks({}, ours);
    expect(changed).toBe(true);
    expect(settings).toEqual({
      hooks: {
        SessionStart: [{ hooks: [{ type: 'command', command: "node '/opt/helix/bin/helix' hook session-start", timeout: 10 }] }],
        PreToolUse: [
          { matcher: 'Edit|Write|MultiEdit', hooks: [{ type: 'command', command: "node '/opt/helix/bin/helix' hook pre-tool-use", timeout: 10 }] },
        ],
        Stop: [{ hooks: [{ type: 'command', command: "node '/opt/helix/bin/helix' hook stop", timeout: 10 }] }],
        SubagentStop: [{ hooks: [{ type: 'command', command: "node '/opt/helix/bin/helix' hook subagent-stop", timeout: 10 }] }],
      },
    });
  });

  it('adding twice changes nothing the second time', () => {
    const once = addHelixHooks({ theme: 'dark' }, ours).settings;
    const twice = addHelixHooks(once, ours);
    expect(twice.changed).toBe(false);
    expect(twice.settings).toEqual(once);
    expect(findHelixHooks(twice.settings)).toHaveLength(4);
  });

  it('keeps the user\'s hooks, in order, and replaces an older checkout\'s helix hooks', () => {
    const user: Settings = {
      hooks: {
        PreToolUse: [
          { matcher: 'Bash', hooks: [{ type: 'command', command: 'audit.sh' }] },
          { matcher: 'Edit|Write|MultiEdit', hooks: [{ type: 'command', command: 'fmt.sh' }, { type: 'command', command: "node '/old/place/bin/helix' hook pre-tool-use" }] },
        ],
        Stop: [{ hooks: [{ type: 'command', command: 'notify.sh' }] }],
      },
    };
    const { settings } = addHelixHooks(addHelixHooks(user, older).settings, ours);
    const hooks = settings.hooks as Record<string, { matcher?: string; hooks: { command: string }[] }[]>;
    expect(hooks.PreToolUse!.map((g) => g.hooks.map((h) => h.command))).toEqual([
      ['audit.sh'],
      ['fmt.sh'],
      ["node '/opt/helix/bin/helix' hook pre-tool-use"],
    ]);
    expect(hooks.Stop!.map((g) => g.hooks.map((h) => h.command))).toEqual([['notify.sh'], ["node '/opt/helix/bin/helix' hook stop"]]);
    expect(findHelixHooks(settings).map((h) => h.command).sort()).toEqual([
      "node '/opt/helix/bin/helix' hook pre-tool-use",
      "node '/opt/helix/bin/helix' hook session-start",
      "node '/opt/helix/bin/helix' hook stop",
      "node '/opt/helix/bin/helix' hook subagent-stop",
    ]);
  });

  it('removes only this checkout\'s hooks and drops what is left empty', () => {
    const user: Settings = { model: 'opus', hooks: { Stop: [{ hooks: [{ type: 'command', command: 'notify.sh' }] }] } };
    const added = addHelixHooks(user, ours).settings;
    expect(removeHelixHooks(added, older).changed).toBe(false);
    const removed = removeHelixHooks(added, ours);
    expect(removed.changed).toBe(true);
    expect(removed.settings).toEqual(user);
    expect(removeHelixHooks({}, ours)).toEqual({ settings: {}, changed: false });
  });

  it('recognises helix hook commands and nothing else', () => {
    expect(isHelixHookCommand(`node "\${CLAUDE_PLUGIN_ROOT}/bin/helix" hook pre-tool-use`)).toBe(true);
    expect(isHelixHookCommand('helix hook session-start')).toBe(true);
    expect(isHelixHookCommand("node '/a b/bin/helix' hook session-start")).toBe(true);
    expect(isHelixHookCommand('my-helix-wrapper.sh')).toBe(false);
    expect(isHelixHookCommand('helix hook session-start && rm -rf x')).toBe(false);
  });

  it('quotes a path with spaces and quotes for the shell', () => {
    expect(shellQuote("/a b/it's/helix")).toBe(`'/a b/it'\\''s/helix'`);
  });

  it('refuses text that is not a JSON object, naming the file', () => {
    expect(() => parseSettings('{ nope', '/x/settings.json')).toThrow('/x/settings.json is not valid JSON');
    expect(() => parseSettings('[1]', '/x/settings.json')).toThrow('does not hold a JSON object');
  });
});

describe('settings.json file changes', () => {
  const now = new Date('2026-11-22T10:20:30.456Z');

  it('backs the file up before changing it, and writes nothing on the no-op second run', () => {
    const dir = tempDir();
    const file = join(dir, 'settings.json');
    writeFileSync(file, '{"model":"opus"}');
    const line = changeSettingsFile({ action: 'add', settingsPath: file, helixBin: '/h/bin/helix', dryRun: false, now });
    expect(line).toBe(`added helix hooks to ${file} (backup: ${file}.helix-backup-20261122T102030Z)`);
    expect(readFileSync(`${file}.helix-backup-20261122T102030Z`, 'utf8')).toBe('{"model":"opus"}');
    const again = changeSettingsFile({ action: 'add', settingsPath: file, helixBin: '/h/bin/helix', dryRun: false });
    expect(again).toMatch(/^unchanged/);
    expect(readdirSync(dir).sort()).toEqual(['settings.json', 'settings.json.helix-backup-20261122T102030Z']);
  });

  it('--with-hooks then --uninstall in the same second keep both backups: the original is never overwritten', () => {
    const dir = tempDir();
    const file = join(dir, 'settings.json');
    writeFileSync(file, '{"model":"opus"}');
    const added = changeSettingsFile({ action: 'add', settingsPath: file, helixBin: '/h/bin/helix', dryRun: false, now });
    const withHooks = readFileSync(file, 'utf8');
    const removed = changeSettingsFile({ action: 'remove', settingsPath: file, helixBin: '/h/bin/helix', dryRun: false, now });
    expect(added).toBe(`added helix hooks to ${file} (backup: ${file}.helix-backup-20261122T102030Z)`);
    expect(removed).toBe(`removed helix hooks from ${file} (backup: ${file}.helix-backup-20261122T102030Z-2)`);
    expect(readFileSync(`${file}.helix-backup-20261122T102030Z`, 'utf8')).toBe('{"model":"opus"}');
    expect(readFileSync(`${file}.helix-backup-20261122T102030Z-2`, 'utf8')).toBe(withHooks);
  });

  it('creates settings.json (and its folder) when there is none', () => {
    const file = join(tempDir(), 'new claude', 'settings.json');
    changeSettingsFile({ action: 'add', settingsPath: file, helixBin: '/h/bin/helix', dryRun: false });
    expect(findHelixHooks(JSON.parse(readFileSync(file, 'utf8')) as Settings)).toHaveLength(4);
  });

  it('writes through a symlinked settings.json to the real file and keeps the link', () => {
    const dir = tempDir();
    const real = join(dir, 'dotfiles-settings.json');
    writeFileSync(real, '{}');
    mkdirSync(join(dir, 'claude'));
    const link = join(dir, 'claude/settings.json');
    symlinkSync(real, link);
    changeSettingsFile({ action: 'add', settingsPath: link, helixBin: '/h/bin/helix', dryRun: false });
    expect(readlinkSync(link)).toBe(real);
    expect(findHelixHooks(JSON.parse(readFileSync(real, 'utf8')) as Settings)).toHaveLength(4);
  });

  it('dry run and invalid JSON leave the file as it was', () => {
    const dir = tempDir();
    const file = join(dir, 'settings.json');
    writeFileSync(file, '{}');
    expect(changeSettingsFile({ action: 'add', settingsPath: file, helixBin: '/h', dryRun: true })).toBe(`would add helix hooks to ${file}`);
    expect(readFileSync(file, 'utf8')).toBe('{}');
    writeFileSync(file, '{ broken');
    expect(() => changeSettingsFile({ action: 'add', settingsPath: file, helixBin: '/h', dryRun: false })).toThrow('not valid JSON');
    expect(readFileSync(file, 'utf8')).toBe('{ broken');
    expect(readdirSync(dir)).toEqual(['settings.json']);
  });

  it('removing from a missing file is a no-op that creates nothing', () => {
    const file = join(tempDir(), 'settings.json');
    expect(changeSettingsFile({ action: 'remove', settingsPath: file, helixBin: '/h', dryRun: false })).toMatch(/^unchanged/);
    expect(existsSync(file)).toBe(false);
  });
});
