#!/usr/bin/env bash
# Installs helix for local agents (docs/contract/cli.md §11): links every skills/<name> of this checkout
# into the agents' skill folders, writes the ~/.local/bin/helix launcher and, with --with-hooks,
# merges the helix hooks into Claude Code's settings.json. Safe by construction: it replaces only
# symlinks that point at a helix skill folder, never writes through a link, and --uninstall removes
# only what points into this checkout.
#
# usage: install-local-skills.sh [--dry-run] [--uninstall] [--with-hooks]
# exit:  0 installed, skipped or removed; 1 bad usage or something could not be installed.
set -euo pipefail

usage() {
  cat <<'EOF'
usage: install-local-skills.sh [--dry-run] [--uninstall] [--with-hooks]

Links each helix skill into ${AGENTS_HOME:-~/.agents}/skills, ${CLAUDE_HOME:-~/.claude}/skills
and ${CODEX_HOME:-~/.codex}/skills (Codex only when CODEX_HOME is set or ~/.codex exists), and
writes an executable ~/.local/bin/helix launcher.

  --dry-run     print what would change; change nothing
  --uninstall   remove the links into this checkout, the launcher (when it is ours) and the hooks
  --with-hooks  also merge the four helix hooks (SessionStart, PreToolUse, Stop, SubagentStop)
                into Claude's settings.json
EOF
}

dry_run=0
uninstall=0
with_hooks=0
for arg in "$@"; do
  case "$arg" in
    --dry-run) dry_run=1 ;;
    --uninstall) uninstall=1 ;;
    --with-hooks) with_hooks=1 ;;
    -h | --help) usage; exit 0 ;;
    *) printf 'install-local-skills.sh: unknown option: %s\n' "$arg" >&2; usage >&2; exit 1 ;;
  esac
done

# `cd -P` resolves symlinks, so links point at the real checkout however the script was reached.
helix_root="$(cd -P -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)"
skills_src="$helix_root/skills"
launcher_dir="$HOME/.local/bin"
launcher="$launcher_dir/helix"
# The launcher's second line marks it as ours and names the checkout it runs.
launcher_marker="# helix launcher written by install-local-skills.sh for: $helix_root"
claude_home="${CLAUDE_HOME:-$HOME/.claude}"
settings="$claude_home/settings.json"
settings_tool="$helix_root/dist/installer/settings-cli.js"

changes=0
failed=0

say() { printf '%s\n' "$*"; }
warn() { printf '%s\n' "$*" >&2; }
# Runs a command, or in dry-run mode prints it instead ("would …" lines are printed by callers).
act() { if ((dry_run)); then return 0; fi; "$@"; }

# The skill folders to install into, in the order of docs/contract/cli.md §11.
target_dirs=("${AGENTS_HOME:-$HOME/.agents}/skills" "$claude_home/skills")
if [[ -n "${CODEX_HOME:-}" || -d "$HOME/.codex" ]]; then
  target_dirs+=("${CODEX_HOME:-$HOME/.codex}/skills")
fi

