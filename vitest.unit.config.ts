import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
    // A file per core (vitest's default leaves one core out: one file at a time on two cores).
    // Many files wait on child processes (the CLI's tests spawn harpoon), so two on two cores
    // measured 121 s against 315 s one at a time; three ran no faster.
    maxWorkers: Math.max(2, availableParallelism()),
  },
});
