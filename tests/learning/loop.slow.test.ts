// The learning loop end to end (issue 8): real `helix run`, real tracker, real SQLite store, the
// stub `ddx` from tests/stubs. Injection before dispatch, verification-gated feedback after it,
// failure and systemic memories, the crash-safe record of injected names, and memory off/unusable.
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { INJECTED_KEY } from '../../src/tracker/index.js';
import { LOAD, Project, RUN, TWICE, WEBHOOK_BEAD, WINDOWS, injectedIn } from './memory-project.js';

const UNRELATED = { trigger: 'CSV report export garbles accented names', resolution: 'Write a UTF-8 byte order mark before the header row' };

const FAILED = { result: { status: 'execution_failed', outcome: 'error', exit_code: 1, detail: 'the agent gave up' }, exit: 1 };

/** How many of the prompts named each memory on their INJECTED line. */
function injectionCounts(prompts: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const prompt of prompts) for (const name of injectedIn(prompt) ?? []) counts[name] = (counts[name] ?? 0) + 1;
  return counts;
}

/** Normal mode: the recovery lines are detail, shown on stderr only without --summary. */
const NORMAL_RUN = RUN.filter((a) => a !== '--summary');

const read = (file: string) => readFileSync(file, 'utf8');

describe('feedback after an attempt', () => {
  it('a failed attempt lowers exactly the memories injected into it, and stores a failure memory', async () => {
    const p = new Project();
    const [windows, load, twice, unrelated] = await p.remember(WINDOWS, LOAD, TWICE, UNRELATED);
    const id = p.bead(WEBHOOK_BEAD);
    const kept = [p.keepPrompt(), p.keepPrompt(), p.keepPrompt(), p.keepPrompt()];
    p.script(kept.map((k) => ({ when: 'execute-bead', run: k.run, ...FAILED })));

    const run = p.helix(RUN);
    expect(run.status).toBe(0);
    expect(run.stderr).toMatch(/1 skipped/);
    const prompts = kept.map((k) => read(k.file));
    expect(injectedIn(prompts[0]!)?.sort()).toEqual([windows, load, twice].sort());

    const injected = injectionCounts(prompts);
    const counts = p.counts();
    // No UTILIZED line: every injected memory shares the verified outcome (failed += 0.5 a time).
    for (const [name, memory] of Object.entries(counts)) {
      expect({ name, helped: memory.helped, failed: memory.failed }).toEqual({ name, helped: 0, failed: 0.5 * (injected[name] ?? 0) });
    }
    expect(injected[unrelated!]).toBeUndefined();
    expect(counts[unrelated!]).toMatchObject({ helped: 0, failed: 0 });
    const failure = Object.values(counts).find((m) => m.type === 'failure');
    expect(failure?.trigger).toContain(`${WEBHOOK_BEAD.title}: execution_failed: the agent gave up`);
    expect(p.beads().get(id)).not.toHaveProperty(INJECTED_KEY);
  });

  it('a verified success raises every injected memory; status shows the memory line', async () => {
    const p = new Project();
    const [windows, load, twice, unrelated] = await p.remember(WINDOWS, LOAD, TWICE, UNRELATED);
    const id = p.bead(WEBHOOK_BEAD);
    const kept = p.keepPrompt();
    p.script([{ when: 'execute-bead', run: kept.run, result: {} }]);

    const run = p.helix(RUN);
    expect(run.status).toBe(0);
    expect(p.beads().get(id)).toMatchObject({ status: 'closed' });
    expect(p.beads().get(id)).not.toHaveProperty(INJECTED_KEY);
    expect(injectedIn(read(kept.file))?.sort()).toEqual([windows, load, twice].sort());
    const counts = p.counts();
    for (const name of [windows!, load!, twice!]) expect(counts[name]).toMatchObject({ helped: 0.5, failed: 0 });
    expect(counts[unrelated!]).toMatchObject({ helped: 0, failed: 0 });

    const status = p.helix(['status']);
    expect(status.stdout).toMatch(/Memory: 4 memories, 3 with feedback, effectiveness [\d.]+, embedder lexical-v1-384/);
    const json = JSON.parse(p.helix(['status', '--json']).stdout);
    expect(json.memory).toMatchObject({ total_memories: 4, with_feedback: 3 });
    expect(json.run.memory_status).toBe('on');
    // the run's event log says which memories went in and what they were credited with
    const events = read(String(json.run.events)).split('\n').filter(Boolean).map((l) => JSON.parse(l) as { type: string; bead?: string; names?: string[]; outcome?: string });
    const injected = events.find((e) => e.type === 'memory_injected');
    const credited = events.find((e) => e.type === 'memory_credited');
    expect(injected).toMatchObject({ bead: id });
    expect([...(injected?.names ?? [])].sort()).toEqual([windows, load, twice].sort());
    expect(credited).toMatchObject({ bead: id, outcome: 'success' });
    expect([...(credited?.names ?? [])].sort()).toEqual([windows, load, twice].sort());
  });

  it('verification gates the UTILIZED claim: the claimed memory helped, the others did not, unknown names are skipped', async () => {
    const p = new Project();
    const [windows, load, twice] = await p.remember(WINDOWS, LOAD, TWICE);
    p.bead(WEBHOOK_BEAD);
    p.script([{ when: 'execute-bead', stdout: `UTILIZED: ["${twice}", "no-such-memory"]\n`, result: {} }]);

    expect(p.helix(RUN).status).toBe(0);
    const counts = p.counts();
    expect(counts[twice!]).toMatchObject({ helped: 0.5, failed: 0 });
    expect(counts[windows!]).toMatchObject({ helped: 0, failed: 0.5 });
    expect(counts[load!]).toMatchObject({ helped: 0, failed: 0.5 });
    expect(Object.keys(counts).sort()).toEqual([windows, load, twice].sort());
  });

  it('a memory pruned while the agent works is skipped, the others still get their feedback', async () => {
    const p = new Project();
    // Proven useless (3 uses, effectiveness 0): still relevant enough to be injected, and prunable.
    const [windows, load, twice] = await p.remember({ ...WINDOWS, failed: 3 }, LOAD, TWICE);
    const id = p.bead(WEBHOOK_BEAD);
    const kept = p.keepPrompt();
    p.script([{ when: 'execute-bead', run: [...kept.run, ['helix', 'memory', 'prune']], result: {} }]);

    const run = p.helix(RUN);
    expect(run.status).toBe(0);
    expect(injectedIn(read(kept.file))).toContain(windows);
    expect(p.beads().get(id)).toMatchObject({ status: 'closed' });
    expect(run.stderr).not.toMatch(/memory feedback skipped/);
    const counts = p.counts();
    expect(counts).not.toHaveProperty(windows!);
    expect(counts[load!]).toMatchObject({ helped: 0.5, failed: 0 });
    expect(counts[twice!]).toMatchObject({ helped: 0.5, failed: 0 });
  });
});

