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
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

import static java.lang.System.Logger.Level.WARNING;

/**
 * The index of a {@link DirectIoStore}: a persisted Chronicle Map from tag to {@link BlockRecord}, kept as a
 * fixed 32-byte value in native byte order and read in place through query contexts.
 *
 * <p>The file is memory-mapped, so whatever changes it is seen at the next lookup. Each record carries a CRC32C of
 * its tag and fields, checked on every read: a corrupted record fails with {@link BlockCorruptedException} naming
 * the file and the block rather than pointing at the wrong extent or reporting a wrong version. The file's size is
 * checked before each access too, since touching pages that a truncation removed would crash the JVM (SIGBUS); a
 * truncation between that check and the access cannot be caught. Chronicle's own structures (hash slots, entry
 * headers, segment locks) carry no checksum: a flip there loses entries (not found), fails the lookup (reported as
 * a corrupted index), or, in a segment's lock word, stalls lookups in that segment until Chronicle gives up on the
 * lock, about a minute later.
 */
final class BlockIndex implements Closeable
{
    private static final System.Logger LOG = System.getLogger(BlockIndex.class.getName());
    static final int SLAB_OFFSET = 0;
    static final int POSITION_OFFSET = 4;
    static final int LENGTH_OFFSET = 12;
    static final int VERSION_OFFSET = 16;
    static final int CHECKSUM_OFFSET = 24;
    /** CRC32C of the tag's UTF-8 bytes and the record's bytes before it. */
    static final int RECORD_CRC_OFFSET = 28;
    static final int VALUE_BYTES = 32;
    /** File bytes besides the entries, and per entry: at most 8 KiB and 91 B measured from 1 to 262144 entries. */
    private static final long FIXED_BOUND_BYTES = 64 << 10;
    private static final long BOUND_BYTES_PER_ENTRY = 128;

    private final ChronicleMap<CharSequence, ByteBuffer> map;
    private final File file;
    private final FileChannel sizeProbe;
    private final int maxBlocks;
    private final ByteBuffer value = ByteBuffer.allocate(VALUE_BYTES).order(ByteOrder.nativeOrder());
    private final ByteBuffer fields = ByteBuffer.allocate(RECORD_CRC_OFFSET).order(ByteOrder.nativeOrder());
    private final CRC32C crc = new CRC32C();
    /** The file size Chronicle has mapped: the size at creation, grown with new tiers. */
    private long mappedBytes;

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
        try
        {
            this.sizeProbe = FileChannel.open(path, StandardOpenOption.READ);
            this.mappedBytes = sizeProbe.size();
        }
        catch (final IOException | RuntimeException e)
        {
            map.close();
            throw e;
        }
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

    /** @return the map file. */
    Path path()
    {
        return file.toPath();
    }

    /**
     * @return the record of {@code tag}, or {@code null}.
     * @throws BlockCorruptedException if the record fails its checksum or the file is truncated or unreadable.
     */
    BlockRecord get(final String tag) throws BlockCorruptedException
    {
        checkNotTruncated(tag);
        try (ExternalMapQueryContext<CharSequence, ByteBuffer, ?> context = map.queryContext(tag))
        {
            context.readLock().lock();
            return decode(tag, context.entry());
        }
        catch (final RuntimeException e)
        {
            throw unreadable(tag, e);
        }
    }

