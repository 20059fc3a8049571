package dev.spillway.resilience.store;

import dev.spillway.checkpoint.Cut;
import dev.spillway.checkpoint.GenerationWriter;
import dev.spillway.io.CrashPoints;
import dev.spillway.io.DurableFiles;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One generation of a {@link FileCheckpointStore} being written: blocks go to {@code blocks-N.dat} as they are
 * saved; {@link #commit} makes them durable, then writes, syncs and renames the manifest into place.
 */
final class FileGenerationWriter implements GenerationWriter
{
    private final FileCheckpointStore store;
    private final Path dir;
    private final Cut cut;
    private final long originMillis;
    private final boolean directIo;
    private final SortedMap<String, ManifestEntry> entries;
    private final BlockChecksum checksum = new BlockChecksum();
    private BlockFile blocks;
    private long bytesWritten;
    private boolean done;

    /** @param inherited the entries of the newest committed generation, copied. */
    FileGenerationWriter(final FileCheckpointStore store, final Path dir, final Cut cut, final long originMillis,
        final boolean directIo, final SortedMap<String, ManifestEntry> inherited)
    {
        this.store = store;
        this.dir = dir;
        this.cut = cut;
        this.originMillis = originMillis;
        this.directIo = directIo;
        this.entries = new TreeMap<>(inherited);
    }

    @Override
    public Cut cut()
    {
        return cut;
    }

    @Override
    public void save(final String tag, final ByteBuffer src, final long version) throws IOException
    {
        checkOpen();
        if (blocks == null)
        {
            blocks = BlockFile.create(Generations.blocks(dir, cut.generation()), cut.generation(), directIo);
        }
        final long sum = checksum.of(src);
        final long offset = blocks.append(tag, src);
        entries.put(tag, new ManifestEntry(tag, src.remaining(), version, cut.generation(), offset, sum));
        bytesWritten += src.remaining();
    }

    /** {@inheritDoc} The bytes counted are the saved blocks' lengths, without alignment padding. */
    @Override
    public long commit() throws IOException
    {
        checkOpen();
        final Manifest manifest = new Manifest(cut, System.currentTimeMillis(), originMillis, entries);
        try
        {
            if (blocks != null)
            {
                blocks.force();
                blocks.close();
            }
            CrashPoints.hit(CrashPoints.BEFORE_MANIFEST);
            Generations.writeManifest(dir, manifest);
        }
        catch (final IOException e)
        {
            throw new IOException("checkpoint generation " + cut.generation() + " in " + dir +
                " failed to commit: " + e.getMessage(), e);
        }
        done = true;
        DurableFiles.syncDirectory(dir);
        store.committed(manifest);
        return bytesWritten;
    }

    @Override
    public void abandon()
    {
        if (done)
        {
            return;
        }
        done = true;
        if (blocks != null)
        {
            try
            {
                blocks.close();
            }
            catch (final IOException e)
            {
                store.warn("could not close " + blocks.path() + ": " + e);
            }
        }
        Generations.delete(Generations.manifestTmp(dir, cut.generation()), store::warn);
        Generations.delete(Generations.blocks(dir, cut.generation()), store::warn);
        store.finished(this);
    }

    private void checkOpen()
    {
        if (done)
        {
            throw new IllegalStateException("checkpoint generation " + cut.generation() +
                " is already committed or abandoned");
        }
    }
}
