// The first night with nothing configured (issue 30), run as a user runs helix: `PATH` and `HOME`
// only (world.ts), the real codex and claude CLIs against the model stand-in, and — when
// HELIX_TEST_DDX names them — the real DDx v0.6.1 and current binaries. No test here sets a HELIX_*
// or DDX_* variable; flags are what a user types. Each numbered defect of issue 30 has a test:
//   1 the primary agent is the one installed, and --model reaches the builds .... "a bead builds …"
//   2 the review goes to an installed agent ........................................ "a bead builds …" (v0.6.1 and direct: --review-threshold 0)
//   3 a limit, setup or infrastructure failure is no attempt, park or memory ........ "a rate limit through DDx …", "setup …"
//   4 a usage or rate limit through DDx is a pause ................................. "a rate limit through DDx …", "a spent subscription window …"
//   5 every call DDx makes is on the bill ......................................... "a bead builds …" (current: the bill)
//   7 ready as the project's DDx reads it ......................................... "ready as current DDx reads it"
//   8 the first run after `ddx init` builds ........................................ every DDx cell starts from `ddx init`
// (6, HELIX_DIRECT_AGENT's one rule, is a setting: this lane sets none; docs/agents.md states it.)
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bead } from '../helpers/bead.js';
import { type Api, LIMITS, type ModelApi, type Step } from '../e2e/model-api.js';
import { tokensSent, withModelApi } from '../e2e/real-cli-project.js';
import { CODEX_CONFIG_MODEL, INSTALLS, type Install, Night, realDdx } from './world.js';

let api: ModelApi;
withModelApi((started) => {
  api = started;
});

const ID = 'hx-night001';
const task = () => bead({ id: ID, title: 'Greet the world', description: 'Create hello.txt that says hello.', acceptance: 'hello.txt exists and says hello' });
type Path = 'direct' | '0.6.1' | 'current';
const DDX = realDdx();
const PATHS: Path[] = ['direct', '0.6.1', 'current'];

/** The model a cell names: claude's, as issue 30 measured it; current DDx routes no harness without one (this build). */
function modelFor(install: Install, path: Path): string | undefined {
  if (install === 'claude') return 'claude-sonnet-4-5';
  if (path === 'current') return install === 'codex' ? 'gpt-5-codex' : 'claude-sonnet-4-5';
  return undefined;
}

/**
 * Who builds: the one installed; with both, claude — the vendor of the model named, or, with none
 * named, the alternate of codex (the primary when both are installed).
 */
const builderOf = (install: Install): 'codex' | 'claude' => (install === 'both' ? 'claude' : install);

const WIRE = { codex: 'openai', claude: 'anthropic' } as const satisfies Record<string, Api>;
const commit = `printf 'hello\\n' > hello.txt && git add hello.txt && git commit -q -m "${ID}: greet"`;
const INTAKE = JSON.stringify({ classification: 'ready', tractability: 'atomic', score: 90, rationale: 'clear', difficulty: { estimated_difficulty: 'easy', reason: 'one file' }, readiness_checks: [], suggested_fixes: [], rewrite: null, suggested_child_beads: [], waivers_applied: [] });
const VERDICT = JSON.stringify({ schema_version: 1, verdict: 'APPROVE', summary: 'hello.txt says hello', per_ac: [{ number: 1, item: 'hello.txt exists and says hello', grade: 'pass', evidence: 'hello.txt:1' }], findings: [] });
const CLEAN_REVIEW = 'The change is right.\nREVIEW_STATUS: CLEAN\nISSUES_COUNT: 0\nFINDINGS_FILED: 0';

/** What the builder's model answers on each path: DDx's intake and review on current DDx, helix's review elsewhere. */
function buildSteps(path: Path): Step[] {
  if (path === 'direct') return [{ shell: `${commit} && helix tracker close ${ID}` }, { text: `Created hello.txt and closed ${ID}.` }];
  if (path === '0.6.1') return [{ shell: commit }, { text: 'Created hello.txt.' }];
  return [{ text: INTAKE }, { shell: commit }, { text: 'Created hello.txt.' }, { text: `\`\`\`json\n${VERDICT}\n\`\`\`` }];
}

let night: Night | undefined;
afterEach(() => night?.stopLeftovers());

function world(install: Install, path: Path, beads = [task()], login: 'api-key' | 'subscription' = 'api-key'): Night {
  const ddx = path === 'direct' ? undefined : DDX[path];
  night = new Night(api, { install, ...(ddx ? { ddx } : {}), beads, login });
  if (path !== 'direct') night.ddxInit();
  return night;
}

/** Every line of DDx's session index. */
function ddxSessions(n: Night): Array<{ tokens?: number; model?: string }> {
  const folder = join(n.root, '.ddx', 'agent-logs', 'sessions');
  return readdirSync(folder).flatMap((f) => readFileSync(join(folder, f), 'utf8').split('\n').filter(Boolean)).map((line) => JSON.parse(line) as { tokens?: number; model?: string });
}

