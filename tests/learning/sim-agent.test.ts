// The learning simulation's stand-in agent decides by what the injected text says
// (scripts/sim/reader.mjs), and its ablation hooks really swap the mechanism they name in the
// built helix (scripts/sim/ablation-hooks.mjs) — checked here against the current dist/.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain ES module without types
import { decide, evidence, readMemoryBlock } from '../../scripts/sim/reader.mjs';
// @ts-expect-error plain ES module without types
import { ablationImports } from '../../scripts/sim/ablations.mjs';
// @ts-expect-error plain ES module without types
import { FAMILIES } from '../../scripts/sim/world.mjs';
import { REPO_ROOT, cleanEnv } from '../helpers/cli.js';

const payments = FAMILIES.find((f: { key: string }) => f.key === 'payments');

const block = (...lines: string[]) => ['Memories from earlier tasks (list the ones that helped as UTILIZED: [name, ...]):', ...lines, 'INJECTED: []'].join('\n');
const choose = (prompt: string, pDiscover = 0) =>
  decide({ family: payments, entries: readMemoryBlock(prompt), seed: 1, id: 'sim-1', attempt: 1, pDiscover, truth: 'exponential-jitter' });

describe('the simulated agent reads memories by their text', () => {
  it('follows the most confident memory that names a value for its setting, ties to the first shown', () => {
    const prompt = block(
      '[unproven] Payment retries -> Set retry_policy = linear-backoff in config/payments.toml. (memory: a)',
      '[67%] Task: Repair the payment webhook retries -> Approach that worked: set retry_policy = fixed-interval in config/payments.toml (memory: b)',
      '[67%] Other notes -> retry_policy to immediate (memory: c)',
      '[90%] CSV export -> set csv_encoding = utf-8 in reports/export.yml (memory: d)',
    );
    expect(choose(prompt)).toEqual({ source: 'memory', value: 'fixed-interval', memory: 'b', confidence: 0.67 });
  });

  it('treats a memory below 25% as disproven, and a rejected value as ruled out unless proven since', () => {
    const prompt = block(
      '[20%] Payment retries -> Set retry_policy = linear-backoff (memory: a)',
      '[unproven] Payment retries -> Set retry_policy = immediate (memory: b)',
      '[0%] Repair the payment webhook retries: verification failed: sim-check payments exited 1: config/payments.toml: retry_policy = immediate is rejected by the payment provider (files: config/payments.toml) -> UNRESOLVED - requires investigation (memory: f)',
    );
    const { against } = evidence(payments, readMemoryBlock(prompt));
    expect([...against]).toEqual(['immediate']);
    // Nothing trusted is left: it investigates (finds the truth when the draw allows), else
    // guesses among the values nothing speaks against.
    expect(choose(prompt, 1)).toEqual({ source: 'investigation', value: 'exponential-jitter' });
    const guess = choose(prompt, 0);
    expect(guess.source).toBe('guess');
    expect(['exponential-jitter', 'fixed-interval', 'circuit-breaker']).toContain(guess.value);
    expect(choose(block('[75%] Payment retries -> Set retry_policy = immediate (memory: b)', '[0%] X: verification failed: retry_policy = immediate is rejected -> UNRESOLVED (memory: f)'))).toMatchObject({ source: 'memory', value: 'immediate' });
  });

  it('reads a failure record\'s resolution (its LEARNED line) as advice and its trigger only as a rejection', () => {
    const prompt = block(
      'WARNING: [unproven] Repeated: Repair the payment webhook retries: verification failed: config/payments.toml: retry_policy = linear-backoff is rejected by the payment provider -> set retry_policy = circuit-breaker in config/payments.toml (memory: s) [seen 3+ times: consider an architectural fix]',
    );
    expect(choose(prompt)).toMatchObject({ source: 'memory', value: 'circuit-breaker', memory: 's' });
  });
});

