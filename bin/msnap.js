#!/usr/bin/env node
// Thin launcher: the compiled entry point does the work and decides the exit code.
import { setFlagsFromString } from 'node:v8';
import { runMain } from '../dist/cli/main.js';
import { processContext } from '../dist/cli/context.js';

// Client commands keep V8's old generation within 2x of what is live between full collections.
// Every page's response text is a large object, which only a full collection frees: by default
// the old generation grew to ~2-4x its live size (peak RSS ~155-190 MB exporting 0.7-2M rows);
// at 2x it stays ~125-130 MB (bench figure 6, target 150 MB) for ~10 full collections per
// 700k rows (at 1.5x it was ~20, a fifth of the export's CPU). `serve` keeps V8's defaults: its
// throughput figure matters more than its RSS (118 MB of 300 MB).
if (process.argv[2] !== 'serve') setFlagsFromString('--heap-growing-percent=100');

// A reader that closes early (`msnap --help | head`) is a normal end for a pipe-friendly CLI,
// not a crash: exports handle EPIPE themselves; this catches every other write (help, tables).
process.stdout.on('error', (err) => {
  if (err.code !== 'EPIPE') throw err;
});

const code = await runMain(process.argv.slice(2), processContext());
process.exitCode = code;
