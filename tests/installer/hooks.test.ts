// The Claude Code hooks: the logic in-process against a HookMemory test double (the memory store
// is a separate module), and the real `helix hook …` process for missing and broken stores.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { helix, REPO_ROOT, tempDir, tempGitRepo } from '../helpers/cli.js';
import {
  describeHealth,
  preToolUse,
  sessionStart,
  type HookMemory,
  type HookMemoryHealth,
  type HookRecalledMemory,
  type OpenHookMemory,
} from '../../src/installer/hooks.js';

const JWT: HookRecalledMemory = {
  name: 'jwt-expiry-in-seconds',
  type: 'failure',
  trigger: 'JWT expiry check compared milliseconds with seconds',
  resolution: 'Compare exp against Date.now() / 1000',
  effectiveness: 0.666,
};
const FIXTURE: HookRecalledMemory = { name: 'auth-fixture', type: 'pattern', trigger: 'auth tests need a user', resolution: 'use makeUser()', effectiveness: null };

/** A store stand-in that records what the hook asked for. */
function memoryWith(memories: HookRecalledMemory[], health?: HookMemoryHealth) {
  const calls: { dbPath: string; root: string; file?: string; limit?: number; closed: boolean }[] = [];
  const open: OpenHookMemory = async (dbPath, root) => {
    const call: (typeof calls)[number] = { dbPath, root, closed: false };
    calls.push(call);
    const memory: HookMemory = {
      async recallForFile(file, limit) {
        call.file = file;
        call.limit = limit;
        return memories;
      },
      systemicWarnings: () => memories.filter((m) => m.type === 'systemic'),
      async recordSessionEnd() {
        return undefined;
      },
      async health() {
        if (!health) throw new Error('no health');
        return health;
      },
      close() {
        call.closed = true;
      },
    };
    return memory;
  };
  return { open, calls };
}

/** A project with a memory database file, so the hook goes on to ask the store. */
function projectWithStore(): string {
  const root = tempGitRepo();
  mkdirSync(join(root, '.helix'));
  writeFileSync(join(root, '.helix/helix.db'), '');
  return root;
}

const payload = (tool: string, filePath: string, cwd?: string) =>
  JSON.stringify({ session_id: 's1', hook_event_name: 'PreToolUse', tool_name: tool, tool_input: { file_path: filePath, old_string: 'a', new_string: 'b' }, ...(cwd ? { cwd } : {}) });

