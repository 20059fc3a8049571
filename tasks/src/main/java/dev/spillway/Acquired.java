package dev.spillway;

import java.nio.ByteBuffer;

/**
 * Read access to a data object's contents from outside the task graph, from {@link Spillway#acquire(Data)}; like
 * StarPU's {@code starpu_data_acquire}. Until {@link #close()} the object stays in DRAM and later tasks that write
 * it wait.
 */
public interface Acquired extends AutoCloseable
{
    /** @return the acquired object. */
    Data data();

    /**
     * @return a read-only buffer over the object's bytes in native byte order, position 0 and limit
     *         {@code data().size()}; valid until {@link #close()} and not after (see {@link TaskContext#buffer}).
     * @throws IllegalStateException after {@link #close()}.
     */
    ByteBuffer buffer();

    /** Releases the object: later writers may run and the object may leave DRAM. Idempotent. */
    @Override
    void close();
}
