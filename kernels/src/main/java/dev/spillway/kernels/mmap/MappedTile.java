package dev.spillway.kernels.mmap;

import dev.spillway.kernels.graph.Tile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;

/** A tile of a {@link MappedGraph}: a slice of a mapped file, or a direct buffer when pinned. */
final class MappedTile implements Tile
{
    final MappedGraph graph;
    private final String tag;
    private final ByteBuffer bytes;

    /** Guarded by the {@link DependencyTracker}: the last exclusive user and the readers since. */
    MappedTask lastWriter;
    final ArrayList<MappedTask> readers = new ArrayList<>();
    /** Finished readers are dropped when the list reaches this size, which doubles with the unfinished ones. */
    int readerPruneAt = DependencyTracker.READER_PRUNE;
    boolean written;
    /** The failed task whose output this tile should hold; set as tasks finish, read by the tile's next user. */
    MappedTask poisonedBy;

    MappedTile(final MappedGraph graph, final String tag, final ByteBuffer bytes)
    {
        this.graph = graph;
        this.tag = tag;
        this.bytes = bytes;
    }

    @Override
    public String tag()
    {
        return tag;
    }

    @Override
    public int size()
    {
        return bytes.capacity();
    }

    /** @return a fresh view at absolute index 0 in native order, read-only if asked. */
    ByteBuffer view(final boolean readOnly)
    {
        return (readOnly ? bytes.asReadOnlyBuffer() : bytes.duplicate()).order(ByteOrder.nativeOrder());
    }

    @Override
    public String toString()
    {
        return tag;
    }
}
