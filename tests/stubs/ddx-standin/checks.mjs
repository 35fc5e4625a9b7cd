// Current DDx's pre-merge checks, for the current stand-in (read from ae663ca012
// cli/internal/checks/{protocol,loader,runner}.go and agent/checks_premerge.go; measured on the
// real binary, docs/ddx.md#verified-before-it-lands):
//   - `.ddx/checks/*.yaml|*.yml`, one check a file, loaded sorted by path: `name`, `command`,
//     `when: pre_merge` (the only hook), optional `applies_to`; any other key fails the load, and a
//     load that fails preserves the attempt (`pre-merge checks setup error: …`);
//   - each runs as `sh -c <command>` in the project root after the attempt (its clone gone), with the
//     caller's environment plus BEAD_ID, DIFF_BASE, DIFF_HEAD, PROJECT_ROOT, EVIDENCE_DIR, RUN_ID and
//     CHECK_NAME; the verdict is `$EVIDENCE_DIR/$CHECK_NAME.json` {"status": pass|block|error|infra};
//   - exit 0 with pass or infra lets the land go on; block, error, an unknown status, a missing or
//     bad file and any non-zero exit (127 too) block it; `sh` that cannot start is infra.
//   - a cancelled `ddx try` (SIGINT or SIGTERM: cmd/root.go signal.NotifyContext) kills a running
//     check outright (exec.CommandContext: SIGKILL to the check's own process) and counts it
//     `infra` whatever it wrote (runner.go: `check "<name>" cancelled: context canceled`); a check
//     not yet started when the cancel came is `infra` too, never started. Infra lets the land go
//     on: DDx, cancelled, lands and closes the attempt no check passed (measured, docs/ddx.md
//     "Signals and killed attempts"). The real binary resets its handler once it has announced
//     the cancel, so a second signal (helix sends SIGTERM to the group, then to its tagged
//     processes) can kill it before it lands — a race (measured: 2 of 6 landed); the stand-in
//     always takes the landing side of it: after the first cancel it ignores further SIGINT and
//     SIGTERM, so the land is forced and deterministic. Its agent's sleeps hold a signal back until
//     the checks, where a cancel during the build counts as one after DDx's review approved it.
// Not stood in for: `applies_to` (a check applies to every attempt), running the checks in parallel,
// `checks_bypass`.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const KEYS = new Set(['name', 'command', 'when', 'applies_to']);

/** A YAML scalar as these files hold it: plain, 'single-quoted' or "double-quoted" (JSON's escapes). */
function scalar(text) {
  const value = text.trim();
  if (value.startsWith('"')) return JSON.parse(value);
  if (value.startsWith("'")) return value.slice(1, -1).replace(/''/g, "'");
  return value;
}

/** The checks of the project, or throws the loader's error. */
export function loadChecks(root) {
  const folder = join(root, '.ddx', 'checks');
  let names;
  try {
    names = readdirSync(folder).filter((n) => n.endsWith('.yaml') || n.endsWith('.yml')).sort();
  } catch {
    return [];
  }
  const checks = [];
  for (const name of names) {
    const check = {};
    for (const line of readFileSync(join(folder, name), 'utf8').split('\n')) {
      if (!line.trim() || line.trimStart().startsWith('#') || /^\s/.test(line)) continue; // comments; applies_to's entries
      const colon = line.indexOf(':');
      const key = line.slice(0, colon).trim();
      if (colon < 0 || !KEYS.has(key)) throw new Error(`${name}: field ${key || line.trim()} not found in type checks.Check`);
      if (key !== 'applies_to') check[key] = scalar(line.slice(colon + 1));
    }
    if (!check.name || !check.command) throw new Error(`${name}: name and command are required`);
    if (check.when !== 'pre_merge') throw new Error(`${name}: unsupported hook "${check.when ?? ''}"`);
    checks.push(check);
  }
  return checks;
}

/** DDx's command context: cancelled by the first SIGINT or SIGTERM; the check running then is killed. */
const context = { cancelled: false, running: undefined };

/** `ddx try`'s signal.NotifyContext: the first signal cancels (DDx's line on stderr); later ones are ignored (see above). */
export function watchCancel() {
  const cancel = () => {
    if (context.cancelled) return;
    context.cancelled = true;
    process.stderr.write('Cancel received, shutting down gracefully\n');
    context.running?.kill('SIGKILL');
  };
  process.on('SIGINT', cancel);
  process.on('SIGTERM', cancel);
}

