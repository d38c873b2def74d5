import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['lib/**/__tests__/**/*.test.ts', 'api/**/__tests__/**/*.test.ts', 'cli/**/__tests__/**/*.test.ts'],
    env: { LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent' },
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
