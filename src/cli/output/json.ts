// JSON and NDJSON text for records. A JSON list is written piece by piece ('[', rows, ']') so it
// streams like NDJSON; a single result is one indented object.
import { jsonOf, type RecordSchema } from './schema.js';

/** One NDJSON line for a row. */
export function ndjsonLine<T>(schema: RecordSchema<T>, row: T): string {
  return `${JSON.stringify(jsonOf(schema, row))}\n`;
}

/** The piece of a streamed JSON array that carries row number `index` (0-based). */
export function jsonArrayItem<T>(schema: RecordSchema<T>, row: T, index: number): string {
  return `${index === 0 ? '[\n' : ',\n'}${JSON.stringify(jsonOf(schema, row))}`;
}

/** What closes a streamed JSON array of `count` rows (an empty list is `[]`). */
export function jsonArrayEnd(count: number): string {
  return count === 0 ? '[]\n' : '\n]\n';
}

/** A single result as an indented JSON object. */
export function jsonRecord<T>(schema: RecordSchema<T>, row: T): string {
  return `${JSON.stringify(jsonOf(schema, row), null, 2)}\n`;
}
