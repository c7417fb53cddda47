import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/integration/**/*.test.ts'],
    // the sandbox's contracts are compiled (and cached) once before any file runs
    globalSetup: ['test/integration/global-setup.ts'],
    environment: 'node',
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // Files run side by side: each starts its own sandbox, anvil and redis on free ports in its
    // own temp folder, and mostly waits on them (a run of every file used half a core on average),
    // so one file more than there are cores. Measured on 2 cores: one at a time 10 min (without the
    // redis and browser files), 2 files 12.7 min (with them), 3 files 9.3 min with one of the two
    // cores kept busy by another process, 4 files 7 min; every test passed in each. At most 8: each
    // file holds a sandbox, an anvil and often a daemon (a few hundred MB together).
    fileParallelism: true,
    maxWorkers: Math.min(8, Math.max(3, availableParallelism() + 1)),
  },
});
