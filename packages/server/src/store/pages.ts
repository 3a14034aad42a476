/** Rows read per statement while filling the matrix or the in-memory catalog, so few are in memory at once. */
export const PAGE_ROWS = 2000;

/**
 * A keyset-paged read: `read(after)` gives up to PAGE_ROWS rows whose key (`keyOf`) is past `after`, in key order;
 * `first` is below every key.
 */
export async function* pages<T, K>(
  read: (after: K) => Promise<T[]>,
  keyOf: (row: T) => K,
  first: K,
): AsyncGenerator<T[]> {
  for (let after = first; ; ) {
    const rows = await read(after);
    yield rows;
    if (rows.length < PAGE_ROWS) return;
    after = keyOf(rows[rows.length - 1]!);
  }
}
