package dev.spillway.rdma;

import java.nio.ByteBuffer;

/** Argument checks shared by the transports; each message names the rank and the operation. */
final class Checks
{
    private Checks()
    {
    }

    static void direct(final ByteBuffer buffer, final String operation)
    {
        if (!buffer.isDirect())
        {
            throw new IllegalArgumentException(operation + ": the buffer must be direct (off-heap)");
        }
    }

    static void rank(final int rank, final int size, final String operation)
    {
        if (rank < 0 || rank >= size)
        {
            throw new IllegalArgumentException(operation + ": rank " + rank + " is outside 0.." + (size - 1));
        }
    }

    /** A put's or get's buffer and target, the messages built only on failure: puts of a few bytes are hot. */
    static void oneSided(final String operation, final WindowHandle target, final ByteBuffer buffer, final int size)
    {
        if (!buffer.isDirect() || target.owner() < 0 || target.owner() >= size)
        {
            final String what = operation + (operation.equals("put") ? " to" : " from") + " window '" +
                target.name() + "'";
            direct(buffer, what);
            rank(target.owner(), size, what);
        }
    }

    static void header(final Header header, final int self, final int incarnation)
    {
        if (header.rank() != Header.NO_RANK && header.rank() != self)
        {
            throw new IllegalArgumentException("send from rank " + self + " tag " + header.tag() +
                ": header names rank " + header.rank() + " as sender");
        }
        if (header.incarnation() != Header.NO_INCARNATION && header.incarnation() != incarnation)
        {
            throw new IllegalArgumentException("send from rank " + self + " tag " + header.tag() +
                ": header names incarnation " + header.incarnation() + ", the sender is incarnation " + incarnation);
        }
    }

    static void windowSize(final String name, final long size)
    {
        if (size < Long.BYTES)
        {
            throw new IllegalArgumentException("window '" + name + "': size " + size + " < 8 bytes");
        }
    }
}