describe('what the agent learned', () => {
  it('a failure keeps the LEARNED line as its resolution; a verified success with one becomes a pattern', async () => {
    const p = new Project();
    p.bead(WEBHOOK_BEAD);
    p.script([
      { when: 'execute-bead', stdout: 'LEARNED: the signing secret differs between staging and production\n', ...FAILED },
      { when: 'execute-bead', stdout: 'INSIGHT: verify the signature on the raw body before parsing the JSON\n', result: {} },
    ]);

    expect(p.helix(RUN).status).toBe(0);
    const memories = Object.values(p.counts());
    expect(memories.find((m) => m.type === 'failure')?.trigger).toContain(`${WEBHOOK_BEAD.title}: execution_failed: the agent gave up (files: src/payments/webhook.ts)`);
    const pattern = memories.find((m) => m.type === 'pattern');
    expect(pattern?.trigger).toBe(`Task: ${WEBHOOK_BEAD.title}`);
    const db = new Database(p.dbPath, { readonly: true });
    const resolutions = db.prepare('SELECT type, resolution FROM memories ORDER BY type').all();
    db.close();
    expect(resolutions).toEqual([
      { type: 'failure', resolution: 'the signing secret differs between staging and production' },
      { type: 'pattern', resolution: 'Approach that worked: verify the signature on the raw body before parsing the JSON' },
    ]);
  });
});

