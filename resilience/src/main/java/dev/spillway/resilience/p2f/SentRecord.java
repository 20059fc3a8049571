package dev.spillway.resilience.p2f;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

import static java.lang.System.Logger.Level.WARNING;

/**
 * The highest ssn a rank stamped on each of its outgoing channels, over all its incarnations, so that one started
 * again can tell which of its sends an earlier incarnation had already made: those are re-executed. One long per
 * target in a file overwritten in place without fsync: it survives a process crash (the page cache does), not
 * necessarily a power loss. Guarded by its protocol's lock.
 */
public final class SentRecord implements AutoCloseable
{
    private static final System.Logger LOG = System.getLogger(SentRecord.class.getName());

    private final Path file;
    private final long[] earlier;
    private final long[] highest;
    private final ByteBuffer one = ByteBuffer.allocateDirect(Long.BYTES);
    private FileChannel channel;
    private boolean failed;

    private SentRecord(final Path file, final long[] earlier)
    {
        this.file = file;
        this.earlier = earlier;
        this.highest = earlier.clone();
    }

    /**
     * @param file    this rank's record, in a directory of its own that outlives its process.
     * @param ranks   the job's ranks.
     * @param carryOn whether to read what earlier incarnations recorded; false for a job's first incarnation, which
     *                forgets an earlier job's record.
     */
    public static SentRecord in(final Path file, final int ranks, final boolean carryOn) throws IOException
    {
        final long[] earlier = new long[ranks];
        Arrays.fill(earlier, -1);
        if (carryOn && Files.isRegularFile(file))
        {
            final ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(file));
            for (int r = 0; r < ranks && bytes.remaining() >= Long.BYTES; r++)
            {
                earlier[r] = bytes.getLong();
            }
        }
        else
        {
            Files.deleteIfExists(file);
        }
        return new SentRecord(file, earlier);
    }

    /** @return a record kept in memory only: nothing was sent before, and nothing outlives it. */
    public static SentRecord none(final int ranks)
    {
        final long[] earlier = new long[ranks];
        Arrays.fill(earlier, -1);
        return new SentRecord(null, earlier);
    }

    /**
     * Records that this rank stamped transfer {@code ssn} to {@code target}.
     *
     * @return whether an earlier incarnation had stamped it already: a re-executed send.
     */
    boolean stamped(final int target, final long ssn)
    {
        if (ssn > highest[target])
        {
            highest[target] = ssn;
            write(target, ssn);
        }
        return ssn <= earlier[target];
    }

    private void write(final int target, final long ssn)
    {
        if (file == null || failed)
        {
            return;
        }
        try
        {
            if (channel == null)
            {
                channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
                for (int r = 0; r < highest.length; r++)
                {
                    put(r, highest[r]);
                }
            }
            put(target, ssn);
        }
        catch (final IOException e)
        {
            failed = true;
            LOG.log(WARNING, "spillway: could not record the sends in " + file + " (" + e + "); a restarted " +
                "rank's re-executed sends are no longer counted");
        }
    }

    private void put(final int target, final long ssn) throws IOException
    {
        one.clear();
        one.putLong(0, ssn);
        while (one.hasRemaining())
        {
            channel.write(one, (long)target * Long.BYTES + one.position());
        }
    }

    @Override
    public void close() throws IOException
    {
        if (channel != null)
        {
            channel.close();
        }
    }
}
