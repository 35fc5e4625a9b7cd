// The helix version, in one place: package.json's `version` field, read once. bin/helix answers
// `--version` with it (bundled as dist/fast/version.cjs for the CommonJS launcher), `helix
// doctor` prints it in its header, and the memory store records it beside each schema version it
// applies, so an older helix can say which one it needs.
import { readFileSync } from 'node:fs';

let version: string | undefined;

export function helixVersion(): string {
  version ??= (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  return version;
}
