import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const STRATEGY_API = resolve(import.meta.dirname, '../../src/strategy.ts');

/**
 * Writes `bad.ts` into `dir`: a strategy (id `bad`, param `mode`) whose params pass the check in
 * the main thread and go wrong in a sweep's worker thread — mode 1 throws (the backtest rejects),
 * 2 exits the thread, 3 throws outside any promise, 100 takes memory without end, 101 never returns
 * (a loop); any other mode trades nothing. Returns its path.
 */
export function writeFailingStrategy(dir: string): string {
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
  const path = join(dir, 'bad.ts');
  writeFileSync(
    path,
    `import { defineStrategy, z } from ${JSON.stringify(STRATEGY_API)};
const inWorker = () => !process.getBuiltinModule('node:worker_threads').isMainThread;
export default defineStrategy({
  id: 'bad',
  version: '1.0.0',
  params: z.strictObject({
    mode: z.number().int().refine((m) => {
      if (!inWorker()) return true;
      if (m === 1) throw new Error('mode 1 refused at run time');
      if (m === 2) process.exit(9);
      if (m === 3) queueMicrotask(() => { throw new Error('thrown outside the backtest'); });
      if (m === 100) { const kept = []; for (;;) kept.push(new Array(100000).fill(m)); }
      if (m === 101) for (;;) {}
      return true;
    }),
  }),
  subscriptions: () => ({ events: ['listing'] }),
  onEvent: () => [],
});
`,
  );
  return path;
}
