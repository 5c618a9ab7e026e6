// BEGIN ... COMMIT on one reserved connection, written here rather than with the driver's
// sql.begin: when the server goes away mid-transaction, sql.begin sends ROLLBACK on the dead
// connection and postgres 3.4.9 then throws from a timer (socket.write on null, porsager/postgres
// issues 1154 and 1208), which would end the whole process. Here a transaction whose connection was
// lost sends nothing more on it and never hands it back to the pool: the server has rolled it back
// already, and the pool opens a new connection when one is next needed.
import type postgres from 'postgres';
import { isConnectionError } from './pg-connection.js';

/** Whether a transaction's connection has been lost; store calls on it set `lost` when they see so. */
export interface ConnectionState {
  lost: boolean;
}

/**
 * Use for every multi-statement write: fn runs between BEGIN and COMMIT on one connection, after
 * the advisory lock named `lock` (held until the end of the transaction; none when undefined: fn
 * takes the row locks it needs), and is rolled back if it
 * throws. `state.lost` tells fn's helpers (and this function) not to touch the connection again.
 */
export async function inTransaction<T>(
  pool: postgres.Sql,
  lock: string | undefined,
  fn: (tx: postgres.ReservedSql, state: ConnectionState) => Promise<T>,
): Promise<T> {
  const tx = await pool.reserve();
  const state: ConnectionState = { lost: false };
  try {
    await tx`BEGIN`;
    if (lock !== undefined) await tx`SELECT pg_advisory_xact_lock(hashtext(${lock}))`;
    const result = await fn(tx, state);
    await tx`COMMIT`;
    return result;
  } catch (err) {
    if (isConnectionError(err)) state.lost = true;
    if (!state.lost) {
      await tx`ROLLBACK`.catch((rollbackErr: unknown) => {
        if (isConnectionError(rollbackErr)) state.lost = true;
      });
    }
    throw err;
  } finally {
    if (!state.lost) tx.release();
  }
}