const cancelled = (name) => ({ name, status: 'infra', message: `check "${name}" cancelled: context canceled`, exitCode: -1, stderr: '' });

/** `sh -c <command>` as exec.CommandContext runs it: { status, signal, stderr }, or { error }. */
function runShell(command, options) {
  return new Promise((resolveRun) => {
    const child = spawn('sh', ['-c', command], { ...options, stdio: ['ignore', 'ignore', 'pipe'] });
    context.running = child;
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', (error) => resolveRun({ error }));
    child.on('close', (status, signal) => resolveRun({ status, signal, stderr }));
  }).finally(() => (context.running = undefined));
}

/** One check's verdict, mapped as runner.go maps it. */
async function runCheck(check, root, env, evidenceDir) {
  if (context.cancelled) return cancelled(check.name);
  const r = await runShell(check.command, { cwd: root, env: { ...process.env, ...env, CHECK_NAME: check.name } });
  if (context.cancelled) return cancelled(check.name);
  if (r.error) return { name: check.name, status: 'infra', message: r.error.message, exitCode: -1, stderr: '' };
  const stderr = (r.stderr ?? '').trim().split('\n').slice(-5).join('\n');
  // a check ended by a signal exits -1 (Go's ExitCode)
  const code = r.status ?? -1;
  if (code !== 0) return { name: check.name, status: 'error', message: `check "${check.name}" exited ${code}: ${stderr}`, exitCode: code, stderr };
  let verdict;
  try {
    verdict = JSON.parse(readFileSync(join(evidenceDir, `${check.name}.json`), 'utf8'));
  } catch {
    return { name: check.name, status: 'error', message: `check "${check.name}" wrote no valid result file`, exitCode: 0, stderr };
  }
  const status = ['pass', 'block', 'error', 'infra'].includes(verdict?.status) ? verdict.status : 'error';
  return { name: check.name, status, message: typeof verdict?.message === 'string' ? verdict.message : '', exitCode: 0, stderr };
}

/**
 * RunPreMergeChecks for one attempt: { blocked, reason, results }. `reason` is what DDx's result
 * says of a preserved attempt: `pre-merge checks blocked: <names>` or `pre-merge checks setup error: …`.
 */
export async function runPreMergeChecks(root, { beadId, baseRev, resultRev, evidenceDir, runId }) {
  let checks;
  try {
    checks = loadChecks(root);
  } catch (error) {
    return { blocked: true, reason: `pre-merge checks setup error: ${error.message}`, results: [] };
  }
  if (checks.length === 0) return { blocked: false, results: [] };
  mkdirSync(evidenceDir, { recursive: true });
  const env = { BEAD_ID: beadId, DIFF_BASE: baseRev, DIFF_HEAD: resultRev, PROJECT_ROOT: root, EVIDENCE_DIR: evidenceDir, RUN_ID: runId };
  const results = [];
  for (const check of checks) results.push(await runCheck(check, root, env, evidenceDir));
  const blocking = results.filter((r) => r.status === 'block' || r.status === 'error');
  return blocking.length ? { blocked: true, reason: `pre-merge checks blocked: ${blocking.map((r) => r.name).join(', ')}`, results } : { blocked: false, results };
}

/** The bead events a block appends (AppendPreMergeChecksEvents): `checks-blocked` and `pre_merge_check_failed` per blocking check. */
export function blockEvents(outcome, facts) {
  return outcome.results
    .filter((r) => r.status === 'block' || r.status === 'error')
    .flatMap((r) => [
      { kind: 'checks-blocked', summary: `pre-merge check "${r.name}" returned ${r.status}`, body: `name=${r.name}\nstatus=${r.status}\nmessage=${r.message}` },
      {
        kind: 'pre_merge_check_failed',
        summary: `pre-merge checks blocked check=${r.name} status=${r.status}`,
        body: [`check_name=${r.name}`, `status=${r.status}`, `exit_code=${r.exitCode}`, `attempt_id=${facts.attemptId}`, `base_rev=${facts.baseRev}`, `result_rev=${facts.resultRev}`, `evidence_dir=${facts.evidenceDir}`, `message=${r.message}`, `stderr_tail=${r.stderr}`].join('\n'),
      },
    ]);
}
