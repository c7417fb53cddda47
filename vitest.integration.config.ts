import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/integration/**/*.test.ts'],
    // the sandbox's contracts are compiled (and cached) once before any file runs
    globalSetup: ['test/integration/global-setup.ts'],
    environment: 'node',
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // Integration suites start real servers (sandbox, anvil, redis): one file at a time keeps ports and CPU sane.
    fileParallelism: false,
  },
});
