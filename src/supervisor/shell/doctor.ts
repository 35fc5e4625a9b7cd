// `helix doctor [--fix]`: the checks, as rows. `gatherDoctorFacts` looks at the machine (tools on
// PATH, the DDx surface, the workflows folder, the tracker, the installer's links) and, with
// --fix, repairs what is helix's own: the tracker file (backed up first) and helix's skill links.
// `doctorRows` turns those facts into the report's sections and check lines without any effect;
// src/cli/commands/doctor.ts prints them. The layout is the Bash CLI's
// (docs/contract/bash-interface.md §18) with cli.md's own sections in place of the Bash
// plugin-path and project skill-link ones (docs/contract/cli.md §2, §11).
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { EXIT } from '../../errors.js';
import { helixVersion } from '../../version.js';
import { plural } from '../../numbers.js';
import { type DdxInstall, describeDdx, detectDdx } from '../../agents/ddx-surface.js';
import { findOnPath } from '../../agents/discovery.js';
import { claudeRootWarning, claudeWouldRefuse } from '../../agents/sandbox.js';
import { type LauncherState, type SkillLink, type SkillLinkRepair, inspectLauncher, inspectSkillLinks, repairSkillLinks } from '../../installer/skill-links.js';
import { type HookEntries, inspectHookEntries } from '../../installer/hook-entries.js';
import { BeadStore, type DoctorReport, type FixResult, claimAge, diagnose, fixStore, linkNote, orphanThresholdSec, trackerDir } from '../../tracker/index.js';
import { libraryRoot } from '../text/prompts.js';

export type Mark = 'ok' | 'fail' | 'warn';

/** One line of the report: a section heading, a counted check, or an uncounted detail line. */
export type DoctorRow =
  | { kind: 'section'; title: string }
  /** `name` absent: a check line without a name column (the Bash `No agent CLI found` line). */
  | { kind: 'check'; mark: Mark; name?: string; detail: string }
  | { kind: 'detail'; text: string };

/** The agent CLIs, of which at least one must be on PATH (DDx counts as one). */
const AGENT_TOOLS = ['ddx', 'codex', 'claude'] as const;
const REQUIRED_TOOLS = ['bash', 'git'] as const;
const OPTIONAL_TOOLS = ['tmux', 'asciinema', 'hugo', 'docker'] as const;

export interface DoctorFacts {
  fix: boolean;
  version: string;
  /** The helix checkout or package this doctor runs from. */
  helixRoot: string;
  /** Every tool the report names: its path, or null when it is not on PATH. */
  onPath: Record<string, string | null>;
  /** The first line of `<tool> --version` for the tools found (`ok` when it says nothing). */
  toolVersions: Record<string, string>;
  ddx: DdxInstall | undefined;
  /** Advice, not failures (claude as root). */
  warnings: string[];
  library: { path: string; present: boolean };
  trackerFile: string;
  trackerPresent: boolean;
  tracker: DoctorReport;
  /** Where the bead file links to, when it is a link. */
  link: string | null;
  fixed: FixResult | undefined;
  skillLinks: SkillLink[];
  launcher: { path: string; state: LauncherState };
  /** What --fix did to the links (links it left alone are not listed). */
  repaired: SkillLinkRepair[];
  /** The helix hooks in Claude Code's settings.json (`helix install --with-hooks`). */
  hooks: HookEntries;
}

export interface DoctorOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  fix: boolean;
  /** The text report prints each tool's version; the JSON one does not ask for them. */
  toolVersions: boolean;
}

function firstVersionLine(tool: string): string {
  const r = spawnSync(tool, ['--version'], { encoding: 'utf8', timeout: 5000 });
  return (r.status === 0 ? `${r.stdout}`.split('\n')[0]?.trim() : '') || 'ok';
}