describe('failures keep what was learned from them', () => {
  const resolutions = (p: Project) => {
    const db = new Database(p.dbPath, { readonly: true });
    const rows = db.prepare("SELECT resolution FROM memories WHERE type = 'failure' ORDER BY id").all() as Array<{ resolution: string }>;
    db.close();
    return rows.map((r) => r.resolution);
  };

  it('two failures of one bead that learned different things are two memories, not one merged into the other', async () => {
    const p = new Project();
    p.bead(WEBHOOK_BEAD);
    // The same bead, the same failure detail; only the rejected value differs: near-duplicates by
    // cosine (the store would merge them), but two lessons.
    p.script([
      { when: 'execute-bead', stdout: 'LEARNED: config/payments.toml: retry_policy = immediate is rejected by the payment provider\n', ...FAILED },
      { when: 'execute-bead', stdout: 'LEARNED: config/payments.toml: retry_policy = linear-backoff is rejected by the payment provider\n', ...FAILED },
      { when: 'execute-bead', stdout: 'LEARNED: config/payments.toml: retry_policy = immediate is rejected by the payment provider\n', ...FAILED },
      { when: 'execute-bead', result: {} },
    ]);

    expect(p.helix(RUN).status).toBe(0);
    // The third repeats the first word for word: that one merges.
    expect(resolutions(p)).toEqual([
      'config/payments.toml: retry_policy = immediate is rejected by the payment provider',
      'config/payments.toml: retry_policy = linear-backoff is rejected by the payment provider',
    ]);
  });

  it('an attempt the agent called a success and verification refused keeps no LEARNED line as its resolution', async () => {
    const p = new Project();
    p.bead({ ...WEBHOOK_BEAD, fields: { verify: 'echo "config/payments.toml: retry_policy = immediate is rejected" && exit 1' } });
    // The agent says it is done and what worked; helix's check says otherwise, every time.
    p.script([], { 'execute-bead': { stdout: 'LEARNED: set retry_policy = immediate in config/payments.toml\n', result: {} } });

    expect(p.helix(RUN).stderr).toMatch(/1 skipped/);
    const failures = Object.values(p.counts()).filter((m) => m.type === 'failure');
    expect(failures).toHaveLength(1);
    expect(failures[0]!.trigger).toContain('verification failed: ');
    expect(failures[0]!.trigger).toContain('retry_policy = immediate is rejected');
    // The refused approach is not offered to the next agent as the fix, and nothing was chunked.
    expect(resolutions(p)).toEqual(['UNRESOLVED - requires investigation']);
    expect(Object.values(p.counts()).filter((m) => m.type === 'pattern')).toHaveLength(0);
  });
});

describe('one verified success counts once', () => {
  it('an agent that restates the pattern it used as LEARNED credits it by feedback only, not again by chunking', async () => {
    const p = new Project();
    const [pattern] = await p.remember({ trigger: `Task: ${WEBHOOK_BEAD.title}`, resolution: `Approach that worked: ${TWICE.resolution}` });
    p.bead(WEBHOOK_BEAD);
    const kept = p.keepPrompt();
    p.script([{ when: 'execute-bead', run: kept.run, stdout: `UTILIZED: ["${pattern}"]\nLEARNED: ${TWICE.resolution}\n`, result: {} }]);

    expect(p.helix(RUN).status).toBe(0);
    expect(injectedIn(read(kept.file))).toContain(pattern);
    // feedback-verify: helped += 0.5. Chunking the same approach again would have added 1 more.
    expect(p.counts()[pattern!]).toMatchObject({ helped: 0.5, failed: 0 });
    expect(Object.keys(p.counts())).toHaveLength(1);
  });
});

