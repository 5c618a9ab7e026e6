// "Same bytes out apart from formatting": reduce a CSV of snapshots to a row count and a hash of
// its normalised rows (the contract's snapshot columns, by header name, numbers in shortest
// form), so msnap's export and the baseline's can be compared whatever quoting or column order
// each one chose.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

const SNAPSHOT_COLUMNS = ['id', 'market_id', 'time', 'price', 'price_up', 'price_down'];

/** `{ rows, hash, columns, sample }` of a snapshot CSV file; `sample` holds a few normalised rows. */
export async function csvDigest(file, columns = SNAPSHOT_COLUMNS) {
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  const hash = createHash('sha256');
  let indices = null;
  let rows = 0;
  const sample = [];
  for await (const line of lines) {
    if (line === '') continue;
    const cells = splitCsvLine(line);
    if (indices === null) {
      indices = columns.map((c) => cells.indexOf(c));
      continue;
    }
    const norm = indices.map((i) => normalise(i >= 0 ? cells[i] : '')).join(',');
    hash.update(norm + '\n');
    if (rows < 3 || rows % 100_000 === 0) sample.push(norm);
    rows++;
  }
  return { rows, hash: hash.digest('hex'), columns: columns.filter((_, k) => indices?.[k] >= 0), sample };
}

function normalise(cell) {
  if (cell === '') return '';
  const n = Number(cell);
  return Number.isFinite(n) ? String(n) : cell;
}

// Snapshot CSVs hold no embedded newlines; quotes are undone for the comma case only.
function splitCsvLine(line) {
  if (!line.includes('"')) return line.split(',');
  const cells = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') { cur += '"'; i++; }
      else if (ch === '"') quoted = false;
      else cur += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') { cells.push(cur); cur = ''; }
    else cur += ch;
  }
  cells.push(cur);
  return cells;
}