    /**
     * Sets the record of {@code tag}.
     *
     * @return the record it replaced, or {@code null} (also when that record was corrupted: its extent is then
     *         not to be trusted, let alone freed).
     * @throws StoreFullException if the map cannot take another entry.
     * @throws BlockCorruptedException if the file is truncated or unreadable.
     */
    BlockRecord put(final String tag, final BlockRecord record) throws IOException
    {
        checkNotTruncated(tag);
        encode(tag, record);
        try (ExternalMapQueryContext<CharSequence, ByteBuffer, ?> context = map.queryContext(tag))
        {
            context.updateLock().lock();
            final MapEntry<CharSequence, ByteBuffer> entry = context.entry();
            final BlockRecord previous = decodeOrForget(tag, entry);
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
        catch (final RuntimeException e)
        {
            throw unreadable(tag, e);
        }
        finally
        {
            mappedBytes = Math.max(mappedBytes, file.length()); // a new tier grows the file
        }
    }

    /**
     * Removes the record of {@code tag}.
     *
     * @return it, or {@code null} (also when it was corrupted).
     * @throws BlockCorruptedException if the file is truncated or unreadable.
     */
    BlockRecord remove(final String tag) throws BlockCorruptedException
    {
        checkNotTruncated(tag);
        try (ExternalMapQueryContext<CharSequence, ByteBuffer, ?> context = map.queryContext(tag))
        {
            context.updateLock().lock();
            final MapEntry<CharSequence, ByteBuffer> entry = context.entry();
            final BlockRecord previous = decodeOrForget(tag, entry);
            if (entry != null)
            {
                entry.doRemove();
            }
            return previous;
        }
        catch (final RuntimeException e)
        {
            throw unreadable(tag, e);
        }
    }

    @Override
    public void close() throws IOException
    {
        try
        {
            sizeProbe.close();
        }
        finally
        {
            map.close();
        }
    }

    private void encode(final String tag, final BlockRecord record)
    {
        value.putInt(SLAB_OFFSET, record.slab())
            .putLong(POSITION_OFFSET, record.offset())
            .putInt(LENGTH_OFFSET, record.length())
            .putLong(VERSION_OFFSET, record.version())
            .putInt(CHECKSUM_OFFSET, record.checksum());
        value.putInt(RECORD_CRC_OFFSET, recordCrc(tag, value));
    }

    private BlockRecord decode(final String tag, final MapEntry<CharSequence, ByteBuffer> entry)
        throws BlockCorruptedException
    {
        if (entry == null)
        {
            return null;
        }
        final Data<ByteBuffer> data = entry.value();
        final RandomDataInput in = data.bytes();
        final long base = data.offset();
        for (int i = 0; i < RECORD_CRC_OFFSET; i++)
        {
            fields.put(i, in.readByte(base + i));
        }
        final int expected = in.readInt(base + RECORD_CRC_OFFSET);
        final int actual = recordCrc(tag, fields);
        if (actual != expected)
        {
            throw new BlockCorruptedException(String.format(
                "index record of block '%s' failed its CRC32C check: expected %08x, actual %08x (in %s)",
                tag, expected, actual, file));
        }
        return new BlockRecord(fields.getInt(SLAB_OFFSET), fields.getLong(POSITION_OFFSET),
            fields.getInt(LENGTH_OFFSET), fields.getLong(VERSION_OFFSET), fields.getInt(CHECKSUM_OFFSET));
    }

    /** Like {@link #decode}, but a corrupted record, about to be replaced or removed, is reported and dropped. */
    private BlockRecord decodeOrForget(final String tag, final MapEntry<CharSequence, ByteBuffer> entry)
    {
        try
        {
            return decode(tag, entry);
        }
        catch (final BlockCorruptedException e)
        {
            LOG.log(WARNING, "spillway: " + e.getMessage() + "; its extent stays unused");
            return null;
        }
    }

    private int recordCrc(final String tag, final ByteBuffer record)
    {
        crc.reset();
        crc.update(tag.getBytes(StandardCharsets.UTF_8));
        crc.update(record.array(), record.arrayOffset(), RECORD_CRC_OFFSET);
        return (int)crc.getValue();
    }

    private void checkNotTruncated(final String tag) throws BlockCorruptedException
    {
        final long size;
        try
        {
            size = sizeProbe.size();
        }
        catch (final IOException e)
        {
            throw new BlockCorruptedException("cannot look up block '" + tag + "': the size of index file " + file +
                " is unreadable: " + e.getMessage(), e);
        }
        if (size < mappedBytes)
        {
            throw new BlockCorruptedException("cannot look up block '" + tag + "': index file " + file +
                " was truncated to " + size + " of its " + mappedBytes + " bytes");
        }
    }

    private BlockCorruptedException unreadable(final String tag, final RuntimeException e)
    {
        return new BlockCorruptedException("index file " + file + " is corrupted: the lookup of block '" + tag +
            "' failed: " + e, e);
    }
}
