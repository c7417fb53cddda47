/** Milliseconds of a duration unit as configs and flags write them: s, m, h, d. */
export const UNIT_MS: Readonly<Record<string, number>> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
