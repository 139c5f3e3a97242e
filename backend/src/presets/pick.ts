// Which runs of a preset to start: one part (default: the first), one variant of it (default: all
// of them) and a length (default: as the campaign writes it). POST /api/runs takes these fields, the
// plan endpoint prices them, and the web app's picker sends them. Browser-safe (no imports).

export interface PresetPick {
  /** A part of the preset by name (presets with several campaigns); default the first. */
  part?: string | undefined;
  /** One variant of that part by id (as POST /api/specs/validate lists them); default every one. */
  variant?: string | undefined;
  /** Every run shortened to this many seconds, parameter values kept; default full length. */
  shorten?: number | undefined;
}

/** The lengths a shortened run may have, in seconds. */
export const SHORTEN_S = { min: 2, max: 3600 } as const;

export const SHORTEN_RANGE_TEXT = `must be ${SHORTEN_S.min} to ${SHORTEN_S.max} seconds`;
