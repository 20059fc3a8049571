package dev.spillway.examples;

/**
 * The Gram matrix XᵀX of a table X and its column sums, from which the column means and covariances follow.
 *
 * @param rows       the number of rows of X.
 * @param columnSums per column, the sum of its values.
 * @param gram       {@code gram[i][j]} is the sum over rows of {@code x[i] * x[j]}.
 */
public record GramResult(long rows, double[] columnSums, double[][] gram)
{
    /** @return the number of columns of X. */
    public int columns()
    {
        return columnSums.length;
    }

    /** @return the mean of column {@code j}. */
    public double mean(final int j)
    {
        return columnSums[j] / rows;
    }

    /** @return the sample covariance of columns {@code i} and {@code j}. */
    public double covariance(final int i, final int j)
    {
        return (gram[i][j] - columnSums[i] * columnSums[j] / rows) / (rows - 1);
    }

    /** @return the Pearson correlation of columns {@code i} and {@code j}. */
    public double correlation(final int i, final int j)
    {
        return covariance(i, j) / Math.sqrt(covariance(i, i) * covariance(j, j));
    }

    /**
     * @param other a result for the same table shape.
     * @return the largest relative difference of any Gram entry or column sum, measured against {@code other}.
     */
    public double maxRelativeDifference(final GramResult other)
    {
        if (other.columns() != columns() || other.rows != rows)
        {
            throw new IllegalArgumentException("shapes differ: " + rows + " x " + columns() + " against " +
                other.rows + " x " + other.columns());
        }
        double max = 0;
        for (int i = 0; i < columns(); i++)
        {
            max = Math.max(max, relativeDifference(columnSums[i], other.columnSums[i]));
            for (int j = 0; j < columns(); j++)
            {
                max = Math.max(max, relativeDifference(gram[i][j], other.gram[i][j]));
            }
        }
        return max;
    }

    private static double relativeDifference(final double value, final double reference)
    {
        final double difference = Math.abs(value - reference);
        return difference == 0 ? 0 : difference / Math.abs(reference);
    }
}
