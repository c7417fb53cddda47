import { describe, expect, it } from 'vitest';
import { nodeCron } from '../../../src/engine/cron.ts';
import { ManualCron } from './fixtures.ts';

describe('cron', () => {
  it('node-cron adapter validates expressions and fires a seconds schedule until stopped', async () => {
    expect(nodeCron.validate('*/5 * * * *')).toBe(true);
    expect(nodeCron.validate('*/10 * * * * *')).toBe(true);
    expect(nodeCron.validate('every minute')).toBe(false);
    let fired = 0;
    let task: { stop(): void } | undefined;
    await new Promise<void>((resolve) => {
      task = nodeCron.schedule('* * * * * *', () => {
        fired++;
        resolve();
      });
    });
    task?.stop();
    const after = fired;
    expect(after).toBeGreaterThanOrEqual(1);
    await new Promise((r) => setTimeout(r, 1200));
    expect(fired).toBe(after);
  });

  it('manual cron fires only what matches, and stop removes a task', () => {
    const cron = new ManualCron();
    const log: string[] = [];
    const a = cron.schedule('*/5 * * * *', () => log.push('a'));
    cron.schedule('0 * * * *', () => log.push('b'));
    expect(cron.fire('*/5 * * * *')).toBe(1);
    a.stop();
    expect(cron.fire()).toBe(1);
    expect(log).toEqual(['a', 'b']);
  });
});
