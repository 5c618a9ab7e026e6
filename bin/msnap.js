#!/usr/bin/env node
// Thin launcher: the compiled entry point does the work and decides the exit code.
import { setFlagsFromString } from 'node:v8';
import { runMain } from '../dist/cli/main.js';
import { processContext } from '../dist/cli/context.js';

// Client commands keep V8's old generation within 1.5x of what is live between full collections.
// An export's pages each live through a young collection or two and are promoted, so by default
// the old generation grew to ~2-4x its live size: peak RSS ~165-190 MB exporting 0.7-2M rows,
// ~135 MB with this (bench figure 6, target 150 MB), for a few more full collections. `serve`
// keeps V8's defaults: its throughput figure matters more than its RSS (118 MB of 300 MB).
//
// They also keep undici's HTTP parser (llhttp, WebAssembly) on V8's baseline tier: by default V8
// recompiles it with its optimizing tier in the background once warm, ~0.1 s of CPU per run (a
// tenth of an export's, perf record) and ~15 MB of peak RSS, for a parser that only reads each
// response's headers: the bodies pass through it untouched.
if (process.argv[2] !== 'serve') {
  setFlagsFromString('--heap-growing-percent=50');
  setFlagsFromString('--wasm-tiering-budget=1000000000');
}

// A reader that closes early (`msnap --help | head`) is a normal end for a pipe-friendly CLI,
// not a crash: exports handle EPIPE themselves; this catches every other write (help, tables).
process.stdout.on('error', (err) => {
  if (err.code !== 'EPIPE') throw err;
});

const code = await runMain(process.argv.slice(2), processContext());
process.exitCode = code;
