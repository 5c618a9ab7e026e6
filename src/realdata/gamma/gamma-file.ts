// Gamma answers saved to a file (`curl '…/events?slug=…' >> events.json`), read as if fetched.
import { readFile } from 'node:fs/promises';
import { UsageError } from '../../errors.js';
import { parseGammaEvents, type GammaReading } from './gamma-market.js';

/**
 * Use to read saved Gamma events: one `/events` answer, a single event, an array of answers, or
 * answers written one after another. A file that is not JSON, or not Gamma events, is a
 * UsageError of one line naming the file.
 */
export async function readGammaFile(path: string): Promise<GammaReading> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new UsageError(`${path}: cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  if (text.trim() === '') throw new UsageError(`${path}: empty file, expected Gamma events (JSON)`);
  return parseGammaEvents(jsonTexts(text, path), path);
}

/** The file's JSON: one text, or several written back to back (read as an array of them). */
function jsonTexts(text: string, path: string): unknown {
  const body = text.replace(/^\uFEFF/, '');
  try {
    return JSON.parse(body);
  } catch (whole) {
    const parts = topLevelSpans(body);
    if (parts.length > 1) {
      try {
        return parts.map((p) => JSON.parse(p));
      } catch {
        // fall through: report the error of the whole text
      }
    }
    throw new UsageError(`${path}: not JSON (${(whole as Error).message.split('\n')[0]})`);
  }
}

/** The top-level arrays and objects of `text`, by bracket depth outside strings; none when anything else stands between them. */
function topLevelSpans(text: string): string[] {
  const spans: string[] = [];
  let depth = 0;
  let start = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (depth === 0) {
      if (c === '[' || c === '{') {
        start = i;
        depth = 1;
      } else if (!/\s/.test(c)) return [];
    } else if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '[' || c === '{') depth++;
    else if ((c === ']' || c === '}') && --depth === 0) spans.push(text.slice(start, i + 1));
  }
  return depth === 0 ? spans : [];
}
