package dev.spillway.kernels.graph;

/**
 * Where the kernels' graph builders submit work. Dependencies follow from submission order and privileges, as in
 * Spillway. Implementations: {@link EngineGraph} (the Spillway engine, in core or out of core),
 * {@link MappedGraph} (whole matrices in files mapped by the OS: the mmap baseline) and {@link ScheduleGraph} (runs
 * nothing, records the transfers a multi-rank run would make). Tiles declared with a
 * {@link Home} are placed on ranks when the engine graph spans several; tasks run where the tile they write lives.
 */
public interface TileGraph extends AutoCloseable
{
    /** @return {@code spillway}, {@code mmap} or {@code schedule}. */
    String name();

    Tile tile(String tag, int bytes);

    /** A tile that stays in DRAM once written, such as a ghost layer. */
    Tile pinnedTile(String tag, int bytes);

    /** A tile with a home rank; graphs on one rank ignore the home. */
    default Tile tile(final String tag, final int bytes, final Home home)
    {
        return tile(tag, bytes);
    }

    /** A pinned tile with a home rank, where it stays in DRAM. */
    default Tile pinnedTile(final String tag, final int bytes, final Home home)
    {
        return pinnedTile(tag, bytes);
    }

    TileTaskBuilder task(String name);

    /** Waits for every submitted task; rethrows the first failure with the task's name. */
    void awaitAll();

    /**
     * Ends the phase that checkpoints may cover: later tasks (verification, checksums) have effects outside their
     * tiles, so a restart must run them again. Graphs without checkpoints ignore it.
     */
    default void endCheckpoints()
    {
    }

    /**
     * Marks the start of phase {@code name} of a run (generation, compute, verification, checksum) in the graph's
     * trace; it lasts until the next phase starts. Graphs without a trace ignore it.
     */
    default void phase(final String name)
    {
    }

    /** @return counters for progress output. */
    GraphProgress progress();

    @Override
    void close();
}
