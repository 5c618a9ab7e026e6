#!/usr/bin/env node
// Thin launcher: the compiled entry point does the work and decides the exit code.
import { setFlagsFromString } from 'node:v8';
import { runMain } from '../dist/cli/main.js';
import { processContext } from '../dist/cli/context.js';
import { describeFsError } from '../dist/cli/output/files/fs-error.js';

// Client commands keep V8's old generation within 1.5x of what is live between full collections.
// An export's pages each live through a young collection or two and are promoted, so by default
// the old generation grew to ~2-4x its live size: peak RSS ~165-190 MB exporting 0.7-2M rows,
// ~135 MB with this (bench figure 6, target 150 MB), for a few more full collections. `serve`
// keeps V8's defaults: its throughput figure matters more than its RSS (118 MB of 300 MB).
//
// They also compile WebAssembly with V8's baseline compiler only. The one module a client loads is
// undici's HTTP parser (llhttp), which V8 otherwise recompiles with its optimizing compiler in
// the background once warm: ~0.1 s of CPU per export (perf record) and 15-20 MB of peak RSS
// (CSV and Parquet exports alike), for a parser that reads only each response's headers.
// (Raising the tier-up budget instead saved the CPU but cost Parquet exports 15 MB of RSS;
// --no-wasm-tier-up does not stop V8's dynamic tier-up.)
if (process.argv[2] !== 'serve') {
  setFlagsFromString('--heap-growing-percent=50');
  setFlagsFromString('--liftoff-only');
}

// A reader that closes early (`msnap --help | head`) is a normal end for a pipe-friendly CLI,
// not a crash. Exports handle stdout's errors themselves (their sink listens too); any other
// write that fails (help on a full disk) ends the run with one line and exit 10, not a stack trace.
process.stdout.on('error', (err) => {
  if (err.code === 'EPIPE' || process.stdout.listenerCount('error') > 1) return;
  process.stderr.write(`msnap: cannot write stdout: ${describeFsError(err)}\n`);
  process.exit(10);
});

const code = await runMain(process.argv.slice(2), processContext());
process.exitCode = code;
