#!/usr/bin/env node
// Thin launcher: the compiled entry point does the work and decides the exit code.
import { runMain } from '../dist/cli/main.js';
import { processContext } from '../dist/cli/context.js';

const code = await runMain(process.argv.slice(2), processContext());
process.exitCode = code;
