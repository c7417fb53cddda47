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
