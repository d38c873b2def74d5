#!/usr/bin/env node
// The `crawler-factory` executable: compiled to dist/cli/bin.js and run by plain node.
import { main } from './main.js';

process.exitCode = await main(process.argv.slice(2));
