// helix's channel to the agent on current DDx. `ddx try` takes no prompt: DDx writes its own from
// the bead, and the one free-text field it renders that is not the bead's contract is `notes`
// (ae663ca012 cli/internal/agent/execute_bead.go renders them as `<notes>`). So for one attempt
// helix puts a marked block — the HELIX action to follow, `.helix/context.md` and the injected
// memories — at the end of the bead's notes, under the tracker lock, and takes it out again when
// the attempt is over. DDx commits the tracker before it runs the agent, so the block is in DDx's
// tracker commit (`chore: update tracker (execute-bead …)`). Pure text functions; the runner writes.

export const NOTES_BEGIN = '--- helix: context for this attempt (helix removes this block afterwards) ---';
export const NOTES_END = '--- helix: end of context ---';

/**
 * DDx hands its prompt to the harness as one argument (fizeau's claude and codex harnesses), which
 * Linux refuses above 128 KiB: the block stays well under that, the context is cut first.
 */
export const NOTES_BLOCK_LIMIT = 24 * 1024;

export interface NotesBlockInput {
  /** `Read and follow the action at …` (the implementation action helix would have prompted). */
  action: string;
  /** The text of `.helix/context.md` (may be empty). */
  context: string;
  /** The rendered memory block and the names it injected (undefined: none). */
  memory?: { block: string; names: string[] };
}

/** The block helix adds to the notes for one attempt. */
export function renderNotesBlock(input: NotesBlockInput): string {
  const memory = input.memory && input.memory.names.length > 0 ? [input.memory.block.trim(), `INJECTED: ${JSON.stringify(input.memory.names)}`] : [];
  const fixed = [NOTES_BEGIN, input.action, ...memory, NOTES_END];
  const room = NOTES_BLOCK_LIMIT - Buffer.byteLength(fixed.join('\n'), 'utf8') - 64;
  const context = cutToBytes(input.context.trim(), Math.max(0, room));
  return [NOTES_BEGIN, input.action, ...(context ? ['', context] : []), ...(memory.length > 0 ? ['', ...memory] : []), NOTES_END].join('\n');
}

/** The notes without helix's block (and without the blank line that joined it). */
export function withoutNotesBlock(notes: string): string {
  const start = notes.indexOf(NOTES_BEGIN);
  if (start < 0) return notes;
  const end = notes.indexOf(NOTES_END, start);
  const after = end < 0 ? '' : notes.slice(end + NOTES_END.length);
  return `${notes.slice(0, start).replace(/\n+$/, '')}${after.replace(/^\n+/, after.trim() ? '\n' : '')}`;
}

/** The notes with this attempt's block at the end (a stale block is replaced). */
export function withNotesBlock(notes: string, block: string): string {
  const kept = withoutNotesBlock(notes).replace(/\n+$/, '');
  return kept ? `${kept}\n\n${block}` : block;
}

export const hasNotesBlock = (notes: unknown): boolean => typeof notes === 'string' && notes.includes(NOTES_BEGIN);

function cutToBytes(text: string, limit: number): string {
  if (Buffer.byteLength(text, 'utf8') <= limit) return text;
  const marker = '\n[… cut by helix to fit DDx\'s prompt]';
  let cut = Buffer.from(text, 'utf8').subarray(0, Math.max(0, limit - marker.length)).toString('utf8');
  cut = cut.replace(/\uFFFD$/, ''); // a character split by the cut
  return `${cut}${marker}`;
}
