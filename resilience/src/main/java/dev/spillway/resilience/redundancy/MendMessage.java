package dev.spillway.resilience.redundancy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What each replica of a sphere's majority sends each outvoted one after a vote ({@link ReplicaDigests}): the objects
 * that differ, read from its generation of the cut, or none and why not.
 *
 * @param index  the global index of the cut voted on.
 * @param why    empty when {@code blocks} are sent, else why none are.
 * @param blocks tag to contents, each a heap buffer from position to limit.
 */
record MendMessage(long index, String why, SortedMap<String, ByteBuffer> blocks)
{
    byte[] encode()
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes))
        {
            out.writeLong(index);
            out.writeUTF(why);
            out.writeInt(blocks.size());
            for (final Map.Entry<String, ByteBuffer> e : blocks.entrySet())
            {
                final ByteBuffer b = e.getValue();
                out.writeUTF(e.getKey());
                out.writeInt(b.remaining());
                out.write(b.array(), b.arrayOffset() + b.position(), b.remaining());
            }
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** @throws IOException when {@code bytes} are cut short. */
    static MendMessage decode(final byte[] bytes) throws IOException
    {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes)))
        {
            final long cut = in.readLong();
            final String why = in.readUTF();
            final SortedMap<String, ByteBuffer> blocks = new TreeMap<>();
            for (int i = in.readInt(); i > 0; i--)
            {
                final String tag = in.readUTF();
                final byte[] contents = new byte[in.readInt()];
                in.readFully(contents);
                blocks.put(tag, ByteBuffer.wrap(contents));
            }
            return new MendMessage(cut, why, blocks);
        }
    }
}