export async function gatherDoctorFacts(options: DoctorOptions): Promise<DoctorFacts> {
  const { cwd, env } = options;
  const store = new BeadStore(trackerDir(cwd, env), env);
  const facts = { now: new Date(), thresholdSec: orphanThresholdSec(env) };
  const helixRoot = fileURLToPath(new URL('../../..', import.meta.url));
  const linkOptions = { home: env.HOME || homedir(), env, helixRoot };

  const fixed = options.fix ? fixStore(store, facts) : undefined;
  const repairs = options.fix ? repairSkillLinks(linkOptions) : [];
  const snapshot = store.read();
  const tools = [...REQUIRED_TOOLS, ...AGENT_TOOLS, ...OPTIONAL_TOOLS];
  const onPath = Object.fromEntries(tools.map((name) => [name, findOnPath(name, env) ?? null]));
  // DDx describes itself through its surface (describeDdx), not `--version`.
  const asked = tools.filter((name) => onPath[name] && name !== 'ddx');
  const toolVersions = options.toolVersions ? Object.fromEntries(asked.map((name) => [name, firstVersionLine(name)])) : {};
  const library = libraryRoot(env);
  return {
    fix: options.fix,
    version: helixVersion(),
    helixRoot,
    onPath,
    toolVersions,
    ddx: await detectDdx(env, cwd),
    // Advice, not a failure: claude may never be used, and only the user can say the machine is disposable.
    warnings: onPath.claude && claudeWouldRefuse(process.getuid?.(), env) ? [`claude: ${claudeRootWarning()}`] : [],
    library: { path: library, present: existsSync(library) && statSync(library).isDirectory() },
    trackerFile: store.file,
    trackerPresent: existsSync(store.file),
    tracker: diagnose(snapshot.beads, snapshot.problems, facts, snapshot.bomLines),
    // a bead file that is a link to a shared one: helix writes through it, DDx would replace it
    link: store.linkTarget() ?? null,
    fixed,
    skillLinks: inspectSkillLinks(linkOptions),
    launcher: inspectLauncher(linkOptions),
    repaired: repairs.filter((r) => r.action !== 'left'),
    hooks: inspectHookEntries(linkOptions),
  };
}

const badLinks = (facts: DoctorFacts) => facts.skillLinks.filter((l) => l.state === 'missing' || l.state === 'broken');

/** The report's sections and lines, in the order they print. */
export function doctorRows(facts: DoctorFacts): DoctorRow[] {
  const rows: DoctorRow[] = [];
  const check = (mark: Mark, name: string, detail: string) => rows.push({ kind: 'check', mark, name, detail });
  const detail = (text: string) => rows.push({ kind: 'detail', text });
  const section = (title: string) => rows.push({ kind: 'section', title });
  const tool = (name: string, required: boolean) => {
    if (facts.onPath[name]) check('ok', name, facts.toolVersions[name] ?? 'ok');
    else if (required) check('fail', name, 'MISSING (required)');
    else check('warn', name, 'not found (optional)');
  };

  section('Required:');
  for (const name of REQUIRED_TOOLS) tool(name, true);
  // helix works without DDx (its own tracker, direct codex/claude): DDx counts as one of the agent CLIs.
  section('Agent CLIs (at least one required):');
  const agents = AGENT_TOOLS.filter((name) => facts.onPath[name]);
  for (const name of agents) {
    // which DDx, and how helix drives it (or why it cannot)
    if (name === 'ddx' && facts.ddx) check(facts.ddx.surface ? 'ok' : 'warn', 'ddx', describeDdx(facts.ddx));
    else tool(name, false);
  }
  for (const warning of facts.warnings) detail(`  ${warning}`);
  if (agents.length === 0) rows.push({ kind: 'check', mark: 'fail', detail: 'No agent CLI found (need at least one from: ddx agent list)' });
  section('Optional:');
  for (const name of OPTIONAL_TOOLS) tool(name, false);
  section('Workflows:');
  if (facts.library.present) check('ok', 'workflows', facts.library.path);
  else check('fail', 'workflows', `NOT FOUND at ${facts.library.path}`);

  section('Tracker:');
  const { tracker, fixed } = facts;
  if (!facts.trackerPresent) check('warn', facts.trackerFile, 'no tracker in this directory');
  else if (tracker.healthy) check('ok', facts.trackerFile, plural(tracker.total, 'bead'));
  else {
    check('fail', facts.trackerFile, `${tracker.problems.length} damaged line(s), ${tracker.dangling.length} dangling dependency(ies), ${tracker.cycles.length} cycle(s), ${tracker.stale_claims.length} stale claim(s)`);
    for (const p of tracker.problems) detail(`       line ${p.line}: ${p.kind}: ${p.detail}`);
    for (const s of tracker.stale_claims) detail(`       stale claim: ${s.id} (${claimAge(s)}, pid=${s.pid ?? 'none'} ${s.why})`);
    for (const f of tracker.future_claims.filter((f) => !tracker.stale_claims.some((s) => s.id === f.id))) detail(`       claim dated in the future: ${f.id} (${f.ahead_sec}s ahead; its claimer still runs)`);
  }
  for (const d of tracker.ddx_damage) detail(`       DDx would damage ${d.id}: ${d.problem}`);
  if (tracker.bom_lines.length > 0) detail(`       line ${tracker.bom_lines.join(', ')}: starts with a UTF-8 byte order mark, which DDx cannot read (--fix removes it)`);
  if (facts.link) detail(`       ${linkNote(facts.trackerFile, facts.link)}`);
  if (fixed?.backup) detail(`       fixed: backup ${fixed.backup}, ${fixed.quarantined} line(s) quarantined, ${fixed.released.length} claim(s) released`);
  for (const choice of fixed?.choices ?? []) detail(`       ${choice}`);
  for (const u of fixed?.unsettled ?? []) detail(`       ${u.id}: ${u.names} injected memory name(s) kept on the bead for the next helix run's feedback`);

  section('Skill links:');
  const bad = badLinks(facts);
  if (bad.length === 0) check('ok', 'skill links', `${facts.skillLinks.filter((l) => l.state === 'ok').length} link(s)`);
  else check('fail', 'skill links', `${bad.length} missing or broken (run \`helix doctor --fix\` or \`helix install\`)`);
  for (const l of facts.skillLinks.filter((x) => x.state !== 'ok')) detail(`       ${l.state}: ${l.target}${l.pointsTo ? ` -> ${l.pointsTo}` : ''}`);
  for (const rep of facts.repaired) detail(`       ${rep.action}: ${rep.target}`);
  check(facts.launcher.state === 'ok' ? 'ok' : 'warn', 'launcher', `${facts.launcher.path} (${facts.launcher.state})`);

  section('Claude Code hooks:');
  const [mark, detailText] = hookRow(facts.hooks);
  check(mark, 'hooks', detailText);
  return rows;
}

