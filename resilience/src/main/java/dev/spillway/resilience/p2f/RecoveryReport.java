package dev.spillway.resilience.p2f;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableSet;
import java.util.TreeSet;

/**
 * What a running rank tells the recovery coordinator (spec §A.4.3 step 3): its dependencies, and the epochs its
 * committed generations open, the floors the recovery line may send it back to. Its dependencies count the
 * non-logged transfers it posted and that are not yet acknowledged, at the epoch their receiver takes them in: no
 * copy of them is kept, so a receiver that rolls back past them needs this rank to send them again.
 *
 * @param rank        the reporting rank.
 * @param depends     its dependencies.
 * @param committed   the epochs its committed generations open, its initial epoch included.
 */
public record RecoveryReport(int rank, SentPerEpoch depends, NavigableSet<Integer> committed)
{
    private static final int VERSION = 1;

    /** @return the report as bytes. */
    public byte[] encode()
    {
        final List<int[]> entries = new ArrayList<>();
        depends.forEach((target, es, er) -> entries.add(new int[] {target, es, er}));
        final ByteBuffer b = ByteBuffer.allocate(4 * Integer.BYTES + committed.size() * Integer.BYTES +
            entries.size() * 3 * Integer.BYTES);
        b.putInt(VERSION).putInt(rank).putInt(committed.size());
        committed.forEach(b::putInt);
        b.putInt(entries.size());
        entries.forEach(e -> b.putInt(e[0]).putInt(e[1]).putInt(e[2]));
        return b.array();
    }

    /**
     * @param bytes a report {@link #encode} wrote.
     * @return the report.
     * @throws IllegalArgumentException if the bytes are not one.
     */
    public static RecoveryReport decode(final byte[] bytes)
    {
        try
        {
            final ByteBuffer b = ByteBuffer.wrap(bytes);
            final int version = b.getInt();
            if (version != VERSION)
            {
                throw new IllegalArgumentException("recovery report version " + version + ", expected " + VERSION);
            }
            final int rank = b.getInt();
            final NavigableSet<Integer> committed = new TreeSet<>();
            for (int i = b.getInt(); i > 0; i--)
            {
                committed.add(b.getInt());
            }
            final SentPerEpoch.Builder depends = SentPerEpoch.builder();
            for (int i = b.getInt(); i > 0; i--)
            {
                depends.add(b.getInt(), b.getInt(), b.getInt());
            }
            if (b.hasRemaining())
            {
                throw new IllegalArgumentException(b.remaining() + " trailing byte(s)");
            }
            return new RecoveryReport(rank, depends.build(), committed);
        }
        catch (final BufferUnderflowException e)
        {
            throw new IllegalArgumentException("a recovery report of " + bytes.length + " bytes is truncated", e);
        }
    }
}
