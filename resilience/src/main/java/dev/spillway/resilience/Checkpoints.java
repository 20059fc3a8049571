package dev.spillway.resilience;

import dev.spillway.SpillwayConfig;
import dev.spillway.checkpoint.CheckpointPolicy;
import dev.spillway.resilience.interval.AutoInterval;
import dev.spillway.resilience.interval.EverySeconds;
import dev.spillway.resilience.interval.EveryTasks;
import dev.spillway.resilience.interval.MtbfEstimator;
import dev.spillway.resilience.store.FileCheckpointStore;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Turns checkpoints on for a runtime.
 *
 * <pre>{@code
 * Checkpoints.configure(Spillway.builder(), Path.of("/nvme/ckpt"), "auto", 3600.0).build();
 * }</pre>
 */
public final class Checkpoints
{
    /** The restart time R the automatic interval assumes: a JVM start plus reading a checkpoint back, 1 s. */
    public static final double DEFAULT_RESTART_SECONDS = 1.0;
    /** Test only: {@code -Dspillway.checkpoint.verify=false} turns checksum verification off (the negative control). */
    public static final String VERIFY_PROPERTY = "spillway.checkpoint.verify";
    private static final String USAGE = "use N (tasks, e.g. 500), Ns (seconds, e.g. 30s) or auto";

    private Checkpoints()
    {
    }

    /**
     * @param every       {@code N}: every N tasks; {@code Ns}: every N seconds (decimals allowed); {@code auto}: the
     *                    interval that minimises the expected run time ({@link AutoInterval}).
     * @param mtbfSeconds the mean time between failures for {@code auto}, or {@code null} for
     *                    {@link MtbfEstimator#DEFAULT_SECONDS}; ignored by the fixed intervals.
     * @throws IllegalArgumentException naming the bad value.
     */
    public static CheckpointPolicy policy(final String every, final Double mtbfSeconds)
    {
        final String text = checkEvery(every, mtbfSeconds);
        if (text.equals("auto"))
        {
            return new AutoInterval(mtbfSeconds == null ? MtbfEstimator.DEFAULT_SECONDS : mtbfSeconds,
                DEFAULT_RESTART_SECONDS);
        }
        return fixed(text, every);
    }

    /**
     * Opens a {@link FileCheckpointStore} in {@code dir} and sets it, with the policy {@code every} names, on
     * {@code config}. With {@code auto} and no MTBF, the MTBF is estimated from the restarts observed in {@code dir}.
     *
     * @return {@code config}.
     */
    public static SpillwayConfig configure(final SpillwayConfig config, final Path dir, final String every,
        final Double mtbfSeconds) throws IOException
    {
        check(every, mtbfSeconds);
        final FileCheckpointStore store = store(dir).open();
        try
        {
            return config.checkpoints(store, policy(store, every, mtbfSeconds));
        }
        catch (final RuntimeException e)
        {
            store.close();
            throw e;
        }
    }

    /**
     * Refuses a bad interval or MTBF before anything is opened, as {@link #policy(String, Double)} would.
     *
     * @throws IllegalArgumentException naming the bad value.
     */
    public static void check(final String every, final Double mtbfSeconds)
    {
        final String text = checkEvery(every, mtbfSeconds);
        if (!text.equals("auto"))
        {
            fixed(text, every);
        }
    }

    /** @return a builder of the store in {@code dir}, with checksum verification as {@link #VERIFY_PROPERTY} says. */
    public static FileCheckpointStore.Builder store(final Path dir)
    {
        return FileCheckpointStore.builder(dir).verifyChecksums(verifyingChecksums());
    }

    /** @return whether checkpoints' checksums are verified: unless {@link #VERIFY_PROPERTY} is {@code false}. */
    public static boolean verifyingChecksums()
    {
        return !"false".equals(System.getProperty(VERIFY_PROPERTY));
    }

    /**
     * As {@link #policy(String, Double)}, but with {@code auto} and no MTBF, the MTBF is estimated from the restarts
     * observed in {@code store}'s directory.
     */
    public static CheckpointPolicy policy(final FileCheckpointStore store, final String every,
        final Double mtbfSeconds)
    {
        final String text = checkEvery(every, mtbfSeconds);
        return !text.equals("auto") ? fixed(text, every) : new AutoInterval(MtbfEstimator.of(mtbfSeconds,
            store::incarnation, () -> (System.currentTimeMillis() - store.originMillis()) / 1e3),
            DEFAULT_RESTART_SECONDS);
    }

    private static String checkEvery(final String every, final Double mtbfSeconds)
    {
        if (every == null || every.isBlank())
        {
            throw new IllegalArgumentException("checkpoint interval is empty; " + USAGE);
        }
        if (mtbfSeconds != null && !(mtbfSeconds > 0 && mtbfSeconds < Double.POSITIVE_INFINITY))
        {
            throw new IllegalArgumentException("checkpoint MTBF must be a positive number of seconds, got " +
                mtbfSeconds);
        }
        return every.trim().toLowerCase(Locale.ROOT);
    }

    /** @return whether {@code every} ({@code --checkpoint-every}) is a count of tasks, not a time or {@code auto}. */
    public static boolean countsTasks(final String every)
    {
        return every != null && every.trim().matches("\\d{1,18}");
    }

    private static CheckpointPolicy fixed(final String text, final String every)
    {
        if (countsTasks(text))
        {
            final long tasks = Long.parseLong(text);
            if (tasks < 1)
            {
                throw new IllegalArgumentException("checkpoint interval '" + every + "' must be at least 1 task");
            }
            return new EveryTasks(tasks);
        }
        if (text.matches("\\d{1,12}(\\.\\d{1,9})?s"))
        {
            final double seconds = Double.parseDouble(text.substring(0, text.length() - 1));
            if (seconds <= 0)
            {
                throw new IllegalArgumentException("checkpoint interval '" + every +
                    "' must be a positive number of seconds");
            }
            return new EverySeconds(seconds);
        }
        throw new IllegalArgumentException("checkpoint interval '" + every + "' is not understood; " + USAGE);
    }
}
