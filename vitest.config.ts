import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // test/docs: the docs check, which runs the README's and docs/' runnable examples against the built bin.
    include: [
      'lib/**/__tests__/**/*.test.ts',
      'api/**/__tests__/**/*.test.ts',
      'cli/**/__tests__/**/*.test.ts',
      'test/**/*.test.ts',
      'scripts/**/__tests__/**/*.test.ts',
    ],
    env: { LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent' },
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Most suites wait on servers, processes and sleeps rather than compute: two files at once (vitest's default is one
    // on two cores), so CI stays well under its 15 minutes.
    maxWorkers: 2,
  },
});
