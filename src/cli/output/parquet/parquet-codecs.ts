// The Parquet compression names, apart from the writer itself: the global flags list them on
// every run, and the writer library is loaded only by runs that write Parquet.

/** Compression codecs `--compression` accepts (Snappy is the default). */
export const PARQUET_CODECS = ['snappy', 'gzip', 'brotli', 'none'] as const;
/** One of PARQUET_CODECS. */
export type ParquetCodec = (typeof PARQUET_CODECS)[number];