/** The build dispatches of helix's event log (docs/events.md). */
function dispatches(n: Night): Array<{ model: string | null; agent: string }> {
  const logs = join(n.root, '.helix-logs');
  const events = readdirSync(logs).filter((f) => f.endsWith('.events.ndjson')).flatMap((f) => readFileSync(join(logs, f), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { type: string; action?: string; model: string | null; agent: string }));
  return events.filter((e) => e.type === 'dispatch' && e.action === 'build');
}

/** Tokens on every line of DDx's session index. */
const ddxSessionTokens = (n: Night): number => ddxSessions(n).reduce((sum, row) => sum + (row.tokens ?? 0), 0);

for (const path of PATHS) {
  const ddxMissing = path !== 'direct' && !DDX[path];
  describe.skipIf(ddxMissing)(`${path === 'direct' ? 'no DDx' : `DDx ${path}`}`, () => {
    for (const install of INSTALLS) {
      it(`${install} installed: a bead builds, on the installed agent, with the model it was given`, async () => {
        const n = world(install, path);
        const model = modelFor(install, path);
        const builder = builderOf(install);
        const reviewer = install === 'both' ? 'codex' : builder;
        // what each model answers: the build, then helix's own review — on current DDx, DDx's review is the build's one
        const steps: Record<'codex' | 'claude', Step[]> = { codex: [], claude: [] };
        steps[builder].push(...buildSteps(path));
        if (path !== 'current') steps[reviewer].push({ text: CLEAN_REVIEW });
        api.script('openai', steps.codex);
        api.script('anthropic', steps.claude);
        const r = await n.helix(['run', '--summary', '--max-cycles', '1', ...(path === 'current' ? [] : ['--review-threshold', '0']), ...(model ? ['--model', model] : [])]);
        expect(r.status, r.stderr).toBe(0);
        expect(n.bead(ID).status).toBe('closed');
        expect(n.git('show', 'HEAD:hello.txt')).toBe('hello\n');
        // the build went to an installed agent, with the model it was given (issue 30: 1)
        const builds = api.mainRequests(WIRE[builder]);
        expect(builds.length).toBeGreaterThan(0);
        // direct, the model reaches the request; through DDx, helix's dispatch of the build names it (DDx maps
        // names to its catalog's before it calls the CLI: v0.6.1 sent claude-sonnet-4-5 as claude-sonnet-5-5, current records sonnet)
        if (model) expect(dispatches(n).map((d) => d.model)).toEqual([model]);
        if (path === 'direct') expect(builds.map((q) => q.body.model)).toContain(model ?? (builder === 'codex' ? CODEX_CONFIG_MODEL : builds[0]?.body.model));
        if (install !== 'both') expect(api.mainRequests(WIRE[install === 'claude' ? 'codex' : 'claude'])).toEqual([]);
        // the review reached an agent that is installed and answered (issue 30: 2)
        expect(r.stderr).not.toMatch(/missing REVIEW_STATUS|binary not found|not installed/);
        if (path === 'current') {
          // every call DDx made is on the bill (issue 30: 5): what the stand-in sent for DDx's intake, build
          // and review, counted as helix counts any call (tokensSent: input, cache included, + output)
          const sent = api.usageSent(WIRE[builder]);
          const billed = tokensSent(WIRE[builder], sent);
          const total = Number(/run complete: .*?, (\d+) tokens/.exec(r.stderr)?.[1]);
          process.stdout.write(`first-night bill (${install}, current DDx): the stand-in sent ${JSON.stringify(sent)} on ${WIRE[builder]}; helix's total ${total}; DDx's own session records ${ddxSessionTokens(n)}\n`);
          expect(total).toBe(billed);
        }
      });
    }

    it.skipIf(path === 'direct')('claude installed: the memory learns from the agent through DDx — UTILIZED credits the memory it used, LEARNED is stored (issue 33)', async () => {
      const n = world('claude', path);
      const stored = JSON.parse((await n.helix(['memory', 'store', '--type', 'pattern', '--trigger', 'Greet the world: create hello.txt that says hello', '--resolution', 'write hello.txt with printf, then commit it'])).stdout) as { name: string };
      const answer = `Created hello.txt.\nUTILIZED: [${stored.name}]\nLEARNED: stage hello.txt explicitly before committing it`;
      const steps = buildSteps(path);
      steps[path === 'current' ? 2 : 1] = { text: answer };
      api.script('anthropic', steps);
      const r = await n.helix(['run', '--summary', '--max-cycles', '1', '--model', 'claude-sonnet-4-5']);
      expect(r.status, r.stderr).toBe(0);
      const after = JSON.parse((await n.helix(['memory', 'show', '--json', stored.name])).stdout) as { helped: number; failed: number };
      expect(after.helped).toBeGreaterThan(0);
      expect(after.failed).toBe(0);
      expect((await n.helix(['memory', 'recall', 'stage hello.txt explicitly before committing it'])).stdout).toContain('stage hello.txt explicitly before committing it');
    });

    it.skipIf(path === 'direct')('claude installed: a rate limit through DDx is a pause — no attempt, no park, no memory', async () => {
      const n = world('claude', path);
      api.script('anthropic', [{ limit: LIMITS.anthropicRateLimit(3600), times: Infinity }]);
      const r = await n.helix(['run', '--summary', '--max-wait', '0', '--model', 'claude-sonnet-4-5']);
      expect(r.status, r.stderr).toBe(20);
      expect(r.stderr).toMatch(/helix: stopping: LIMIT: claude rate limit/);
      expect(r.stderr).toMatch(/run complete: 0 attempted, 0 completed, 0 skipped/);
      expect(n.bead(ID).status).toBe('open');
      expect(n.bead(ID)['work-retry-after']).toBeUndefined();
      expect((await n.helix(['memory', 'list'])).stdout.trim()).toBe('0 memories');
    });

    it.skipIf(path !== 'current')("claude installed: a spent subscription window through DDx waits for its reset (past --max-wait: it says when)", async () => {
      const n = world('claude', path, [task()], 'subscription');
      const reset = new Date(Date.now() + 3 * 3_600_000);
      api.script('anthropic', [{ limit: LIMITS.anthropicSubscriptionLimit(reset), times: Infinity }]);
      const r = await n.helix(['run', '--summary', '--max-wait', '1h', '--model', 'claude-sonnet-4-5']);
      expect(r.status, r.stderr).toBe(20);
      expect(r.stderr).toMatch(/helix: stopping: LIMIT: claude usage limit: it resets at \S+, beyond --max-wait 1h/);
      expect(n.bead(ID)['work-retry-after']).toBeUndefined();
    });

    it.skipIf(path !== 'current')('claude installed, no model named: this DDx build routes no claude harness — the run stops at once and says to name a model', async () => {
      const n = world('claude', path);
      const r = await n.helix(['run', '--summary']);
      expect(r.status, r.stderr).toBe(22);
      expect(r.stderr).toMatch(/helix: stopping: SETUP: DDx could not route to the agent on hx-night001 \(.*ResolveRoute.*\); name a model DDx can route the harness to with --model/);
      expect(n.bead(ID)['work-retry-after']).toBeUndefined();
      expect(r.stderr).toMatch(/run complete: 0 attempted/);
    });

    it.skipIf(path === 'current')('claude installed: an unknown model is a setup error — the run stops at once, exit 22, nothing counted', async () => {
      const n = world('claude', path);
      api.script('anthropic', [{ limit: { status: 404, headers: {}, body: { type: 'error', error: { type: 'not_found_error', message: 'model: claude-nosuch-1' } } }, times: Infinity }]);
      const r = await n.helix(['run', '--summary', '--model', 'claude-nosuch-1']);
      expect(r.status, r.stderr).toBe(22);
      expect(r.stderr).toMatch(/helix: stopping: SETUP: the model is unknown or not available on hx-night001/);
      expect(r.stderr).toMatch(/run complete: 0 attempted/);
      expect(n.bead(ID).status).toBe('open');
    });

    it.skipIf(path !== 'current')('ready as current DDx reads it: helix tracker ready lists what `ddx bead ready` lists', async () => {
      const n = world('claude', path, [task(), bead({ id: 'hx-night002', title: 'an epic', issue_type: 'epic' }), bead({ id: 'hx-night003', title: 'hands off', 'execution-eligible': false })]);
      const ids = (text: string) => (JSON.parse(text) as Array<{ id: string }>).map((b) => b.id).sort();
      expect(ids((await n.helix(['tracker', 'ready', '--json'])).stdout)).toEqual(ids(n.ddx(['bead', 'ready', '--json']).stdout));
      // a childless epic stays (current DDx lists it); the bead marked not for execution does not
      expect(ids((await n.helix(['tracker', 'ready', '--json'])).stdout)).toEqual([ID, 'hx-night002']);
    });
  });
}

