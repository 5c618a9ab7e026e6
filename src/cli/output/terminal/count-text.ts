// A number with its noun, as a sentence says it: "1 market", "2 markets", "1,031 snapshots".

/** Use in messages that count things: singular for exactly one, thousands separated. */
export function counted(n: number, noun: string, plural = `${noun}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? noun : plural}`;
}