describe('the prompt', () => {
  it('carries confidence-tagged lines, the INJECTED list, and --summary says how many were injected', async () => {
    const p = new Project();
    const [windows, load] = await p.remember({ ...WINDOWS, helped: 1, failed: 0.5 }, LOAD);
    p.bead(WEBHOOK_BEAD);
    const kept = p.keepPrompt();
    p.script([{ when: 'execute-bead', run: kept.run, result: {} }]);

    const run = p.helix(RUN);
    expect(run.status).toBe(0);
    const prompt = read(kept.file);
    expect(prompt).toContain(`[67%] ${WINDOWS.trigger} -> ${WINDOWS.resolution} (memory: ${windows})`);
    expect(prompt).toContain(`[unproven] ${LOAD.trigger} -> ${LOAD.resolution} (memory: ${load})`);
    // The store's header asks for the UTILIZED line, once (helix adds no second header).
    expect(prompt.match(/UTILIZED: \[/g)).toHaveLength(1);
    expect(prompt).toContain('Memories from earlier tasks (list the ones that helped as UTILIZED: [name, ...]):');
    expect(injectedIn(prompt)).toEqual([windows, load]);
    expect(run.stderr).toMatch(/^helix: \[\d\d:\d\d:\d\d\] cycle 1: injected 2 memories$/m);
  });
});

describe('memory off', () => {
  for (const [how, args, env] of [
    ['run --no-memory', [...RUN, '--no-memory'], {}],
    ['HELIX_MEMORY=0', RUN, { HELIX_MEMORY: '0' }],
  ] as const) {
    it(`${how} injects nothing and leaves the store byte for byte as it was`, async () => {
      const p = new Project();
      await p.remember(WINDOWS, LOAD, TWICE);
      const before = createHash('sha256').update(readFileSync(p.dbPath)).digest('hex');
      const id = p.bead(WEBHOOK_BEAD);
      const kept = p.keepPrompt();
      p.script([{ when: 'execute-bead', run: kept.run, ...FAILED }, { when: 'execute-bead', result: {} }]);

      const run = p.helix([...args], env);
      expect(run.status).toBe(0);
      expect(p.beads().get(id)).toMatchObject({ status: 'closed' });
      const prompt = read(kept.file);
      expect(prompt).toContain('implementation action');
      expect(injectedIn(prompt)).toBeUndefined();
      expect(prompt).not.toMatch(/Memories from earlier/);
      expect(run.stderr).not.toMatch(/injected \d+ memor(y|ies)/);
      expect(createHash('sha256').update(readFileSync(p.dbPath)).digest('hex')).toBe(before);
      expect(existsSync(`${p.dbPath}-wal`)).toBe(false);
      expect(JSON.parse(p.helix(['status', '--json']).stdout).run.memory_status).toBe('off');
    });
  }
});

describe('an unusable memory store', () => {
  it('never stops the run: beads complete, it is said once, and status shows it', async () => {
    const blocker = join(new Project().root, 'a-file');
    writeFileSync(blocker, 'not a folder\n');
    const p = new Project({ HELIX_DB_PATH: join(blocker, 'helix.db') });
    const first = p.bead(WEBHOOK_BEAD);
    const second = p.bead({ title: 'Repair the CSV report export', acceptance: 'exports work' });
    p.script([{ when: 'execute-bead', ...FAILED }]);

    const run = p.helix(RUN);
    expect(run.status).toBe(0);
    expect(run.stderr).toMatch(/run complete: 3 attempted, 2 completed/);
    expect(p.beads().get(first)).toMatchObject({ status: 'closed' });
    expect(p.beads().get(second)).toMatchObject({ status: 'closed' });
    expect(run.stderr.match(/memory unavailable/g)).toHaveLength(1);
    expect(run.stderr).toMatch(/^helix: memory unavailable \(.+\); continuing without memory$/m);

    const status = p.helix(['status']);
    expect(status.stdout).toContain('Memory: unavailable during the last run (the run went on without it)');
    expect(JSON.parse(p.helix(['status', '--json']).stdout).run.memory_status).toBe('unavailable');
  });
});

describe('systemic failures', () => {
  it('the third bead failing the same way becomes a systemic memory, stops the run, and warns the next prompt', async () => {
    const p = new Project();
    const titles = ['Repair the payment webhook handler', 'Repair the CSV report export', 'Repair the image thumbnail resizer'];
    for (const title of titles) p.bead({ title, acceptance: 'it works again' });
    const failing = { result: { status: 'execution_failed', outcome: 'error', exit_code: 1, detail: "ModuleNotFoundError: No module named 'requests' while importing the billing client" }, exit: 1 };
    p.script([], { 'execute-bead': failing });

    const run = p.helix(RUN);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^helix: stopping: SYSTEMIC_FAILURE: 3 beads failed with "import" \(hx-[0-9a-f]{8}, hx-[0-9a-f]{8}, hx-[0-9a-f]{8}\)/m);
    expect(JSON.parse(read(join(p.root, '.ddx', 'run-state.json'))).stop_reason).toBe('systemic_failure');
    const memories = Object.values(p.counts());
    const systemic = memories.filter((m) => m.type === 'systemic');
    expect(systemic).toHaveLength(1);
    expect(systemic[0]!.trigger).toMatch(/^Repeated: .*ModuleNotFoundError/);
    expect(memories.filter((m) => m.type === 'failure')).toHaveLength(2);
    expect(run.stderr).toMatch(/^helix: {3}systemic: repeated-.*ModuleNotFoundError/m);

    const kept = p.keepPrompt();
    p.script([{ when: 'execute-bead', run: kept.run, result: {} }]);
    expect(p.helix([...RUN, '--max-cycles', '1']).status).toBe(0);
    expect(read(kept.file)).toMatch(/^WARNING: \[[^\]]+\] Repeated: .*ModuleNotFoundError.*\[seen \d+ times/m);
  });
});

