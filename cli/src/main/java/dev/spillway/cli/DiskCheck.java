package dev.spillway.cli;

import dev.spillway.SpillwayConfig;
import dev.spillway.io.StoreKind;
import dev.spillway.io.StoreSettings;
import dev.spillway.io.Stores;
import dev.spillway.kernels.Footprint;
import dev.spillway.memory.ByteUnits;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.IntStream;

/**
 * The up-front disk check of {@code run} and the store sizing behind it. The store is sized for the kernel's objects
 * ({@link StoreSettings#forBlocks}) and capped at what it needs to hold all of them at once
 * ({@link Stores#diskBytesBound}: every object, block rounding, rewrite and slab slack, the index; or the whole
 * Chronicle map), so a run never takes more of {@code --dir} than this check asked to be free. Under past-to-future
 * logging a rank also keeps a copy of each payload it logs beside the store, for replays ({@code p2f-replays}).
 *
 * @param kind    the store.
 * @param sizing  maximum and average block of the store, for {@link SpillwayConfig#storeSizing}.
 * @param bound   the disk bytes the store may take, for {@link SpillwayConfig#diskCap}.
 * @param objects how many objects may be stored.
 * @param bytes   their bytes.
 * @param replays the bytes of the replay copies the rank may keep beside the store, at most.
 */
record DiskCheck(StoreKind kind, StoreSettings sizing, long bound, int objects, long bytes, long replays)
{
    /**
     * @param dir    the store's parent directory (it exists).
     * @param ranks  ranks of the run: on several, a rank may also store copies of objects pinned on others.
     * @param logged the payload sizes of the transfers the rank logs: each is stored as an object of the next
     *               generation, and copied once more beside the store for replays.
     */
    static DiskCheck of(final StoreKind kind, final Path dir, final Footprint footprint, final int ranks,
        final int[] logged) throws IOException
    {
        final int[] stored = IntStream.concat(ranks == 1 ? Arrays.stream(footprint.stored()) : IntStream.concat(
            Arrays.stream(footprint.stored()), footprint.pinned().stream().mapToInt(Footprint.Item::bytes)),
            Arrays.stream(logged)).toArray();
        final StoreSettings sizing = StoreSettings.forBlocks(dir, stored);
        return new DiskCheck(kind, sizing, Stores.diskBytesBound(kind, sizing, stored), stored.length,
            Arrays.stream(stored).asLongStream().sum(), Arrays.stream(logged).asLongStream().sum());
    }

    /** @return the bytes of {@code --dir} the rank may take: the store's bound and the replay copies. */
    long total()
    {
        return bound + replays;
    }

    /** Sizes and caps the store of {@code config} as checked. */
    SpillwayConfig apply(final SpillwayConfig config)
    {
        return config.storeSizing(sizing.maxBlocks(), sizing.averageBlockBytes()).diskCap(bound);
    }

    /** @return null if {@code free} bytes hold the bound, else what is wrong and what to change. */
    String problem(final long free)
    {
        if (free >= total())
        {
            return null;
        }
        return String.format("--dir %s has %s free, but this run may take up to %s there: %s%s; free some space or " +
                "choose another --dir", sizing.dir(), ByteUnits.format(free), ByteUnits.format(total()),
            kind == StoreKind.CHRONICLE ? "the chronicle store's map, allocated whole at open, for all " + objects +
                " objects (" + ByteUnits.format(bytes) + ")" : "all " + objects + " objects (" + ByteUnits.format(bytes) +
                ") spilled at once, rounded to disk blocks, plus the store's index",
            replays == 0 ? "" : ", and " + ByteUnits.format(replays) + " of payload copies kept for replays " +
                "(past-to-future logging)");
    }
}
