// Ranges every part of the spec schema shares (its own module so the flow and path schemas can
// import them without an import cycle through schema.ts).
export const LIMITS = {
  rttMs: { min: 0, max: 5000 },
  rateBps: { min: 10e3, max: 10e9 },
  ber: { min: 0, max: 1e-3 },
  runMs: { min: 1e3, max: 24 * 3600e3 },
  sampleMs: { min: 100, max: 10e3 },
  flows: 64,
  streams: 128,
} as const;
