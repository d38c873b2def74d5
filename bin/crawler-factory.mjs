#!/usr/bin/env node
// Runs the TypeScript CLI directly (tsx), so `npx crawler-factory` works right after `npm ci` with no build step.
import { register } from 'tsx/esm/api';

register();
await import('../cli/main.ts');
