// Keeps this run's claims live for DDx while an agent works and its work is verified: every 30 s
// (DDx's HeartbeatInterval; its TTL is 90 s, after which a DDx worker takes the claim) each held
// claim gets fresh heartbeat keys, under the lock and only while the claim token is still ours.
import { HEARTBEAT_INTERVAL_MS, heartbeatBead } from '../../tracker/index.js';
import { UPKEEP } from '../text/lines.js';
import type { BeadWrites } from './bead-writes.js';
import type { HeldClaims } from './claims.js';

/** Starts the heartbeats of every held claim; returns the function that stops them. */
export function startHeartbeats(run: BeadWrites & { claims: HeldClaims }): () => void {
  if (run.claims.size === 0) return () => undefined;
  const timer = setInterval(() => {
    for (const [id, token] of run.claims.entries()) {
      try {
        const kept = run.store.mutate((d) => heartbeatBead(d, id, token, run.now()));
        if (!kept) run.say(UPKEEP.heartbeatLost(id));
      } catch (error) {
        run.say(UPKEEP.heartbeatFailed(id, (error as Error).message));
      }
    }
  }, HEARTBEAT_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
