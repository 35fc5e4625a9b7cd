// `helix doctor [--fix]`: the Bash CLI's report (bash-interface §18) — its header, the tool
// checks, the `Workflows:` check and the `Result:` line — with cli.md's own checks (§2, §11) in
// place of the Bash plugin-path and project skill-link sections: the tracker's integrity, the
// installer's skill links and launcher. `--fix` repairs only what is helix's own: the tracker file
// (backed up first) and helix's links.
import { EXIT } from '../errors.js';
import { type HelixCommand, printJson, withCommonFlags } from './program.js';

type Mark = 'ok' | 'fail' | 'warn';

/** One check line: `  ✓  <name padded to 12> <detail>` (✗ failure, - warning). */
class Report {
  readonly lines: string[] = [];
  ok = 0;
  warn = 0;
  fail = 0;

  check(mark: Mark, name: string, detail: string): void {
    const symbol = mark === 'ok' ? '✓' : mark === 'fail' ? '✗' : '-';
    this.lines.push(`  ${symbol}  ${name.padEnd(12)} ${detail}`);
    this[mark]++;
  }

  /** A check line without a name column (the Bash `No agent CLI found` line). */
  plain(mark: Mark, text: string): void {
    this.lines.push(`  ${mark === 'ok' ? '✓' : mark === 'fail' ? '✗' : '-'}  ${text}`);
    this[mark]++;
  }

  section(title: string): void {
    this.lines.push('', title);
  }
}

