// A schema step, the shape both SQL stores' migration lists share.

/** One schema step: applied once, in order, inside a transaction. */
export interface Migration {
  version: number;
  description: string;
  sql: string;
}
