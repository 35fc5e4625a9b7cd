// What `helix help` prints (the Bash CLI's usage, docs/contract/bash-interface.md §0.7) and what
// each command's own `--help` adds to its flags (docs/contract/cli.md §1): `run`'s quick start and
// examples, and the pointer back to the whole usage.

export const USAGE = `Usage:
  helix run [--agent <harness>] [--review-every N] [--max-cycles N] [--no-auto-align] [--no-auto-review] [--summary] [--dry-run]
  helix build [--agent <harness>] [selector]
  helix check [--agent <harness>] [scope]
  helix align [--agent <harness>] [scope]
  helix backfill [--agent <harness>] [scope]
  helix design [--agent <harness>] [--rounds N] [scope]
  helix polish [--agent <harness>] [--rounds N] [scope]
  helix doctor [--fix]
  helix start [helix run options...]
  helix stop
  helix log [-f]
  helix report [--trace] [run-id]
  helix status [--json]
  helix next
  helix review [--agent <harness>] [scope]
  helix experiment [--agent <harness>] [--close] [issue-id|goal]
  helix triage "Title" [--type task|epic|bug|chore] [ddx bead create options...]
  helix tracker <command> [args...]
  helix memory <command> [args...]
  helix install
  helix hook <event>
  helix version
  helix help

Commands:
  run         Loop over ready HELIX work, then check whether to continue
  doctor      Check installation health; --fix auto-repairs plugin symlinks and skills
  start       Launch helix run as a background process (PID file written)
  stop        Kill the background helix run cleanly
  log         The current run's events; -f follows it (bead n of m, elapsed, spend)
  report      The last run's night as one HTML page beside its log (--trace: Chrome trace JSON)
  build       Run one bounded implementation pass
  check       Run the bounded HELIX queue-health check
  align       Run reconcile-alignment for a scope (default: repo)
  backfill    Run documentation backfill for a scope (default: repo)
  design      Create a comprehensive design document through iterative refinement
  polish      Refine issues before implementation (dedup, coverage, criteria)
  next        Show recommended next issue
  status      Show tracker counts, the active run, claimed issues and the last run
  review      Fresh-eyes review of recent work
  experiment  Run one experiment iteration for metric-driven optimization
  triage      Create a bead via ddx bead create
  tracker     Manage beads: the built-in tracker, ddx bead-compatible (helix tracker --help)
  memory      The memory store: what helped and what failed (helix memory --help)
  install     Link the helix skills for Claude Code and Codex and write ~/.local/bin/helix
  hook        Claude Code hooks (session-start, post-tool-use, stop)
  version     Print the helix version
  help        Show this usage; helix <command> --help shows one command's flags

Options:
  --agent           Agent to use: codex or claude (default: HELIX_AGENT, else codex)
  --claude          Shorthand for --agent claude
  --codex           Shorthand for --agent codex
  --model           Explicit model override to pass through to DDx / the harness
  --effort          Reasoning effort: low, medium, high, max (defaults vary by action)
  --review-every    Run alignment every N completed implementation cycles
  --max-cycles      Stop after N completed implementation cycles
  --no-auto-align   Do not auto-run alignment when check returns ALIGN
  --no-auto-review  Do not run fresh-eyes review after each implementation
  --review-threshold N  Skip review for changes below N lines (default: 100)
  --review-agent    Use a different agent for reviews (default: the agent that did not build)
  --no-memory       Neither inject memories nor feed results back (HELIX_MEMORY=0)
  --max-wait D      Longest wait for usage/rate limits, Go duration (default: 6h; 0 = stop at the first)
  --max-cost USD    Stop the run once the agents report this much spent
  --max-tokens N    Stop the run once this many tokens are spent
  --max-duration D  Start no attempt once the run is this old (Go duration: 90s, 45m, 8h)
  --dry-run         Print the agent command instead of executing it
  --quiet, -q       Suppress progress output (command echo, prompt sizes)
  --summary, -s     Concise output with log-file line pointers (implies --quiet)

Environment:
  HELIX_AGENT          Default primary agent (codex or claude)
  HELIX_ALT_AGENT      Alternate agent for adversarial rotation (auto-detected; none = off)
  HELIX_REVIEW_AGENT   Agent for reviews (default: the agent that did not build)
  HELIX_AGENT_TIMEOUT  Agent timeout in seconds (default: 2700)
  HELIX_MODEL          Optional model override passed through to DDx / the harness
  HELIX_EFFORT         Optional effort override passed through to DDx / the harness
  HELIX_LIBRARY_ROOT   Override the library root that contains actions/
  HELIX_TRACKER_DIR    Override the tracker directory (default: <repo>/.ddx)
  HELIX_EXECUTOR       execute-bead (default) or execute-loop (DDx claims and closes)
  HELIX_VERIFY_CMD     Verification command run after each completed attempt
  HELIX_MEMORY         0 = the run neither injects nor feeds back memories
  HELIX_NOTIFY         A program (JSON argv array) given one JSON event on stdin at run end, stops, limits, blockers

Adversarial rotation:
  The primary agent (--agent, HELIX_AGENT) runs design, align, backfill and experiment.
  The alternate agent (HELIX_ALT_AGENT; auto, the default, is the other of codex and claude
  when it is installed and no --agent was given; none turns it off) runs build, check and
  polish; without one the primary runs them.
  Reviews run on the agent that did not build (with one agent, on that one);
  --review-agent or HELIX_REVIEW_AGENT names another.
  Concrete model selection stays with DDx or the harness unless you pass --model.

Logs:
  Session logs are written to .helix-logs/helix-YYYYMMDD-HHMMSS.log
  in the project root. All stderr output is captured for post-hoc inspection.

Notes:
  \`helix run\` remains a compatibility wrapper for supervisory routing, but
  build cycles delegate to \`ddx agent execute-bead\` (helix claims, verifies and
  closes) when that DDx surface is available; HELIX_EXECUTOR=execute-loop hands
  them to \`ddx agent execute-loop --once\` instead.
  \`helix build\` remains a compatibility wrapper for one bounded pass and
  delegates to \`ddx agent execute-bead\` after resolving a matching ready bead
  when that DDx surface is available.
  Codex runs as \`codex --dangerously-bypass-approvals-and-sandbox exec\`.
  Without DDx, helix runs codex or claude directly and uses its own tracker.
`;

/** `helix run --help`, after its flags: how a first run goes, and runs people make. */
export const RUN_HELP = `Quick start:
  helix tracker create "Add a --verbose flag"   # a bead to build (helix triage "…" too)
  helix run --summary      # build and verify each ready bead, a line per event; then ask check
  helix status             # from another terminal: counts, the active run, the last run
  helix log -f             # follow the run: bead n of m, elapsed, spend, each event
  helix report             # the morning after: the night as one page (.helix-logs/<run>.report.html)

Examples:
  helix run --dry-run                          # the exact agent command the next step would run
  helix run --summary --max-cycles 3           # stop after 3 completed beads
  helix run --agent claude --review-agent codex
  helix run --summary --max-cost 5 --max-duration 8h   # an overnight run with caps
  helix start && helix log -f                  # in the background (--summary); helix stop ends it
`;

/** The last lines of every command's own help. */
export const HELP_FOOTER = 'Every command, the environment and the notes: helix help';
