package dev.spillway.rdma;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Atomic access to native-order 64-bit words of a direct buffer, as the owner applies emulated remote atomics. */
final class LongWords
{
    private static final VarHandle WORD = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());

    private LongWords()
    {
    }

    static long getAndAdd(final ByteBuffer memory, final int offset, final long delta)
    {
        return (long)WORD.getAndAdd(memory, offset, delta);
    }

    static long compareAndExchange(final ByteBuffer memory, final int offset, final long expected, final long update)
    {
        return (long)WORD.compareAndExchange(memory, offset, expected, update);
    }

    /**
     * Checks bounds and alignment of an atomic on {@code window}.
     *
     * @param operation for the message.
     * @param window the target.
     * @param offset the word's offset.
     */
    static void check(final String operation, final WindowHandle window, final long offset)
    {
        window.checkBounds(operation, offset, Long.BYTES);
        if ((offset & 7) != 0)
        {
            throw new IllegalArgumentException(operation + " on window '" + window.name() + "' of rank " +
                window.owner() + ": offset " + offset + " is not 8-byte aligned");
        }
    }
}
