#!/usr/bin/env node
// Development launcher: runs the TypeScript CLI from source (tsx), for tests and work before a build.
// The installed package's bin is dist/cli/bin.js, compiled JavaScript run by plain node.
import { register } from 'tsx/esm/api';

register();
await import('../cli/bin.ts');
