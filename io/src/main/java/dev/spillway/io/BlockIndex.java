package dev.spillway.io;

import net.openhft.chronicle.bytes.RandomDataInput;
import net.openhft.chronicle.hash.Data;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ChronicleMapBuilder;
import net.openhft.chronicle.map.ExternalMapQueryContext;
import net.openhft.chronicle.map.MapEntry;

import java.io.Closeable;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;

/**
 * The index of a {@link DirectIoStore}: a persisted Chronicle Map from tag to {@link BlockRecord}, kept as a
 * fixed 28-byte value in native byte order and read in place through query contexts.
 */
final class BlockIndex implements Closeable
{
    private static final int SLAB_OFFSET = 0;
    private static final int POSITION_OFFSET = 4;
    private static final int LENGTH_OFFSET = 12;
    private static final int VERSION_OFFSET = 16;
    private static final int CHECKSUM_OFFSET = 24;
    private static final int VALUE_BYTES = 28;
    /** File bytes besides the entries, and per entry: at most 8 KiB and 91 B measured from 1 to 262144 entries. */
    private static final long FIXED_BOUND_BYTES = 64 << 10;
    private static final long BOUND_BYTES_PER_ENTRY = 128;

    private final ChronicleMap<CharSequence, ByteBuffer> map;
    private final File file;
    private final int maxBlocks;
    private final ByteBuffer value = ByteBuffer.allocate(VALUE_BYTES).order(ByteOrder.nativeOrder());

    /**
     * Creates the map file, sized for {@code maxBlocks} entries (Chronicle may add one tier beyond that). Chronicle's
     * JVM exit hook is off: it would close the map under the IO thread; the store's owner closes it.
     */
    BlockIndex(final Path path, final int maxBlocks) throws IOException
    {
        this.file = path.toFile();
        this.maxBlocks = maxBlocks;
        this.map = ChronicleMapBuilder.of(CharSequence.class, ByteBuffer.class)
            .name("spillway-index")
            .averageKeySize(Blocks.AVERAGE_TAG_BYTES)
            .constantValueSizeBySample(ByteBuffer.allocate(VALUE_BYTES))
            .entries(maxBlocks)
            .checksumEntries(false)
            .skipCloseOnExitHook(true)
            .createPersistedTo(file);
    }

    /** @return an upper bound of the file bytes of an index for {@code maxBlocks} entries. */
    static long fileBytesBound(final int maxBlocks)
    {
        return FIXED_BOUND_BYTES + BOUND_BYTES_PER_ENTRY * maxBlocks;
    }

    /** @return bytes of the map file. */
    long fileBytes()
    {
        return file.length();
    }

    /** @return the record of {@code tag}, or {@code null}. */
    BlockRecord get(final String tag)
    {
        try (ExternalMapQueryContext<CharSequence, ByteBuffer, ?> context = map.queryContext(tag))
        {
            context.readLock().lock();
            return decode(context.entry());
        }
    }

    /**
     * Sets the record of {@code tag}.
     *
     * @return the record it replaced, or {@code null}.
     * @throws StoreFullException if the map cannot take another entry.
     */
    BlockRecord put(final String tag, final BlockRecord record) throws StoreFullException
    {
        value.putInt(SLAB_OFFSET, record.slab())
            .putLong(POSITION_OFFSET, record.offset())
            .putInt(LENGTH_OFFSET, record.length())
            .putLong(VERSION_OFFSET, record.version())
            .putInt(CHECKSUM_OFFSET, record.checksum());
        try (ExternalMapQueryContext<CharSequence, ByteBuffer, ?> context = map.queryContext(tag))
        {
            context.updateLock().lock();
            final MapEntry<CharSequence, ByteBuffer> entry = context.entry();
            final BlockRecord previous = decode(entry);
            if (entry == null)
            {
                context.absentEntry().doInsert(context.wrapValueAsData(value));
            }
            else
            {
                entry.doReplaceValue(context.wrapValueAsData(value));
            }
            return previous;
        }
        catch (final IllegalStateException e)
        {
            throw new StoreFullException("store full: the block index, sized for " + maxBlocks +
                " blocks, cannot take block '" + tag + "' (raise maxBlocks: SpillwayConfig.storeSizing or " +
                "-Dspillway.storeMaxBlocks): " + e.getMessage().lines().findFirst().orElse(""), e);
        }
    }

    /** Removes the record of {@code tag}; @return it, or {@code null}. */
    BlockRecord remove(final String tag)
    {
        try (ExternalMapQueryContext<CharSequence, ByteBuffer, ?> context = map.queryContext(tag))
        {
            context.updateLock().lock();
            final MapEntry<CharSequence, ByteBuffer> entry = context.entry();
            final BlockRecord previous = decode(entry);
            if (entry != null)
            {
                entry.doRemove();
            }
            return previous;
        }
    }

    @Override
    public void close()
    {
        map.close();
    }

    private static BlockRecord decode(final MapEntry<CharSequence, ByteBuffer> entry)
    {
        if (entry == null)
        {
            return null;
        }
        final Data<ByteBuffer> data = entry.value();
        final RandomDataInput in = data.bytes();
        final long base = data.offset();
        return new BlockRecord(
            in.readInt(base + SLAB_OFFSET),
            in.readLong(base + POSITION_OFFSET),
            in.readInt(base + LENGTH_OFFSET),
            in.readLong(base + VERSION_OFFSET),
            in.readInt(base + CHECKSUM_OFFSET));
    }
}
