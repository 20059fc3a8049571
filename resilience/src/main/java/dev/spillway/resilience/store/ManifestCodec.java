package dev.spillway.resilience.store;

import dev.spillway.checkpoint.Cut;
import dev.spillway.io.DirectIo;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UTFDataFormatException;
import java.nio.ByteBuffer;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.zip.CRC32C;

/**
 * The binary form of a {@link Manifest}, big-endian:
 * <pre>
 *   int magic 'SPCK', int format version,
 *   long generation, long frontier, long globalIndex, long incarnation, long programHash, long createdMillis,
 *   long originMillis,
 *   int entry count, then per entry: UTF tag, int length, long version, long fileGeneration, long offset,
 *   long checksum,
 *   int CRC32C of every byte before it.
 * </pre>
 * Format version 1, written before cuts across ranks existed, lacks {@code globalIndex}; it reads as a local cut.
 */
final class ManifestCodec
{
    static final int MAGIC = 0x5350434B;
    static final int FORMAT_VERSION = 2;
    private static final int FORMAT_LOCAL_CUTS = 1;
    /** Magic, version, six longs (version 1), the entry count, the trailing CRC. */
    private static final int FIXED_BYTES = 4 + 4 + 6 * 8 + 4 + 4;
    /** The smallest entry: an empty tag (2 bytes), an int and four longs. */
    private static final int MIN_ENTRY_BYTES = 2 + 4 + 4 * 8;

    private ManifestCodec()
    {
    }

    /** @return the manifest's bytes, trailing checksum included. */
    static byte[] encode(final Manifest manifest)
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream(FIXED_BYTES + 64 * manifest.entries().size());
        try (DataOutputStream out = new DataOutputStream(bytes))
        {
            final Cut cut = manifest.cut();
            out.writeInt(MAGIC);
            out.writeInt(FORMAT_VERSION);
            out.writeLong(cut.generation());
            out.writeLong(cut.frontier());
            out.writeLong(cut.globalIndex());
            out.writeLong(cut.incarnation());
            out.writeLong(cut.programHash());
            out.writeLong(manifest.createdMillis());
            out.writeLong(manifest.originMillis());
            out.writeInt(manifest.entries().size());
            for (final ManifestEntry entry : manifest.entries().values())
            {
                out.writeUTF(entry.tag());
                out.writeInt(entry.length());
                out.writeLong(entry.version());
                out.writeLong(entry.fileGeneration());
                out.writeLong(entry.offset());
                out.writeLong(entry.checksum());
            }
            out.flush();
            out.writeInt(crc(bytes.toByteArray(), bytes.size()));
        }
        catch (final UTFDataFormatException e)
        {
            throw new IllegalArgumentException("a tag of generation " + manifest.generation() +
                " is longer than 65535 bytes in UTF-8", e);
        }
        catch (final IOException e)
        {
            throw new IllegalStateException("writing to a byte array failed", e);
        }
        return bytes.toByteArray();
    }

    /**
     * @param file          the manifest's file name, for messages.
     * @param bytes         the manifest's bytes.
     * @param checkChecksum whether to check the trailing CRC32C (off only for the store's test-only negative control).
     * @throws ManifestCorruptedException naming {@code file} and what is wrong.
     */
    static Manifest decode(final String file, final byte[] bytes, final boolean checkChecksum)
        throws ManifestCorruptedException
    {
        if (bytes.length < FIXED_BYTES)
        {
            throw new ManifestCorruptedException("manifest " + file + " is truncated: " + bytes.length +
                " bytes, the smallest manifest has " + FIXED_BYTES);
        }
        final int body = bytes.length - 4;
        final int stored = ByteBuffer.wrap(bytes, body, 4).getInt();
        final int computed = crc(bytes, body);
        if (checkChecksum && stored != computed)
        {
            throw new ManifestCorruptedException(String.format(
                "manifest %s failed its CRC32C check (torn or corrupted): stored %08x, computed %08x over %d bytes",
                file, stored, computed, body));
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes, 0, body)))
        {
            final int magic = in.readInt();
            if (magic != MAGIC)
            {
                throw new ManifestCorruptedException(String.format("manifest %s has magic %08x, expected %08x",
                    file, magic, MAGIC));
            }
            final int version = in.readInt();
            if (version != FORMAT_VERSION && version != FORMAT_LOCAL_CUTS)
            {
                throw new ManifestCorruptedException("manifest " + file + " has format version " + version +
                    "; this build reads versions " + FORMAT_LOCAL_CUTS + " and " + FORMAT_VERSION);
            }
            final long generation = in.readLong();
            final long frontier = in.readLong();
            final long globalIndex = version == FORMAT_LOCAL_CUTS ? Cut.LOCAL : in.readLong();
            final Cut cut = new Cut(generation, frontier, globalIndex, in.readLong(), in.readLong());
            final long createdMillis = in.readLong();
            final long originMillis = in.readLong();
            final int count = in.readInt();
            if (count < 0 || (long)count * MIN_ENTRY_BYTES > in.available())
            {
                throw new ManifestCorruptedException("manifest " + file + " claims " + count + " entries in " +
                    in.available() + " bytes");
            }
            final SortedMap<String, ManifestEntry> entries = new TreeMap<>();
            for (int i = 0; i < count; i++)
            {
                final ManifestEntry entry = new ManifestEntry(in.readUTF(), in.readInt(), in.readLong(),
                    in.readLong(), in.readLong(), in.readLong());
                check(file, cut, entry);
                entries.put(entry.tag(), entry);
            }
            if (in.available() != 0)
            {
                throw new ManifestCorruptedException("manifest " + file + " has " + in.available() +
                    " unexpected bytes after its " + count + " entries");
            }
            return new Manifest(cut, createdMillis, originMillis, entries);
        }
        catch (final EOFException | UTFDataFormatException e)
        {
            throw new ManifestCorruptedException("manifest " + file + " is truncated or garbled: " + e);
        }
        catch (final ManifestCorruptedException e)
        {
            throw e;
        }
        catch (final IOException e)
        {
            throw new IllegalStateException("reading a byte array failed", e);
        }
    }

    private static void check(final String file, final Cut cut, final ManifestEntry entry)
        throws ManifestCorruptedException
    {
        if (entry.length() < 0 || entry.offset() < 0 || entry.offset() % DirectIo.ALIGNMENT != 0 ||
            entry.fileGeneration() < 0 || entry.fileGeneration() > cut.generation())
        {
            throw new ManifestCorruptedException("manifest " + file + " has an impossible entry " + entry);
        }
    }

    private static int crc(final byte[] bytes, final int length)
    {
        final CRC32C crc = new CRC32C();
        crc.update(bytes, 0, length);
        return (int)crc.getValue();
    }
}
