import cron from 'node-cron';
import type { CronPort } from './ports.ts';

/** Cron through node-cron (timers unref'd: a schedule never keeps the process alive). */
export const nodeCron: CronPort = Object.freeze({
  validate: (expression: string) => cron.validate(expression),
  schedule(expression: string, fn: () => void) {
    const task = cron.schedule(expression, () => fn(), { noOverlap: true, unref: true });
    return {
      stop: () => {
        void task.destroy();
      },
    };
  },
});

/** A cron that fires only when told (tests). */
export class ManualCron implements CronPort {
  readonly tasks = new Map<number, { expression: string; fn: () => void }>();
  private seq = 0;
  validate(expression: string): boolean {
    return cron.validate(expression);
  }
  schedule(expression: string, fn: () => void): { stop(): void } {
    const id = this.seq++;
    this.tasks.set(id, { expression, fn });
    return { stop: () => this.tasks.delete(id) };
  }
  /** Fires every task with `expression` (all when omitted). */
  fire(expression?: string): number {
    let n = 0;
    for (const t of [...this.tasks.values()])
      if (expression === undefined || t.expression === expression) {
        t.fn();
        n++;
      }
    return n;
  }
}
