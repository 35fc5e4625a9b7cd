// The tracker library: the bead file, its lock, readiness, claims with fencing, fingerprints and
// the stale-claim rule. Plain values in, plain values out; the CLI and the supervisor compose it.
export * from './bead.js';
export * from './ids.js';
export * from './bead-store.js';
export * from './tracker-dir.js';
export * from './ready.js';
export * from './fingerprint.js';
export * from './stale.js';
export * from './claim.js';
export * from './close.js';
export * from './park.js';
export * from './create.js';
export * from './update.js';
export * from './edit.js';
export * from './list.js';
export * from './init.js';
export * from './deps.js';
export * from './integrity.js';
export * from './orphans.js';
export * from './recover-orphans.js';
export * from './transfer.js';
export * from './lifecycle.js';
export * from './schema.js';
export * from './liveness.js';
export * from './backend.js';
export { MAX_PID, isPidAlive, thisMachine } from './process.js';
export { withLock, lockTimeoutMs, parseGoDurationMs, releaseLock, tryStaleBreakGuard, staleBreakGuardPath } from './lock.js';
export * from './vanished.js';