describe('ablations swap one mechanism of the built helix, nothing else', () => {
  const probe = (ablate: string, code: string) => {
    const run = spawnSync(process.execPath, [...ablationImports(ablate), '--input-type=module', '-e', code], { cwd: REPO_ROOT, env: cleanEnv(), encoding: 'utf8' });
    if (run.status !== 0) throw new Error(run.stderr);
    return JSON.parse(run.stdout);
  };
  const dist = (path: string) => JSON.stringify(join(REPO_ROOT, 'dist', path));

  it('ranking: effectiveness weighs 0 in the score, the other weights stay', () => {
    expect(probe('ranking', `const m = await import(${dist('memory/constants.js')}); console.log(JSON.stringify(m.SCORE_WEIGHTS))`)).toEqual({ relevance: 0.5, effectiveness: 0, recency: 0.2 });
    expect(probe('gating', `const m = await import(${dist('memory/constants.js')}); console.log(JSON.stringify(m.SCORE_WEIGHTS))`)).toEqual({ relevance: 0.5, effectiveness: 0.3, recency: 0.2 });
  });

  it('decay: verification-gated feedback adds to helped but never to failed', () => {
    const code = `
      import { mkdtempSync } from 'node:fs'; import { tmpdir } from 'node:os'; import { join } from 'node:path';
      const m = await import(${dist('memory/index.js')});
      const store = m.openMemoryStore({ dbPath: join(mkdtempSync(join(tmpdir(), 'abl-')), 'h.db'), env: { HELIX_EMBEDDER: 'lexical' }, warn: () => {} });
      const a = (await store.store({ type: 'pattern', trigger: 'Payment retries charge twice', resolution: 'set retry_policy = immediate' })).name;
      const b = (await store.store({ type: 'pattern', trigger: 'CSV export garbles accents', resolution: 'set csv_encoding = utf-8' })).name;
      store.feedbackVerify({ taskId: 't1', verifyPassed: false, injected: [a, b] });
      store.feedbackVerify({ taskId: 't2', verifyPassed: true, injected: [a, b], utilized: [a] });
      console.log(JSON.stringify([store.get(a), store.get(b)].map((x) => [x.helped, x.failed])));`;
    expect(probe('decay', code)).toEqual([[0.5, 0], [0, 0]]);
  });

  it('credit: feedback-verify is not told the task, so an unused memory it is not about counts against it', () => {
    const code = `
      import { mkdtempSync } from 'node:fs'; import { tmpdir } from 'node:os'; import { join } from 'node:path';
      const m = await import(${dist('memory/index.js')});
      const store = m.openMemoryStore({ dbPath: join(mkdtempSync(join(tmpdir(), 'abl-')), 'h.db'), env: { HELIX_EMBEDDER: 'lexical' }, warn: () => {} });
      const fix = (await store.store({ type: 'pattern', trigger: 'Payment webhook retries charge twice', resolution: 'set retry_policy = exponential-jitter' })).name;
      const other = (await store.store({ type: 'pattern', trigger: 'Payment logs fill the disk', resolution: 'set log_level = warn in config/payments.toml' })).name;
      const task = { objective: 'Repair the payment webhook retries: customers are charged twice', files: ['config/payments.toml'] };
      const verdict = store.feedbackVerify({ taskId: 't1', verifyPassed: true, injected: [fix, other], utilized: [fix], task });
      console.log(JSON.stringify({ unhelpful: verdict.unhelpful.length, leftAlone: verdict.left_alone.length }));`;
    const built = spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: REPO_ROOT, env: cleanEnv(), encoding: 'utf8' });
    expect(JSON.parse(built.stdout)).toEqual({ unhelpful: 0, leftAlone: 1 });
    expect(probe('credit', code)).toEqual({ unhelpful: 1, leftAlone: 0 });
  });

  it("gating: feedback takes the agent's own verdict; learn: no failure memory and no pattern from LEARNED", () => {
    // One failed attempt whose agent claimed success and printed a LEARNED line, fed through the
    // built memory port: prints the injected memory's counts and how many memories exist after.
    const code = `
      import { mkdtempSync } from 'node:fs'; import { tmpdir } from 'node:os'; import { join } from 'node:path';
      const m = await import(${dist('memory/index.js')});
      const { openMemoryPort } = await import(${dist('supervisor/shell/memory-port.js')});
      const root = mkdtempSync(join(tmpdir(), 'abl-'));
      const env = { HELIX_EMBEDDER: 'lexical' };
      const seed = m.openMemoryStore({ dbPath: m.resolveDbPath(root, env), env, warn: () => {} });
      const name = (await seed.store({ type: 'pattern', trigger: 'Payment retries charge twice', resolution: 'set retry_policy = immediate' })).name;
      seed.close();
      const port = await openMemoryPort(root, env, () => {});
      const bead = { id: 'b1', title: 'Repair the payment webhook retries', status: 'open', priority: 2 };
      const output = 'UTILIZED: ["' + name + '"]\\nLEARNED: set retry_policy = immediate\\n{"bead_id":"b1","status":"success"}';
      await port.feedback({ bead, injected: [name], verified: false, output, failureDetail: 'verification failed: retry_policy = immediate is rejected' });
      port.close();
      const after = m.openMemoryStore({ dbPath: m.resolveDbPath(root, env), env, warn: () => {} });
      const memory = after.get(name);
      console.log(JSON.stringify({ counts: [memory.helped, memory.failed], memories: (await after.health()).total_memories }));`;
    // As built: verification said no, so the claimed memory failed and the failure is stored.
    const built = spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: REPO_ROOT, env: cleanEnv(), encoding: 'utf8' });
    expect(JSON.parse(built.stdout)).toEqual({ counts: [0, 0.5], memories: 2 });
    // gating: the agent said success, so the memory is credited and the LEARNED line chunked.
    expect(probe('gating', code)).toEqual({ counts: [0.5, 0], memories: 2 });
    // learn: the verdict stands, but nothing new is stored.
    expect(probe('learn', code)).toEqual({ counts: [0, 0.5], memories: 1 });
  });
});
