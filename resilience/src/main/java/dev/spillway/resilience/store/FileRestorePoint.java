package dev.spillway.resilience.store;

import dev.spillway.checkpoint.Cut;
import dev.spillway.checkpoint.RestorePoint;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** A verified generation of a {@link FileCheckpointStore}; {@link #read} re-reads and re-checks from the files. */
final class FileRestorePoint implements RestorePoint
{
    private final Manifest manifest;
    private final BlockReader reader;
    private final Map<String, Block> blocks;
    private final String explanation;
    private final double readSeconds;
    private final double verifySeconds;
    private final long previousRunCompleted;

    FileRestorePoint(final Manifest manifest, final BlockReader reader, final String explanation,
        final double readSeconds, final double verifySeconds, final long previousRunCompleted)
    {
        this.manifest = manifest;
        this.reader = reader;
        this.explanation = explanation;
        this.readSeconds = readSeconds;
        this.verifySeconds = verifySeconds;
        this.previousRunCompleted = previousRunCompleted;
        final Map<String, Block> byTag = new LinkedHashMap<>();
        manifest.entries().forEach((tag, entry) -> byTag.put(tag, new Block(entry.length(), entry.version())));
        this.blocks = Collections.unmodifiableMap(byTag);
    }

    @Override
    public Cut cut()
    {
        return manifest.cut();
    }

    @Override
    public Map<String, Block> blocks()
    {
        return blocks;
    }

    /** {@inheritDoc} {@code dst}'s position is left unchanged. */
    @Override
    public int read(final String tag, final ByteBuffer dst) throws IOException
    {
        final ManifestEntry entry = manifest.entries().get(tag);
        if (entry == null)
        {
            throw new IllegalArgumentException("checkpoint generation " + manifest.generation() +
                " has no block for tag '" + tag + "'");
        }
        reader.read(manifest.generation(), entry, dst);
        return entry.length();
    }

    @Override
    public String explanation()
    {
        return explanation;
    }

    @Override
    public double readSeconds()
    {
        return readSeconds;
    }

    @Override
    public double verifySeconds()
    {
        return verifySeconds;
    }

    @Override
    public long previousRunCompleted()
    {
        return previousRunCompleted;
    }

    @Override
    public String toString()
    {
        return "restore point " + manifest.cut();
    }
}
