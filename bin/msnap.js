#!/usr/bin/env node
// Thin launcher: the compiled entry point does the work and decides the exit code.
import { runMain } from '../dist/cli/main.js';
import { processContext } from '../dist/cli/context.js';

// A reader that closes early (`msnap --help | head`) is a normal end for a pipe-friendly CLI,
// not a crash: exports handle EPIPE themselves; this catches every other write (help, tables).
process.stdout.on('error', (err) => {
  if (err.code !== 'EPIPE') throw err;
});

const code = await runMain(process.argv.slice(2), processContext());
process.exitCode = code;
