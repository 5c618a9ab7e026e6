// JSON and NDJSON text for records. A JSON list is written piece by piece ('[', rows, ']') so it
// streams like NDJSON; a single result is one indented object.
import { jsonShaper, type RecordSchema } from './schemas/schema.js';

/** One NDJSON line for a row. */
export function ndjsonLine<T>(schema: RecordSchema<T>, row: T): string {
  return ndjsonLines(schema)([row]);
}

/** Use for lists: the schema's JSON shaping compiled once, then whole pages as NDJSON lines. */
export function ndjsonLines<T>(schema: RecordSchema<T>): (rows: readonly T[]) => string {
  const shape = jsonShaper(schema);
  return (rows) => {
    let out = '';
    for (const row of rows) out += `${JSON.stringify(shape(row))}\n`;
    return out;
  };
}

/** The piece of a streamed JSON array that carries row number `index` (0-based). */
export function jsonArrayItem<T>(schema: RecordSchema<T>, row: T, index: number): string {
  return jsonArrayItems(schema)([row], index);
}

/** Use for lists: pages of a streamed JSON array, `first` being the 0-based number of the page's first row. */
export function jsonArrayItems<T>(schema: RecordSchema<T>): (rows: readonly T[], first: number) => string {
  const shape = jsonShaper(schema);
  const indent = schema.jsonIndent;
  // Indented as the row would be inside JSON.stringify(rows, null, indent).
  const text =
    indent === undefined
      ? (row: T) => JSON.stringify(shape(row))
      : (row: T) => JSON.stringify(shape(row), null, indent).replace(/^/gm, ' '.repeat(indent));
  return (rows, first) => {
    let out = '';
    let index = first;
    for (const row of rows) {
      out += `${jsonArraySeparator(index)}${text(row)}`;
      index += 1;
    }
    return out;
  };
}

/** What comes before row number `index` (0-based) of a streamed JSON array. */
export function jsonArraySeparator(index: number): string {
  return index === 0 ? '[\n' : ',\n';
}

/** What closes a streamed JSON array of `count` rows (an empty list is `[]`). */
export function jsonArrayEnd(count: number): string {
  return count === 0 ? '[]\n' : '\n]\n';
}

/** A single result as an indented JSON object. */
export function jsonRecord<T>(schema: RecordSchema<T>, row: T): string {
  return `${JSON.stringify(jsonShaper(schema)(row), null, 2)}\n`;
}