describe('no DDx: setup errors say what to fix before anything is counted', () => {
  it('claude installed, --agent codex: codex is not installed — refused before any claim, exit 11', async () => {
    const n = world('claude', 'direct');
    api.script('anthropic', []);
    const r = await n.helix(['run', '--summary', '--agent', 'codex']);
    expect(r.status, r.stderr).toBe(11);
    expect(r.stderr.trim()).toBe('helix: codex is not installed (`codex` is not on PATH): install it, or choose an installed agent (claude) with --agent or HELIX_AGENT. Nothing was claimed.');
    expect(n.bead(ID)).toMatchObject({ status: 'open' });
    expect(api.mainRequests('anthropic')).toEqual([]);
  });

  it('codex installed, a key the provider refuses (401): the run stops at once, exit 22, and says to log in', async () => {
    const n = world('codex', 'direct');
    api.script('openai', [{ limit: { status: 401, headers: {}, body: { error: { type: 'invalid_request_error', code: 'invalid_api_key', message: 'Incorrect API key provided: sk-firs***.' } } }, times: Infinity }]);
    const r = await n.helix(['run', '--summary']);
    expect(r.status, r.stderr).toBe(22);
    expect(r.stderr).toMatch(/helix: stopping: SETUP: authentication failed on hx-night001 \(.*401 Unauthorized.*\); log the agent CLI in/);
    expect(r.stderr).toMatch(/run complete: 0 attempted/);
    expect(n.bead(ID)['work-retry-after']).toBeUndefined();
  });
});
