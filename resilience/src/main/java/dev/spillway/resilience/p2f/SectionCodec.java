package dev.spillway.resilience.p2f;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.NavigableMap;

/**
 * Writes a {@link ProtocolSection} of the engine's protocol as the bytes of a generation block, and reads it back.
 * The store checksums the block; the codec checks its own magic number and version, and that it read every byte.
 */
public final class SectionCodec
{
    private static final int MAGIC = 0x50324631;
    private static final int VERSION = 2;

    private SectionCodec()
    {
    }

    /** @return {@code section} as bytes. */
    public static byte[] encode(final ProtocolSection<LoggedTransfer> section)
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes))
        {
            out.writeInt(MAGIC);
            out.writeInt(VERSION);
            out.writeInt(section.rank);
            out.writeInt(section.epoch);
            out.writeInt(section.phase);
            out.writeInt(section.out.length);
            for (int r = 0; r < section.out.length; r++)
            {
                final OutChannel<LoggedTransfer> channel = section.out[r];
                out.writeLong(channel.nextSsn);
                out.writeInt(channel.log.size());
                for (final OutChannel.Logged<LoggedTransfer> entry : channel.log.values())
                {
                    out.writeLong(entry.ssn());
                    out.writeInt(entry.epoch());
                    out.writeInt(entry.phase());
                    out.writeInt(entry.receiveEpoch());
                    out.writeUTF(entry.payload().tag());
                    out.writeInt(entry.payload().version());
                    out.writeInt(entry.payload().bytes());
                    out.writeBoolean(entry.payload().logTag() != null);
                    if (entry.payload().logTag() != null)
                    {
                        out.writeUTF(entry.payload().logTag());
                    }
                }
                writeInts(out, channel.dependencies);
                final InChannel in = section.in[r];
                out.writeLong(in.last);
                writeLongs(out, in.epochFrom);
                writeLongs(out, in.phaseFrom);
            }
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /**
     * @return the section {@code bytes} hold.
     * @throws IllegalArgumentException if they are not a section this codec wrote, naming what is wrong.
     */
    public static ProtocolSection<LoggedTransfer> decode(final byte[] bytes)
    {
        final DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
        try
        {
            if (in.readInt() != MAGIC)
            {
                throw new IllegalArgumentException("not a message-logging protocol section (bad magic number)");
            }
            final int version = in.readInt();
            if (version != VERSION)
            {
                throw new IllegalArgumentException("protocol section version " + version + ", this build reads " +
                    VERSION);
            }
            final int rank = in.readInt();
            final int epoch = in.readInt();
            final int phase = in.readInt();
            final int ranks = in.readInt();
            final OutChannel<LoggedTransfer>[] out = OutChannel.array(ranks);
            final InChannel[] received = new InChannel[ranks];
            for (int r = 0; r < ranks; r++)
            {
                final OutChannel<LoggedTransfer> channel = new OutChannel<>();
                channel.nextSsn = in.readLong();
                for (int i = in.readInt(); i > 0; i--)
                {
                    final long ssn = in.readLong();
                    final int sendEpoch = in.readInt();
                    final int sendPhase = in.readInt();
                    final int receiveEpoch = in.readInt();
                    final LoggedTransfer payload = new LoggedTransfer(in.readUTF(), in.readInt(), in.readInt(),
                        in.readBoolean() ? in.readUTF() : null);
                    channel.log.put(ssn, new OutChannel.Logged<>(ssn, sendEpoch, sendPhase, receiveEpoch, payload));
                }
                readInts(in, channel.dependencies);
                out[r] = channel;
                final InChannel channelIn = new InChannel();
                channelIn.last = in.readLong();
                readLongs(in, channelIn.epochFrom);
                readLongs(in, channelIn.phaseFrom);
                received[r] = channelIn;
            }
            if (in.available() != 0)
            {
                throw new IllegalArgumentException("protocol section has " + in.available() + " trailing bytes");
            }
            return new ProtocolSection<>(rank, epoch, phase, out, received);
        }
        catch (final IOException e)
        {
            throw new IllegalArgumentException("protocol section truncated: " + e, e);
        }
    }

    private static void writeInts(final DataOutputStream out, final Map<Integer, Integer> map) throws IOException
    {
        out.writeInt(map.size());
        for (final Map.Entry<Integer, Integer> e : map.entrySet())
        {
            out.writeInt(e.getKey());
            out.writeInt(e.getValue());
        }
    }

    private static void readInts(final DataInputStream in, final NavigableMap<Integer, Integer> map)
        throws IOException
    {
        for (int i = in.readInt(); i > 0; i--)
        {
            map.put(in.readInt(), in.readInt());
        }
    }

    private static void writeLongs(final DataOutputStream out, final Map<Long, Integer> map) throws IOException
    {
        out.writeInt(map.size());
        for (final Map.Entry<Long, Integer> e : map.entrySet())
        {
            out.writeLong(e.getKey());
            out.writeInt(e.getValue());
        }
    }

    private static void readLongs(final DataInputStream in, final NavigableMap<Long, Integer> map) throws IOException
    {
        for (int i = in.readInt(); i > 0; i--)
        {
            map.put(in.readLong(), in.readInt());
        }
    }
}
