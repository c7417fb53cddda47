/** Options of the market's parts: a number that must be positive, its default when not given. */
export function positiveOption(part: string): (name: string, v: number | undefined, dflt: number) => number {
  return (name, v, dflt) => {
    if (v === undefined) return dflt;
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0)
      throw new RangeError(`${part}: ${name} must be a positive number, got ${String(v)}`);
    return v;
  };
}
