package dev.spillway.internal;

import dev.spillway.checkpoint.RestorePoint;
import dev.spillway.io.BlockInfo;
import dev.spillway.io.Store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Set;

/**
 * The spill store of a resumed run: a restored object's first fetch reads its block from the checkpoint (verifying
 * it again), so restoring costs no copy; once the object is written back, the spill store has it. IO thread only.
 */
final class RestoringStore implements Store
{
    private final Store spill;
    private final RestorePoint restored;
    private final Set<String> inCheckpoint;

    RestoringStore(final Store spill, final RestorePoint restored)
    {
        this.spill = spill;
        this.restored = restored;
        this.inCheckpoint = new HashSet<>(restored.blocks().keySet());
    }

    @Override
    public String name()
    {
        return spill.name();
    }

    @Override
    public int alignment()
    {
        return spill.alignment();
    }

    @Override
    public void write(final String tag, final ByteBuffer src, final long version) throws IOException
    {
        spill.write(tag, src, version);
        inCheckpoint.remove(tag);
    }

    @Override
    public int read(final String tag, final ByteBuffer dst) throws IOException
    {
        return inCheckpoint.contains(tag) ? restored.read(tag, dst) : spill.read(tag, dst);
    }

    @Override
    public BlockInfo info(final String tag) throws IOException
    {
        if (inCheckpoint.contains(tag))
        {
            final RestorePoint.Block b = restored.blocks().get(tag);
            return new BlockInfo(b.length(), b.version(), 0);
        }
        return spill.info(tag);
    }

    @Override
    public void delete(final String tag) throws IOException
    {
        inCheckpoint.remove(tag);
        spill.delete(tag);
    }

    @Override
    public long stagingBytes()
    {
        return spill.stagingBytes();
    }

    @Override
    public long diskBytesUsed()
    {
        return spill.diskBytesUsed();
    }

    @Override
    public void close() throws IOException
    {
        spill.close();
    }
}
