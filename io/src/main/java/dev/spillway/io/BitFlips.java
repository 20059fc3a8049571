package dev.spillway.io;

import java.nio.ByteBuffer;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A fault-injection aid beside {@link CrashPoints}, for silent-data-corruption tests: with
 * {@code -Dspillway.flipAt=HIT} the HIT-th task body that wrote an object gets one bit of that object flipped, at a
 * place {@code -Dspillway.flipSeed} (default 1) chooses, as a memory error would, and the JVM prints
 * {@code BITFLIP task 'T' object 'O' byte B bit b}. Unarmed, it costs one static read per task.
 */
public final class BitFlips
{
    private static final int HIT = Integer.getInteger("spillway.flipAt", 0);
    private static final long SEED = Long.getLong("spillway.flipSeed", 1L);
    private static final AtomicInteger HITS = new AtomicInteger();

    private BitFlips()
    {
    }

    /** @return whether a flip is armed in this JVM. */
    public static boolean armed()
    {
        return HIT > 0;
    }

    /**
     * Counts a task body that wrote {@code written} (the object's bytes) and flips one of its bits at the armed hit.
     *
     * @param task   the task's name, for the announcement.
     * @param object the object's name.
     */
    public static void wrote(final String task, final String object, final ByteBuffer written)
    {
        if (HIT <= 0 || written.limit() == 0 || HITS.incrementAndGet() != HIT)
        {
            return;
        }
        final Random random = new Random(SEED);
        final int offset = random.nextInt(written.limit());
        final int bit = random.nextInt(Byte.SIZE);
        written.put(offset, (byte)(written.get(offset) ^ (1 << bit)));
        System.out.println("BITFLIP task '" + task + "' object '" + object + "' byte " + offset + " bit " + bit);
        System.out.flush();
    }
}