export function registerDoctorCommand(program: HelixCommand): void {
  withCommonFlags(program.command('doctor').description('tracker integrity, tools on PATH, skill links'))
    .withGeneralUsage()
    .option('--fix', 'repair the tracker file (after a backup) and helix\'s own skill links')
    .option('--json', 'JSON report')
    .action(async (o: { fix?: boolean; json?: boolean }) => {
      const { spawnSync } = await import('node:child_process');
      const { existsSync, statSync } = await import('node:fs');
      const { homedir } = await import('node:os');
      const { fileURLToPath } = await import('node:url');
      const t = await import('../tracker/index.js');
      const { claudeRootWarning, claudeWouldRefuse, describeDdx, detectDdx, findOnPath } = await import('../agents/index.js');
      const { libraryRoot } = await import('../supervisor/prompts.js');
      const { helixVersion } = await import('./main.js');
      const links = await import('../installer/skill-links.js');
      const { claimAge, linkNote } = await import('./tracker.js');
      const store = new t.BeadStore(t.trackerDir());
      const facts = { now: new Date(), thresholdSec: t.orphanThresholdSec() };
      const helixRoot = fileURLToPath(new URL('../..', import.meta.url));
      const linkOptions = { home: process.env.HOME || homedir(), env: process.env, helixRoot };

      const fixed = o.fix ? t.fixStore(store, facts) : undefined;
      const repairs = o.fix ? links.repairSkillLinks(linkOptions) : [];
      const snapshot = store.read();
      const tracker = t.diagnose(snapshot.beads, snapshot.problems, facts, snapshot.bomLines);
      const link = store.linkTarget();
      const tools = Object.fromEntries(['ddx', 'codex', 'claude', 'git'].map((name) => [name, findOnPath(name) ?? null]));
      const ddx = await detectDdx(process.env, process.cwd());
      const skillLinks = links.inspectSkillLinks(linkOptions);
      const launcher = links.inspectLauncher(linkOptions);
      const badLinks = skillLinks.filter((l) => l.state === 'missing' || l.state === 'broken');
      const repaired = repairs.filter((r) => r.action !== 'left');
      // Advice, not a failure: claude may never be used, and only the user can say the machine is disposable.
      const warnings = tools.claude && claudeWouldRefuse(process.getuid?.(), process.env) ? [`claude: ${claudeRootWarning()}`] : [];
      const report = {
        tracker,
        link: link ?? null,
        tools,
        ddx: ddx ? { version: ddx.version ?? null, surface: ddx.surface ?? null, path: ddx.path, supported: Boolean(ddx.surface) } : null,
        warnings,
        skill_links: skillLinks,
        launcher,
        fixed: fixed ?? null,
        repaired,
      };

      if (o.json) printJson(report);
      else {
        const version = (name: string) => {
          const r = spawnSync(name, ['--version'], { encoding: 'utf8', timeout: 5000 });
          return (r.status === 0 ? `${r.stdout}`.split('\n')[0]?.trim() : '') || 'ok';
        };
        const r = new Report();
        const tool = (name: string, required: boolean) => {
          if (findOnPath(name)) r.check('ok', name, version(name));
          else if (required) r.check('fail', name, 'MISSING (required)');
          else r.check('warn', name, 'not found (optional)');
        };
        r.section('Required:');
        tool('bash', true);
        tool('git', true);
        // helix works without DDx (its own tracker, direct codex/claude): DDx counts as one of the agent CLIs.
        r.section('Agent CLIs (at least one required):');
        const agents = ['ddx', 'codex', 'claude'].filter((name) => findOnPath(name));
        for (const name of agents) {
          // which DDx, and how helix drives it (or why it cannot)
          if (name === 'ddx' && ddx) r.check(ddx.surface ? 'ok' : 'warn', 'ddx', describeDdx(ddx));
          else tool(name, false);
        }
        for (const warning of warnings) r.lines.push(`  ${warning}`);
        if (agents.length === 0) r.plain('fail', 'No agent CLI found (need at least one from: ddx agent list)');
        r.section('Optional:');
        for (const name of ['tmux', 'asciinema', 'hugo', 'docker']) tool(name, false);
        r.section('Workflows:');
        const lib = libraryRoot(process.env);
        if (existsSync(lib) && statSync(lib).isDirectory()) r.check('ok', 'workflows', lib);
        else r.check('fail', 'workflows', `NOT FOUND at ${lib}`);

        r.section('Tracker:');
        if (!existsSync(store.file)) r.check('warn', store.file, 'no tracker in this directory');
        else if (tracker.healthy) r.check('ok', store.file, `${tracker.total} beads`);
        else {
          r.check('fail', store.file, `${tracker.problems.length} damaged line(s), ${tracker.dangling.length} dangling dependency(ies), ${tracker.cycles.length} cycle(s), ${tracker.stale_claims.length} stale claim(s)`);
          for (const p of tracker.problems) r.lines.push(`       line ${p.line}: ${p.kind}: ${p.detail}`);
          for (const s of tracker.stale_claims) r.lines.push(`       stale claim: ${s.id} (${claimAge(s)}, pid=${s.pid ?? 'none'} ${s.why})`);
          for (const f of tracker.future_claims.filter((f) => !tracker.stale_claims.some((s) => s.id === f.id))) r.lines.push(`       claim dated in the future: ${f.id} (${f.ahead_sec}s ahead; its claimer still runs)`);
        }
        for (const d of tracker.ddx_damage) r.lines.push(`       DDx would damage ${d.id}: ${d.problem}`);
        if (tracker.bom_lines.length > 0) r.lines.push(`       line ${tracker.bom_lines.join(', ')}: starts with a UTF-8 byte order mark, which DDx cannot read (--fix removes it)`);
        if (link) r.lines.push(`       ${linkNote(store.file, link)}`);
        if (fixed?.backup) r.lines.push(`       fixed: backup ${fixed.backup}, ${fixed.quarantined} line(s) quarantined, ${fixed.released.length} claim(s) released`);
        for (const choice of fixed?.choices ?? []) r.lines.push(`       ${choice}`);
        for (const u of fixed?.unsettled ?? []) r.lines.push(`       ${u.id}: ${u.names} injected memory name(s) kept on the bead for the next helix run's feedback`);

        r.section('Skill links:');
        if (badLinks.length === 0) r.check('ok', 'skill links', `${skillLinks.filter((l) => l.state === 'ok').length} link(s)`);
        else r.check('fail', 'skill links', `${badLinks.length} missing or broken (run \`helix doctor --fix\` or \`helix install\`)`);
        for (const l of skillLinks.filter((x) => x.state !== 'ok')) r.lines.push(`       ${l.state}: ${l.target}${l.pointsTo ? ` -> ${l.pointsTo}` : ''}`);
        for (const rep of repaired) r.lines.push(`       ${rep.action}: ${rep.target}`);
        r.check(launcher.state === 'ok' ? 'ok' : 'warn', 'launcher', `${launcher.path} (${launcher.state})`);

        const fixedCount = repaired.length + (fixed?.backup ? 1 : 0);
        const lines = ['HELIX Doctor', '============', '', `Version:  helix ${helixVersion()}`, `Root:     ${helixRoot.replace(/\/$/, '')}`];
        if (o.fix) lines.push('Mode:     --fix (will auto-repair)');
        lines.push(...r.lines, '');
        if (fixedCount > 0) lines.push(`Fixed: ${fixedCount} items repaired`);
        if (r.fail > 0) {
          lines.push(`Result: ${r.ok} ok, ${r.warn} warnings, ${r.fail} FAILURES`);
          if (!o.fix) lines.push('Hint: run "helix doctor --fix" to auto-repair');
        } else {
          lines.push(`Result: ${r.ok} ok, ${r.warn} warnings — ready to go`);
        }
        process.stdout.write(`${lines.join('\n')}\n`);
        if (r.fail > 0 && tracker.problems.length === 0) process.exitCode = EXIT.error;
      }
      if (tracker.problems.length > 0) process.exitCode = EXIT.malformedStore;
      else if (o.json && (!tracker.healthy || badLinks.length > 0)) process.exitCode = EXIT.error;
    });
}