skill_names=()
for dir in "$skills_src"/*/; do
  dir="${dir%/}"
  [[ -f "$dir/SKILL.md" ]] && skill_names+=("$(basename -- "$dir")")
done

# A link is helix's when it points at <something>/skills/<its own name> and that folder is (or,
# when dangling, was) a helix checkout's skill: the name starts with helix- and, if the checkout
# still exists, it holds bin/helix. Another tool's link with the same name is left alone.
is_helix_skill_link() {
  local link="$1" name="$2" dest
  dest="$(readlink -- "$link")"
  [[ "$name" == helix-* ]] || return 1
  [[ "$dest" == */skills/"$name" || "$dest" == */skills/"$name"/ ]] || return 1
  dest="${dest%/}"
  [[ "$dest" == /* ]] || dest="$(dirname -- "$link")/$dest"
  local checkout="${dest%/skills/*}"
  if [[ -e "$dest" ]]; then
    [[ -f "$checkout/bin/helix" ]]
  else
    return 0
  fi
}

points_into_this_checkout() {
  local dest
  dest="$(readlink -- "$1")"
  [[ "$dest" == "$skills_src"/* ]]
}

# The nearest path on the way to $1 that exists, when it is not a directory (a file, or a link to
# one): nothing can be created below it.
non_directory_on_path() {
  local path="$1"
  while [[ ! -e "$path" && ! -L "$path" ]]; do path="$(dirname -- "$path")"; done
  [[ -d "$path" ]] && return 1
  printf '%s' "$path"
}

# Every target must be a directory (or creatable as one) before anything is written, so a refusal
# leaves the machine as it was.
check_targets() {
  local dir blocker ok=1
  for dir in "${target_dirs[@]}" "$launcher_dir"; do
    if blocker="$(non_directory_on_path "$dir")"; then
      if [[ "$blocker" == "$dir" ]]; then
        warn "install-local-skills.sh: refusing $dir: it exists and is not a directory"
      else
        warn "install-local-skills.sh: refusing $dir: $blocker exists and is not a directory"
      fi
      ok=0
    fi
  done
  ((ok))
}

link_skill() {
  local target_dir="$1" name="$2"
  local link="$target_dir/$name" src="$skills_src/$name"
  if [[ -L "$link" ]]; then
    local current
    current="$(readlink -- "$link")"
    if [[ "$current" == "$src" ]]; then
      return 0
    fi
    if is_helix_skill_link "$link" "$name"; then
      say "$( ((dry_run)) && printf 'would replace' || printf 'replaced') stale helix link: $link (was -> $current)"
      # rm on the link itself, then ln -n: never write through the old link's target.
      act rm -f -- "$link"
      act ln -sn -- "$src" "$link"
      changes=$((changes + 1))
    else
      warn "skip existing foreign symlink: $link -> $current"
    fi
  elif [[ -e "$link" ]]; then
    warn "skip existing non-symlink: $link"
  else
    say "$( ((dry_run)) && printf 'would link' || printf 'linked') $link -> $src"
    act ln -sn -- "$src" "$link"
    changes=$((changes + 1))
  fi
}

launcher_text() {
  printf '#!/usr/bin/env bash\n%s\nexec node %q "$@"\n' "$launcher_marker" "$helix_root/bin/helix"
}

launcher_is_ours() {
  [[ -f "$launcher" && ! -L "$launcher" ]] || return 1
  [[ "$(sed -n 2p -- "$launcher")" == "# helix launcher written by install-local-skills.sh for: "* ]]
}

write_launcher() {
  local text
  text="$(launcher_text)"
  if [[ -L "$launcher" ]] || { [[ -e "$launcher" ]] && ! launcher_is_ours; }; then
    warn "skip existing launcher not written by helix: $launcher"
    return 0
  fi
  if [[ -f "$launcher" && "$(cat -- "$launcher")" == "$text" && -x "$launcher" ]]; then
    return 0
  fi
  if ((dry_run)); then
    say "would write launcher $launcher -> $helix_root/bin/helix"
  else
    mkdir -p -- "$launcher_dir"
    local tmp="$launcher.tmp.$$"
    printf '%s\n' "$text" >"$tmp"
    chmod 755 -- "$tmp"
    mv -f -- "$tmp" "$launcher"
    say "wrote launcher $launcher -> $helix_root/bin/helix"
  fi
  changes=$((changes + 1))
}

# Runs the JSON merge of Claude's settings in node (arguments as an array; no eval).
settings_hooks() {
  local action="$1"
  if [[ ! -f "$settings_tool" ]]; then
    warn "install-local-skills.sh: $settings_tool is missing; run 'npm run build' in $helix_root first"
    return 1
  fi
  local args=("$settings_tool" "$action" --settings "$settings" --helix-bin "$helix_root/bin/helix")
  ((dry_run)) && args+=(--dry-run)
  local out
  out="$(node "${args[@]}")" || return 1
  if [[ "$out" != unchanged* ]]; then
    say "$out"
    changes=$((changes + 1))
  fi
}

install() {
  check_targets || exit 1
  local dir name
  for dir in "${target_dirs[@]}"; do
    if [[ ! -d "$dir" ]]; then
      if ((dry_run)); then say "would create $dir"; else mkdir -p -- "$dir"; fi
    fi
    for name in "${skill_names[@]}"; do
      link_skill "$dir" "$name"
    done
  done
  write_launcher
  for file in "$helix_root/bin/helix" "$helix_root/scripts/helix"; do
    if [[ -f "$file" && ! -x "$file" ]]; then
      say "$( ((dry_run)) && printf 'would make' || printf 'made') $file executable"
      act chmod +x -- "$file"
      changes=$((changes + 1))
    fi
  done
  if ((with_hooks)); then
    settings_hooks add || failed=1
  fi

  if ((dry_run)); then
    say "Dry run: would install skills into:"
  else
    say "Installed skills into:"
  fi
  for dir in "${target_dirs[@]}"; do say "  $dir"; done
  say "Launcher: $launcher"
  if ((changes == 0)); then
    say "Nothing to change: helix is already installed."
  fi
  case ":$PATH:" in
    *":$launcher_dir:"*) ;;
    *) say "Note: $launcher_dir is not on PATH; add it, e.g. export PATH=\"$launcher_dir:\$PATH\"" ;;
  esac
}

uninstall_all() {
  local dir entry
  for dir in "${target_dirs[@]}"; do
    [[ -d "$dir" ]] || continue
    for entry in "$dir"/* "$dir"/.[!.]*; do
      [[ -L "$entry" ]] || continue
      points_into_this_checkout "$entry" || continue
      say "$( ((dry_run)) && printf 'would remove' || printf 'removed') $entry"
      act rm -f -- "$entry"
      changes=$((changes + 1))
    done
  done
  if launcher_is_ours && [[ "$(sed -n 2p -- "$launcher")" == "$launcher_marker" ]]; then
    say "$( ((dry_run)) && printf 'would remove' || printf 'removed') launcher $launcher"
    act rm -f -- "$launcher"
    changes=$((changes + 1))
  fi
  # Only call node when the file mentions a helix hook: uninstall works without a built dist/.
  if [[ -f "$settings" ]] && grep -Eq 'hook (session-start|pre-tool-use|stop|subagent-stop)' -- "$settings"; then
    settings_hooks remove || failed=1
  fi
  if ((changes == 0)); then
    say "Nothing to remove: no helix links, launcher or hooks from $helix_root."
  fi
}

if ((${#skill_names[@]} == 0)); then
  warn "install-local-skills.sh: no skills found in $skills_src"
  exit 1
fi

if ((uninstall)); then
  uninstall_all
else
  install
fi
exit "$failed"