describe('pre-tool-use hook', () => {
  it('answers an Edit with PreToolUse JSON whose additionalContext names the memories and asks for honest UTILIZED', async () => {
    const root = projectWithStore();
    const { open, calls } = memoryWith([JWT, FIXTURE]);
    const out = await preToolUse(payload('Edit', join(root, 'src/auth.ts')), { cwd: root, env: {}, openMemory: open });
    const answer = JSON.parse(out) as { hookSpecificOutput: Record<string, string> };
    expect(Object.keys(answer)).toEqual(['hookSpecificOutput']);
    expect(answer.hookSpecificOutput.hookEventName).toBe('PreToolUse');
    expect(answer.hookSpecificOutput).not.toHaveProperty('permissionDecision');
    const context = answer.hookSpecificOutput.additionalContext!;
    expect(context).toContain('2 memories are relevant to editing src/auth.ts');
    expect(context).toContain('- [67%] jwt-expiry-in-seconds (failure): JWT expiry check compared milliseconds with seconds -> Compare exp against Date.now() / 1000');
    expect(context).toContain('- [unproven] auth-fixture (pattern)');
    expect(context).toContain('UTILIZED: [names]');
    expect(context).toMatch(/honestly/);
    expect(calls).toEqual([{ dbPath: join(root, '.helix/helix.db'), root, file: 'src/auth.ts', limit: 5, closed: true }]);
  });

  it('uses the payload\'s cwd and resolves relative file paths against it', async () => {
    const root = projectWithStore();
    mkdirSync(join(root, 'pkg'));
    const { open, calls } = memoryWith([JWT]);
    await preToolUse(payload('Write', 'lib/x.ts', join(root, 'pkg')), { cwd: tempDir(), env: {}, openMemory: open });
    expect(calls[0]?.file).toBe('pkg/lib/x.ts');
  });

  it('says nothing for tools other than Edit, Write and MultiEdit', async () => {
    const root = projectWithStore();
    const { open, calls } = memoryWith([JWT]);
    for (const tool of ['Bash', 'Read', 'NotebookEdit']) {
      expect(await preToolUse(payload(tool, join(root, 'a.ts')), { cwd: root, env: {}, openMemory: open })).toBe('');
    }
    expect(calls).toHaveLength(0);
    expect(await preToolUse(payload('MultiEdit', join(root, 'a.ts')), { cwd: root, env: {}, openMemory: open })).not.toBe('');
  });

  it('says nothing, without opening anything, when the project has no memory store', async () => {
    const root = tempGitRepo();
    const { open, calls } = memoryWith([JWT]);
    expect(await preToolUse(payload('Edit', join(root, 'a.ts')), { cwd: root, env: {}, openMemory: open })).toBe('');
    expect(calls).toHaveLength(0);
    expect(existsSync(join(root, '.helix'))).toBe(false);
  });

  it('honours HELIX_DB_PATH', async () => {
    const root = tempGitRepo();
    writeFileSync(join(root, 'custom.db'), '');
    const { open, calls } = memoryWith([JWT]);
    await preToolUse(payload('Edit', join(root, 'a.ts')), { cwd: root, env: { HELIX_DB_PATH: 'custom.db' }, openMemory: open });
    expect(calls[0]?.dbPath).toBe(join(root, 'custom.db'));
  });

  it('lists systemic memories first', async () => {
    const root = projectWithStore();
    const systemic: HookRecalledMemory = { ...JWT, name: 'repeated-timeout', type: 'systemic', trigger: 'Repeated: timeout', resolution: 'raise it' };
    const { open } = memoryWith([JWT, systemic]);
    const out = await preToolUse(payload('Edit', join(root, 'a.ts')), { cwd: root, env: {}, openMemory: open });
    const context = (JSON.parse(out) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
    expect(context.split('\n')[1]).toMatch(/^- \[67%\] repeated-timeout \(systemic: seen 3 times/);
    expect(context.split('\n')[2]).toContain('jwt-expiry-in-seconds');
  });

  it('says nothing when no memory is relevant', async () => {
    const root = projectWithStore();
    const { open } = memoryWith([]);
    expect(await preToolUse(payload('Edit', join(root, 'a.ts')), { cwd: root, env: {}, openMemory: open })).toBe('');
  });

  it('says nothing on malformed input or a store that fails to open or to recall', async () => {
    const root = projectWithStore();
    const ctx = { cwd: root, env: {} };
    const { open } = memoryWith([JWT]);
    for (const stdin of ['', 'not json', 'null', '[]', '{"tool_name":"Edit"}', '{"tool_name":"Edit","tool_input":{"file_path":7}}']) {
      expect(await preToolUse(stdin, { ...ctx, openMemory: open })).toBe('');
    }
    const failingOpen: OpenHookMemory = async () => {
      throw new Error('database disk image is malformed');
    };
    expect(await preToolUse(payload('Edit', join(root, 'a.ts')), { ...ctx, openMemory: failingOpen })).toBe('');
    let closed = false;
    const failingRecall: OpenHookMemory = async () => ({
      recallForFile: async () => {
        throw new Error('no such table: memories');
      },
      systemicWarnings: () => [],
      recordSessionEnd: async () => undefined,
      health: async () => ({ status: 'HEALTHY', total_memories: 0 }),
      close: () => {
        closed = true;
      },
    });
    expect(await preToolUse(payload('Edit', join(root, 'a.ts')), { ...ctx, openMemory: failingRecall })).toBe('');
    expect(closed).toBe(true);
  });
});

describe('session-start hook', () => {
  const health: HookMemoryHealth = {
    status: 'NEEDS_ATTENTION',
    total_memories: 12,
    by_type: { failure: 9, pattern: 3, systemic: 0 },
    with_feedback: 0,
    effectiveness: 0.5,
    embedder: 'lexical-v1-384',
    issues: ['No feedback recorded - learning loop not closed'],
  };

  it('finds the project from a subfolder, makes .helix/ (excluded from git) and reports memory health in one paragraph', async () => {
    const root = tempGitRepo();
    mkdirSync(join(root, 'src/deep'), { recursive: true });
    const { open, calls } = memoryWith([], health);
    const out = await sessionStart({ cwd: join(root, 'src/deep'), env: {}, openMemory: open });
    expect(existsSync(join(root, '.helix'))).toBe(true);
    expect(readFileSync(join(root, '.git/info/exclude'), 'utf8')).toMatch(/^\.helix\/$/m);
    expect(calls[0]?.dbPath).toBe(join(root, '.helix/helix.db'));
    expect(out.trimEnd().split('\n')).toHaveLength(1);
    expect(out).toContain(`helix: project ${root}; memory NEEDS_ATTENTION: 12 memories (9 failure, 3 pattern), 0 with feedback`);
    expect(out).toContain('issues: No feedback recorded - learning loop not closed');
    expect(out).toContain('UTILIZED: [names]');
  });

  it('lists the systemic warnings in one brief line after the paragraph: name, times seen, the situation without its label; no resolution', async () => {
    const root = tempGitRepo();
    const long = `Repeated: ${'integration tests fail with address already in use '.repeat(3)}`;
    const warnings: HookRecalledMemory[] = [
      { name: 'repeated-port-clash', type: 'systemic', trigger: long, resolution: 'use testdb.New(t)', effectiveness: null, seen: 5 },
      { name: 'repeated-gen-drift', type: 'systemic', trigger: 'Repeated: generated code out of date', resolution: 'run make generate', effectiveness: null },
    ];
    const { open } = memoryWith(warnings, health);
    const lines = (await sessionStart({ cwd: root, env: {}, openMemory: open })).trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^helix: project /);
    expect(lines[1]).toBe(
      "helix: systemic warnings in this project's memory, shown in full before an edit or task they fit: " +
        'repeated-port-clash (seen 5 times: integration tests fail with address already in use integration tests fail wit...); ' +
        'repeated-gen-drift (seen 3 times: generated code out of date).',
    );
    expect(lines.join('\n')).not.toMatch(/testdb|make generate|WARNING/);
  });

  it('adds .helix/ to .git/info/exclude only once', async () => {
    const root = tempGitRepo();
    const { open } = memoryWith([], health);
    await sessionStart({ cwd: root, env: {}, openMemory: open });
    await sessionStart({ cwd: root, env: {}, openMemory: open });
    expect(readFileSync(join(root, '.git/info/exclude'), 'utf8').match(/^\.helix\/$/gm)).toHaveLength(1);
  });

  it('prefers CLAUDE_PROJECT_DIR', async () => {
    const root = tempGitRepo();
    const { open } = memoryWith([], health);
    const out = await sessionStart({ cwd: tempDir(), env: { CLAUDE_PROJECT_DIR: root }, openMemory: open });
    expect(out).toContain(`helix: project ${root};`);
  });

  it('still answers when the memory store cannot be opened', async () => {
    const root = tempGitRepo();
    const out = await sessionStart({
      cwd: root,
      env: {},
      openMemory: async () => {
        throw new Error('memory module not available: not installed');
      },
    });
    expect(out).toContain('memory unavailable (memory module not available: not installed); edits go on without injected memories');
  });

  it('leaves out the mean effectiveness while no memory has feedback', () => {
    const line = describeHealth({ ...health, with_feedback: 0, effectiveness: 0 });
    expect(line).not.toContain('effectiveness');
    expect(describeHealth({ ...health, with_feedback: 4, effectiveness: 0.625 })).toContain('4 with feedback, mean effectiveness 0.63');
  });

  it('describes an empty store plainly', () => {
    expect(describeHealth({ status: 'NEEDS_ATTENTION', total_memories: 0, issues: ['No memories yet'] })).toBe('memory is empty (no memories yet)');
  });
});

describe('helix hook (the real process)', () => {
  const sample = (root: string) => payload('Edit', join(root, 'src/app.ts'), root);

  it('pre-tool-use exits 0 and prints nothing when there is no memory store', () => {
    const root = tempGitRepo();
    const r = helix(['hook', 'pre-tool-use'], { cwd: root, input: sample(root) });
    expect(r).toEqual({ status: 0, stdout: '', stderr: '' });
  });

  it('pre-tool-use exits 0 and prints nothing for a corrupt memory database', () => {
    const root = tempGitRepo();
    mkdirSync(join(root, '.helix'));
    writeFileSync(join(root, '.helix/helix.db'), 'this is not a sqlite database\n'.repeat(200));
    const r = helix(['hook', 'pre-tool-use'], { cwd: root, input: sample(root) });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
  });

  it('pre-tool-use exits 0 and prints nothing for garbage on stdin', () => {
    const r = helix(['hook', 'pre-tool-use'], { cwd: tempDir(), input: '\u0000{{{' });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
  });

  it('session-start exits 0, makes .helix/ and prints one paragraph', () => {
    const root = tempGitRepo();
    const r = helix(['hook', 'session-start'], { cwd: root });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^helix: project ${root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}; .*UTILIZED: \\[names\\].*\\n$`));
    expect(existsSync(join(root, '.helix'))).toBe(true);
  });

  it('rejects an unknown event with exit 1', () => {
    const r = helix(['hook', 'post-tool-use'], { cwd: tempDir() });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('helix hook: unknown event: post-tool-use');
  });
});

// Runs once src/memory is built into dist/ (it lands from another branch): the real store, the
// real hook process, no stand-ins.
const memoryBuilt = existsSync(join(REPO_ROOT, 'dist/memory/index.js'));
describe.skipIf(!memoryBuilt)('helix hook with the real memory store', () => {
  async function storeWith(root: string, memories: { trigger: string; resolution: string; type?: string }[]) {
    const path = join(REPO_ROOT, 'dist/memory/index.js');
    const mod = (await import(path)) as {
      openMemoryStore(o: { dbPath: string; env: NodeJS.ProcessEnv; warn: () => void }): {
        store(input: { trigger: string; resolution: string; type?: string }): Promise<{ name: string }>;
        close(): void;
      };
    };
    const store = mod.openMemoryStore({ dbPath: join(root, '.helix/helix.db'), env: { HELIX_EMBEDDER: 'lexical' }, warn: () => undefined });
    try {
      const names: string[] = [];
      for (const m of memories) names.push((await store.store(m)).name);
      return names;
    } finally {
      store.close();
    }
  }

  it('pre-tool-use names the memory that mentions the edited file, in valid PreToolUse JSON', async () => {
    const root = tempGitRepo();
    const [jwt] = await storeWith(root, [
      { trigger: 'JWT expiry check in src/auth.ts compared milliseconds with seconds', resolution: 'compare exp with Date.now() / 1000' },
      { trigger: 'CSV export of invoices drops the last row', resolution: 'flush the writer before closing the stream' },
    ]);
    const r = helix(['hook', 'pre-tool-use'], { cwd: root, input: payload('Edit', join(root, 'src/auth.ts'), root) });
    expect(r.status).toBe(0);
    const context = (JSON.parse(r.stdout) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } }).hookSpecificOutput;
    expect(context.hookEventName).toBe('PreToolUse');
    expect(context.additionalContext).toContain(`[unproven] ${jwt} (failure)`);
    expect(context.additionalContext).not.toContain('CSV export');
  });

  it('session-start reports the store\'s health', async () => {
    const root = tempGitRepo();
    await storeWith(root, [{ trigger: 'vitest hangs when a child process is left running', resolution: 'kill it in afterEach' }]);
    const r = helix(['hook', 'session-start'], { cwd: root });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('memory NEEDS_ATTENTION: 1 memory (1 failure)');
    expect(r.stdout).toContain('No feedback recorded');
  });
});
