package dev.spillway.io;

import net.openhft.chronicle.bytes.RandomDataInput;
import net.openhft.chronicle.core.Jvm;
import net.openhft.chronicle.hash.Data;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ChronicleMapBuilder;
import net.openhft.chronicle.map.ExternalMapQueryContext;
import net.openhft.chronicle.map.MapEntry;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The {@code chronicle} store: payloads and metadata in one persisted Chronicle Map from tag to {@link BlockValue}
 * (header then payload), laid out by {@link ChronicleSizing}. Writes copy from the caller's buffer into the mapped
 * file and reads copy from it into the caller's buffer, both inside a query context, with no staging buffer.
 * Chronicle's JVM exit hook is off, as for the direct store's index: {@link #close} is the only close.
 */
final class ChronicleStore implements Store
{
    static final String NAME = "chronicle";

    /** Prefix of the throwaway key that proves room for a growing block; no tag starts with NUL. */
    private static final char PLACEHOLDER_PREFIX = '\0';

    private final StoreDirectory directory;
    private final File file;
    private final long capBytes;
    private final int maxBlocks;
    private final long fileBytes;
    private final ChronicleMap<CharSequence, ByteBuffer> map;
    private final BlockValue value = new BlockValue();
    private final CRC32C crc = new CRC32C();
    private boolean closed;

    ChronicleStore(final StoreSettings settings) throws IOException
    {
        final ChronicleSizing sizing = ChronicleSizing.of(settings);
        directory = StoreDirectory.create(settings.dir());
        file = directory.path().resolve("blocks.cmap").toFile();
        capBytes = settings.diskCapBytes();
        maxBlocks = settings.maxBlocks();
        try
        {
            map = ChronicleMapBuilder.of(CharSequence.class, ByteBuffer.class)
                .name("spillway-blocks")
                .averageKeySize(Blocks.AVERAGE_TAG_BYTES)
                .averageValueSize(settings.averageBlockBytes() + BlockValue.HEADER_BYTES)
                .actualSegments(1)
                .entriesPerSegment(settings.maxBlocks())
                .actualChunkSize(sizing.chunkBytes())
                .actualChunksPerSegmentTier(sizing.chunks())
                .allowSegmentTiering(false)
                .checksumEntries(false)
                .skipCloseOnExitHook(true)
                .createPersistedTo(file);
            fileBytes = file.length();
            if (fileBytes > capBytes)
            {
                map.close();
                throw new IOException("the " + NAME + " store's map file takes " + fileBytes + " bytes, more than " +
                    "the disk cap of " + capBytes + " (" + sizing + ")");
            }
        }
        catch (final IOException | RuntimeException e)
        {
            directory.delete();
            if (Blocks.isNoSpace(e))
            {
                throw new StoreFullException("disk full: cannot create the " + NAME + " store's map file " + file +
                    " of " + sizing.chunks() * sizing.chunkBytes() + " bytes", e);
            }
            throw e;
        }
    }

    @Override
    public String name()
    {
        return NAME;
    }

    /** @return 1: the map copies to and from any direct buffer. */
    @Override
    public int alignment()
    {
        return 1;
    }

    @Override
    public void write(final String tag, final ByteBuffer src, final long version) throws IOException
    {
        final int length = src.remaining();
        Blocks.checkBuffer(src, alignment(), length, tag);
        checkFileIntact(tag);
        value.wrap(src, version, Blocks.crc32c(crc, src, src.position(), length));
        try
        {
            final long oldSize = valueSize(tag);
            if (oldSize >= 0 && value.size() > oldSize)
            {
                proveRoomToGrow(tag);
            }
            try (ExternalMapQueryContext<CharSequence, ByteBuffer, ?> context = map.queryContext(tag))
            {
                context.updateLock().lock();
                final MapEntry<CharSequence, ByteBuffer> entry = context.entry();
                if (entry == null)
                {
                    context.absentEntry().doInsert(value);
                }
                else
                {
                    entry.doReplaceValue(value);
                }
            }
        }
        catch (final IllegalStateException | IllegalArgumentException e)
        {
            if (map.isClosed())
            {
                throw e;
            }
            throw new StoreFullException(String.format("store full: block '%s' needs %d bytes but the %s store's map, " +
                "sized for %d blocks in a file of %d bytes under the disk cap of %d bytes, cannot take it (%s)",
                tag, value.size(), NAME, maxBlocks, fileBytes, capBytes, e.getMessage().lines().findFirst().orElse("")),
                e);
        }
        finally
        {
            value.clear();
        }
    }

    @Override
    public int read(final String tag, final ByteBuffer dst) throws IOException
    {
        checkFileIntact(tag);
        try (ExternalMapQueryContext<CharSequence, ByteBuffer, ?> context = map.queryContext(tag))
        {
            context.readLock().lock();
            final MapEntry<CharSequence, ByteBuffer> entry = context.entry();
            if (entry == null)
            {
                throw new BlockNotFoundException("no block for tag '" + tag + "' in the " + NAME + " store");
            }
            final Data<ByteBuffer> data = entry.value();
            final RandomDataInput in = data.bytes();
            final long base = data.offset();
            final int length = in.readInt(base + BlockValue.LENGTH_OFFSET);
            if (data.size() != BlockValue.HEADER_BYTES + (long)length)
            {
                throw new BlockCorruptedException(String.format("block '%s' is damaged: expected %d payload bytes " +
                    "from its header, actual %d in the map", tag, length, data.size() - BlockValue.HEADER_BYTES));
            }
            Blocks.checkBuffer(dst, alignment(), length, tag);
            in.nativeRead(base + BlockValue.HEADER_BYTES, Jvm.address(dst) + dst.position(), length);
            final int expected = in.readInt(base + BlockValue.CHECKSUM_OFFSET);
            final int actual = Blocks.crc32c(crc, dst, dst.position(), length);
            if (actual != expected)
            {
                throw new BlockCorruptedException(String.format(
                    "block '%s' failed its CRC32C check: expected %08x, actual %08x (%d bytes in %s)",
                    tag, expected, actual, length, file));
            }
            return length;
        }
    }

    @Override
    public BlockInfo info(final String tag) throws IOException
    {
        checkFileIntact(tag);
        try (ExternalMapQueryContext<CharSequence, ByteBuffer, ?> context = map.queryContext(tag))
        {
            context.readLock().lock();
            final MapEntry<CharSequence, ByteBuffer> entry = context.entry();
            if (entry == null)
            {
                return null;
            }
            final RandomDataInput in = entry.value().bytes();
            final long base = entry.value().offset();
            return new BlockInfo(in.readInt(base + BlockValue.LENGTH_OFFSET), in.readLong(base + BlockValue.VERSION_OFFSET),
                in.readInt(base + BlockValue.CHECKSUM_OFFSET));
        }
    }

    @Override
    public void delete(final String tag) throws IOException
    {
        checkFileIntact(tag);
        try (ExternalMapQueryContext<CharSequence, ByteBuffer, ?> context = map.queryContext(tag))
        {
            context.updateLock().lock();
            final MapEntry<CharSequence, ByteBuffer> entry = context.entry();
            if (entry != null)
            {
                entry.doRemove();
            }
        }
    }

    /** @return 0: copies go straight between the caller's buffers and the mapped file, whose pages the OS manages. */
    @Override
    public long stagingBytes()
    {
        return 0;
    }

    /** @return bytes of the map file, preallocated at open. */
    @Override
    public long diskBytesUsed()
    {
        return file.length();
    }

    @Override
    public void close() throws IOException
    {
        if (closed)
        {
            return;
        }
        closed = true;
        try
        {
            map.close();
        }
        finally
        {
            directory.delete();
        }
    }

    /** @return the value size of {@code tag}'s entry, or -1 if there is none. */
    private long valueSize(final String tag)
    {
        try (ExternalMapQueryContext<CharSequence, ByteBuffer, ?> context = map.queryContext(tag))
        {
            context.readLock().lock();
            final MapEntry<CharSequence, ByteBuffer> entry = context.entry();
            return entry == null ? -1 : entry.value().size();
        }
    }

    /**
     * Inserts and removes a placeholder entry as big as the new value under a slightly longer key. Chronicle Map
     * 2026.1 frees an entry before relocating it to a bigger place and leaves the map corrupt when no place is
     * found; after this succeeds, the relocation is sure to find one, and if it fails the map is unchanged.
     */
    private void proveRoomToGrow(final String tag)
    {
        value.placeholder(true);
        try (ExternalMapQueryContext<CharSequence, ByteBuffer, ?> context =
            map.queryContext(PLACEHOLDER_PREFIX + tag))
        {
            context.updateLock().lock();
            context.absentEntry().doInsert(value);
            context.entry().doRemove();
        }
        finally
        {
            value.placeholder(false);
        }
    }

    /**
     * Guards against touching mapped memory past the end of a truncated file, which would fault.
     *
     * @throws BlockCorruptedException naming the tag if the map file is shorter than when it was created.
     */
    private void checkFileIntact(final String tag) throws BlockCorruptedException
    {
        final long actual = file.length();
        if (actual < fileBytes)
        {
            throw new BlockCorruptedException(String.format("block '%s' is unreadable: the map file %s is truncated: " +
                "expected %d bytes, actual %d", tag, file, fileBytes, actual));
        }
    }
}