describe('a crash between dispatch and feedback', () => {
  it('recovers the injected names from the bead and feeds them back once, not twice', async () => {
    const p = new Project();
    const names = await p.remember(WINDOWS, LOAD, TWICE);
    const id = p.bead(WEBHOOK_BEAD);
    const marker = join(p.scratch, 'dispatched');
    p.script([{ when: 'execute-bead', marker, hang: true }]);

    const crashed = p.spawnHelix(RUN);
    await waitForFile(marker);
    const bead = p.beads().get(id)!;
    expect(bead.status).toBe('in_progress');
    expect((bead[INJECTED_KEY] as string[]).sort()).toEqual([...names].sort());
    crashed.child.kill('SIGKILL');
    await crashed.exited;
    process.kill(JSON.parse(read(marker)).pid, 'SIGKILL'); // the stub helix left behind
    expect(Object.values(p.counts()).every((m) => m.helped === 0 && m.failed === 0)).toBe(true);

    p.script([{ when: 'execute-bead', result: {} }]);
    const restart = p.helix(NORMAL_RUN, { HELIX_ORPHAN_THRESHOLD: '0' });
    expect(restart.status).toBe(0);
    expect(restart.stderr).toMatch(new RegExp(`helix: reclaiming orphaned ${id} \\(age=\\d+s, pid=${crashed.child.pid} dead\\)`));
    expect(restart.stderr.match(/fed back 3 memories of the interrupted attempt/g)).toHaveLength(1);
    expect(p.beads().get(id)).toMatchObject({ status: 'closed' });
    expect(p.beads().get(id)).not.toHaveProperty(INJECTED_KEY);
    // Recovery: failed += 0.5 once for the interrupted attempt; the retry's success: helped += 0.5.
    const after = p.counts();
    for (const name of names) expect(after[name]).toMatchObject({ helped: 0.5, failed: 0.5 });

    const again = p.helix(NORMAL_RUN, { HELIX_ORPHAN_THRESHOLD: '0' });
    expect(again.status).toBe(0);
    expect(again.stderr).not.toMatch(/reclaiming orphaned/);
    expect(p.counts()).toEqual(after);
  });
});

describe('attempts that end without a verdict', () => {
  it('queue drift gives no feedback and leaves no injected names on the released bead', async () => {
    const p = new Project();
    await p.remember(WINDOWS, LOAD, TWICE);
    const id = p.bead(WEBHOOK_BEAD);
    p.script([{ when: 'execute-bead', run: [['helix', 'tracker', 'update', '{{id}}', '--set', 'spec-id=CHANGED']], result: {} }]);

    const run = p.helix(NORMAL_RUN);
    expect(run.stderr).toContain(`helix: queue drift detected for ${id}; refusing stale completion`);
    expect(p.beads().get(id)).toMatchObject({ status: 'open' });
    expect(p.beads().get(id)).not.toHaveProperty(INJECTED_KEY);
    expect(Object.values(p.counts()).every((m) => m.helped === 0 && m.failed === 0)).toBe(true);
  });

  it('an interrupted run releases the bead without feedback and without its injected names', async () => {
    const p = new Project();
    await p.remember(WINDOWS, LOAD, TWICE);
    const id = p.bead(WEBHOOK_BEAD);
    const marker = join(p.scratch, 'dispatched');
    p.script([{ when: 'execute-bead', marker, hang: true }]);

    const running = p.spawnHelix(RUN);
    await waitForFile(marker);
    expect(p.beads().get(id)).toHaveProperty(INJECTED_KEY);
    running.child.kill('SIGTERM');
    expect(await running.exited).toBe(143);
    expect(p.beads().get(id)).toMatchObject({ status: 'open' });
    expect(p.beads().get(id)).not.toHaveProperty(INJECTED_KEY);
    expect(Object.values(p.counts()).every((m) => m.helped === 0 && m.failed === 0)).toBe(true);
  });
});

async function waitForFile(path: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(path)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${path}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
