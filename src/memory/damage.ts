// A memory store whose file is damaged — a corrupt page, or not an SQLite file at all — shows it
// only when a query first reads the bad page, anywhere in the memory code. Such an error is told
// as one line (exit 10, storeUnavailable) naming the file and what to do, never as a stack.
// Kept free of better-sqlite3 so the CLI's error mapping can use it without loading SQLite.

/** SQLite's result codes for a damaged file (better-sqlite3 puts the extended code on `code`). */
const DAMAGE = /^SQLITE_(CORRUPT|NOTADB)/;

/** The store this process opened last: the one a damage error is about. */
let openedPath: string | undefined;

export function noteOpenedStore(path: string): void {
  openedPath = path;
}

export function isDamage(error: unknown): boolean {
  return DAMAGE.test((error as { code?: unknown } | undefined)?.code?.toString() ?? '');
}

/** The one line for a damaged store, or undefined when `error` is something else. */
export function damagedStoreMessage(error: unknown, path: string | undefined = openedPath): string | undefined {
  if (!isDamage(error)) return undefined;
  const { code, message } = error as { code: string; message: string };
  const where = path ? `${path} ` : '';
  return `helix memory: the memory database ${where}is damaged (${message}, ${code}): move it aside to start a new one, or restore a copy`;
}
