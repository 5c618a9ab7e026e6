// A minimal RFC 4180 field splitter: enough for what `msnap --csv` writes (quoted JSON cells).

/** Use to split one CSV record; returns undefined while a quoted field is still open (join the next line). */
export function parseCsvRecord(text: string): string[] | undefined {
  const fields: string[] = [];
  let i = 0;
  const n = text.length;
  for (;;) {
    if (i < n && text.charCodeAt(i) === 34 /* " */) {
      let value = '';
      let j = i + 1;
      for (;;) {
        const q = text.indexOf('"', j);
        if (q === -1) return undefined;
        value += text.slice(j, q);
        if (text.charCodeAt(q + 1) === 34) {
          value += '"';
          j = q + 2;
          continue;
        }
        i = q + 1;
        break;
      }
      fields.push(value);
    } else {
      const comma = text.indexOf(',', i);
      const end = comma === -1 ? n : comma;
      fields.push(text.slice(i, end));
      i = end;
    }
    if (i >= n) return fields;
    if (text.charCodeAt(i) !== 44 /* , */) throw new SyntaxError(`unexpected character after a quoted field at column ${i + 1}`);
    i++;
    if (i === n) {
      fields.push('');
      return fields;
    }
  }
}