/** The hooks row: optional (the plugin brings its own), a failure only when Claude Code would run a launcher that is gone. */
function hookRow(hooks: HookEntries): [Mark, string] {
  const again = 'run `helix install --with-hooks`';
  switch (hooks.state) {
    case 'none':
      return ['warn', `none in ${hooks.settings} (optional: \`helix install --with-hooks\` adds them; \`claude --plugin-dir\` brings its own)`];
    case 'ok':
      return ['ok', `${hooks.count} in ${hooks.settings}`];
    case 'incomplete':
      return ['warn', `${hooks.settings} lacks ${hooks.missing.join(', ')} (an older install): ${again}`];
    case 'other':
      return ['warn', `${hooks.settings} runs another checkout's ${hooks.helix}: ${again} to use this one`];
    case 'broken':
      return ['fail', `${hooks.settings} runs ${hooks.helix}, which does not exist: ${again}`];
    case 'unreadable':
      return ['warn', `cannot read the hooks: ${hooks.why}`];
  }
}

/** How many checks of each mark the rows hold (the `Result:` line). */
export function countMarks(rows: DoctorRow[]): Record<Mark, number> {
  const counts: Record<Mark, number> = { ok: 0, warn: 0, fail: 0 };
  for (const row of rows) if (row.kind === 'check') counts[row.mark]++;
  return counts;
}

/** Items --fix repaired: each link it changed, and the tracker file when it was backed up and fixed. */
export function fixedCount(facts: DoctorFacts): number {
  return facts.repaired.length + (facts.fixed?.backup ? 1 : 0);
}

/** The `--json` document. */
export function doctorJson(facts: DoctorFacts) {
  const { ddx } = facts;
  return {
    tracker: facts.tracker,
    link: facts.link,
    tools: Object.fromEntries(['ddx', 'codex', 'claude', 'git'].map((name) => [name, facts.onPath[name] ?? null])),
    ddx: ddx ? { version: ddx.version ?? null, surface: ddx.surface ?? null, path: ddx.path, supported: Boolean(ddx.surface) } : null,
    warnings: facts.warnings,
    skill_links: facts.skillLinks,
    launcher: facts.launcher,
    fixed: facts.fixed ?? null,
    repaired: facts.repaired,
    hooks: facts.hooks,
  };
}

/**
 * Damaged tracker lines: exit 6 (malformed store). Otherwise the text report fails (exit 1) on any
 * failed check; the JSON one on an unhealthy tracker, missing and broken skill links, or hooks
 * that run a launcher that is gone.
 */
export function doctorExitCode(facts: DoctorFacts, json: boolean): number {
  if (facts.tracker.problems.length > 0) return EXIT.malformedStore;
  if (json) return !facts.tracker.healthy || badLinks(facts).length > 0 || facts.hooks.state === 'broken' ? EXIT.error : EXIT.ok;
  return countMarks(doctorRows(facts)).fail > 0 ? EXIT.error : EXIT.ok;
}
