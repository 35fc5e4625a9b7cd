// Which command tree a DDx version has, from its version string alone (DocumentDrivenDX/ddx):
//   v0.6.0 – v0.6.2-alpha49: `ddx agent execute-bead / run / execute-loop` ('agent');
//   v0.6.2-alpha50 and later: `ddx try / run / work` ('current'; ff517d81c4 removed `ddx agent`).
// Shared by the agents module (which DDx is installed) and the tracker (which DDx a project was
// set up with: `.ddx/versions.yaml`), so it lives at the top with the other plain facts.

export type DdxSurfaceKind = 'agent' | 'current';

export interface DdxVersion {
  major: number;
  minor: number;
  patch: number;
  /** The alpha number of a v0.6.2-alphaN pre-release; undefined for a release. */
  alpha: number | undefined;
}

export function parseDdxVersion(text: string): DdxVersion | undefined {
  const match = /^DDx v?(\d+)\.(\d+)\.(\d+)(?:-alpha(\d+))?\b/m.exec(text);
  if (!match) return undefined;
  return { major: Number(match[1]), minor: Number(match[2]), patch: Number(match[3]), alpha: match[4] === undefined ? undefined : Number(match[4]) };
}

/** The surface a DDx version has, from the source (see the header); undefined: too old. */
export function surfaceOfVersion(v: DdxVersion): DdxSurfaceKind | undefined {
  const base = v.major * 1_000_000 + v.minor * 1000 + v.patch;
  if (base < 6000) return undefined; // before v0.6.0
  if (base < 6002) return 'agent'; // v0.6.0, v0.6.1 and their pre-releases
  if (base === 6002 && v.alpha !== undefined) return v.alpha < 50 ? 'agent' : 'current';
  return 'current'; // v0.6.2 and later releases
}

/**
 * The surface of the DDx a project was set up with, from the `ddx_version` DDx writes into
 * `.ddx/versions.yaml` (`ddx_version: "v0.6.2-alpha164"`); undefined when the file names none.
 */
export function projectDdxSurface(versionsYaml: string): DdxSurfaceKind | undefined {
  const match = /^ddx_version:\s*"?v?([^"\s]+)"?\s*$/m.exec(versionsYaml);
  const version = match ? parseDdxVersion(`DDx v${match[1]}`) : undefined;
  return version ? surfaceOfVersion(version) : undefined;
}
