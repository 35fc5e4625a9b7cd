// helix's own version (package.json), read once: printed by `helix --version` and recorded in the
// memory store beside each schema version it applies, so an older helix can say which one it needs.
import { readFileSync } from 'node:fs';

let version: string | undefined;

export function helixVersion(): string {
  version ??= (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  return version;
}
