// Side outputs a command writes besides its main result (`--trades FILE`, `--html FILE`): the
// same atomic file handling as -o, the format taken from the file's extension.
import { createExporter } from '../exporter.js';
import { resolveFormat } from '../format.js';
import { openOutputTarget } from './output-target.js';
import type { RecordSchema } from '../schemas/schema.js';
import { OutputSink } from './sink.js';

async function withFile(file: string, write: (sink: OutputSink) => Promise<void>): Promise<void> {
  const target = await openOutputTarget(file, process.pid);
  const sink = new OutputSink(target.stream);
  try {
    await write(sink);
    const wait = sink.flush();
    if (wait) await wait;
    if (sink.failure) throw sink.failure;
  } catch (err) {
    sink.detach();
    await target.abort();
    throw err;
  }
  sink.detach();
  await target.commit();
}

/** Use for a list written to its own file: CSV, NDJSON, JSON or Parquet by the file's extension. */
export async function writeListFile<T>(file: string, schema: RecordSchema<T>, rows: readonly T[]): Promise<void> {
  const format = resolveFormat({ output: file }, false);
  await withFile(file, async (sink) => {
    await createExporter({ format, sink, color: false }).list(schema, rows);
  });
}

/** Use for a ready document (an HTML page). */
export async function writeTextFile(file: string, text: string): Promise<void> {
  await withFile(file, async (sink) => {
    const wait = sink.write(text);
    if (wait) await wait;
  });
}
