// Every skill has valid front matter and tells the agent to run commands the contract defines
// (docs/contract/cli.md §2, memory.md); the commands `helix --help` already lists must answer `--help`.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { helix, REPO_ROOT, tempDir } from '../helpers/cli.js';
import { SKILL_NAMES } from './fixtures.js';

/** docs/contract/cli.md §2 (with aliases) plus the entry points of §1 and the installer of §11. */
const CONTRACT_COMMANDS = new Set([
  'run', 'build', 'implement', 'check', 'align', 'design', 'plan', 'polish', 'review', 'backfill', 'experiment',
  'next', 'status', 'start', 'stop', 'triage', 'tracker', 'memory', 'doctor', 'install', 'help', 'version',
]);
/** memory.md's sub-commands. */
const MEMORY_SUBCOMMANDS = new Set([
  'store', 'recall', 'get', 'edge', 'edges', 'feedback', 'feedback-verify', 'decay', 'prune', 'consolidate', 'health',
  'similar-recent', 'suggest-edges', 'inject', 'batch-inject', 'strategic-recall', 'chunk', 'connected', 'decay-edges',
]);
/** docs/contract/cli.md §5's tracker sub-commands. */
const TRACKER_SUBCOMMANDS = new Set([
  'init', 'create', 'show', 'update', 'close', 'reopen', 'list', 'ready', 'blocked', 'dep', 'status', 'doctor', 'import', 'export',
]);
/** The command each skill is about (the memory plugin's /helix-query and /helix-stats, docs/contract/design.md, map onto memory and status). */
const PRIMARY: Record<string, string[]> = {
  'helix-query': ['memory recall', 'memory strategic-recall'],
  'helix-stats': ['memory health', 'status'],
  'helix-memory': ['memory store', 'memory recall', 'memory feedback-verify', 'memory health'],
};

interface Skill {
  folder: string;
  front: Record<string, string>;
  body: string;
}

/** A strict reader for the flat `key: value` front matter skills use (plain or double-quoted). */
function parseFrontMatter(text: string): { front: Record<string, string>; body: string } {
  const match = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(text);
  if (!match) throw new Error('no front matter block');
  const front: Record<string, string> = {};
  for (const line of match[1]!.split('\n')) {
    const kv = /^([a-z][a-z-]*): (.*)$/.exec(line);
    if (!kv) throw new Error(`not a key: value line: ${line}`);
    const [, key, raw] = kv as unknown as [string, string, string];
    if (key in front) throw new Error(`duplicate key ${key}`);
    if (raw.startsWith('"')) front[key] = JSON.parse(raw) as string;
    else if (/^[\[{&*!|>'%@`#]/.test(raw) || /: | #/.test(raw)) throw new Error(`value needs quoting: ${line}`);
    else front[key] = raw;
  }
  return { front, body: match[2]! };
}

const skills: Skill[] = readdirSync(join(REPO_ROOT, 'skills'))
  .sort()
  .map((folder) => ({ folder, ...parseFrontMatter(readFileSync(join(REPO_ROOT, 'skills', folder, 'SKILL.md'), 'utf8')) }));

/** `helix <cmd> [<sub>]` invocations inside the skill's fenced code blocks. */
function invocations(body: string): { command: string; sub?: string }[] {
  const found: { command: string; sub?: string }[] = [];
  for (const block of body.matchAll(/```(?:bash)?\n([\s\S]*?)```/g)) {
    for (const m of block[1]!.matchAll(/(?:^|[\s;&|(])helix ([a-z-]+)(?: ([a-z-]+))?/gm)) {
      found.push({ command: m[1]!, ...(m[1] === 'memory' || m[1] === 'tracker' ? { sub: m[2] } : {}) });
    }
  }
  return found;
}

/** Command names in the Commands section of `helix [group] --help`. */
function helpCommands(...group: string[]): Set<string> {
  const help = helix([...group, '--help'], { cwd: tempDir() }).stdout;
  const section = help.split(/^Commands:$/m)[1] ?? '';
  return new Set([...section.matchAll(/^ {2}([a-z][a-z-]*)(?:\|[a-z-]+)?\b/gm)].map((m) => m[1]!));
}

describe('skills', () => {
  it('ship one folder per command skill', () => {
    expect(skills.map((s) => s.folder)).toEqual(SKILL_NAMES);
  });

  it.each(skills.map((s) => [s.folder, s] as const))('%s has name, description and argument-hint front matter', (folder, skill) => {
    expect(Object.keys(skill.front).sort()).toEqual(['argument-hint', 'description', 'name']);
    expect(skill.front.name).toBe(folder);
    expect(skill.front.description!.length).toBeGreaterThan(40);
    expect(skill.front.description!.length).toBeLessThanOrEqual(1024);
    expect(skill.front.description).toMatch(/Use (when|after|to)/);
    expect(skill.body).toMatch(/^## When to use$/m);
    expect(skill.body).toMatch(/^## Run$/m);
  });

  it.each(skills.map((s) => [s.folder, s] as const))('%s runs only contract commands, including its own', (folder, skill) => {
    const calls = invocations(skill.body);
    for (const call of calls) {
      expect(CONTRACT_COMMANDS, `helix ${call.command}`).toContain(call.command);
      if (call.command === 'memory') expect(MEMORY_SUBCOMMANDS, `helix memory ${call.sub}`).toContain(call.sub);
      if (call.command === 'tracker') expect(TRACKER_SUBCOMMANDS, `helix tracker ${call.sub}`).toContain(call.sub);
    }
    const said = new Set(calls.map((c) => (c.sub ? `${c.command} ${c.sub}` : c.command)));
    for (const primary of PRIMARY[folder] ?? [folder.replace(/^helix-/, '')]) expect(said, primary).toContain(primary);
  });

  const listed = helpCommands();
  const referenced = [...new Set(skills.flatMap((s) => invocations(s.body).map((c) => c.command)))].sort();
  it('helix --help lists the commands this checkout already has', () => {
    for (const command of ['run', 'tracker', 'memory', 'doctor', 'install']) expect(listed).toContain(command);
  });
  // A command not landed yet shows up as skipped; it runs once `helix --help` lists it.
  for (const command of referenced) {
    it.skipIf(!listed.has(command))(`helix ${command}, named by a skill, answers --help`, () => {
      const r = helix([command, '--help'], { cwd: tempDir() });
      expect(r.status).toBe(0);
      // the Bash CLI's commands print the general usage (docs/contract/bash-interface.md §0.6); the others their own
      expect(r.stdout).toMatch(new RegExp(`Usage: helix ${command}|^Usage:\\n[\\s\\S]*^ {2}helix ${command}\\b`, 'm'));
    });
  }

  // The same for the memory and tracker sub-commands the skills name.
  for (const group of ['memory', 'tracker']) {
    const subs = helpCommands(group);
    const named = [...new Set(skills.flatMap((s) => invocations(s.body).filter((c) => c.command === group).map((c) => c.sub!)))].sort();
    for (const sub of named) {
      it.skipIf(!subs.has(sub))(`helix ${group} ${sub}, named by a skill, answers --help`, () => {
        const r = helix([group, sub, '--help'], { cwd: tempDir() });
        expect(r.status).toBe(0);
        expect(r.stdout).toContain(`Usage: helix ${group} ${sub}`);
      });
    }
  }
});
