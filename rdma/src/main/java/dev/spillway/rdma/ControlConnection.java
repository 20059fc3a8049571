package dev.spillway.rdma;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;

/**
 * One TCP connection of the control star around rank 0: the rendezvous runs over it, then the failure detector's
 * heartbeats. Writes are serialised; one thread reads.
 */
final class ControlConnection
{
    /** Longest address blob accepted. */
    static final int MAX_BLOB_BYTES = 1 << 20;

    /** Writes one message. */
    @FunctionalInterface
    interface Message
    {
        void writeTo(DataOutputStream out) throws IOException;
    }

    final Socket socket;
    final DataInputStream in;
    final DataOutputStream out;
    /** The peer's rank, once known; -1 before. */
    int rank = -1;
    /** The peer's incarnation, once known. */
    int incarnation;

    ControlConnection(final Socket socket) throws IOException
    {
        this.socket = socket;
        socket.setTcpNoDelay(true);
        in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
        out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
    }

    /** Writes and flushes {@code message}; a failure is left to the reader, which sees the broken connection. */
    synchronized void sendQuietly(final Message message)
    {
        try
        {
            message.writeTo(out);
            out.flush();
        }
        catch (final IOException ignored)
        {
            // The reader sees the broken connection and declares the loss.
        }
    }

    void closeQuietly()
    {
        closeQuietly(socket);
    }

    /** Writes an address blob: its length, then its bytes. */
    static void writeBlob(final DataOutputStream out, final byte[] blob) throws IOException
    {
        out.writeInt(blob.length);
        out.write(blob);
    }

    /** @return an address blob written by {@link #writeBlob}, at most {@link #MAX_BLOB_BYTES} long. */
    static byte[] readBlob(final DataInputStream in) throws IOException
    {
        final int length = in.readInt();
        if (length < 0 || length > MAX_BLOB_BYTES)
        {
            throw new IOException("address blob length " + length + " outside 0.." + MAX_BLOB_BYTES);
        }
        final byte[] bytes = new byte[length];
        in.readFully(bytes);
        return bytes;
    }

    /** Closes a socket or listener, ignoring failures: closing is best effort. */
    static void closeQuietly(final Closeable closeable)
    {
        try
        {
            closeable.close();
        }
        catch (final IOException ignored)
        {
            // Best effort.
        }
    }
}
