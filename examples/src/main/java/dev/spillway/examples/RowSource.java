package dev.spillway.examples;

/** A stream of table rows read once, front to back, as from a CSV or Parquet reader. */
public interface RowSource
{
    /** @return the number of values in every row. */
    int columns();

    /**
     * Reads the next row.
     *
     * @param row receives {@link #columns()} values.
     * @return false, leaving {@code row} unchanged, once the stream is exhausted.
     */
    boolean next(double[] row);
}
