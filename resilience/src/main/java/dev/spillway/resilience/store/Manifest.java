package dev.spillway.resilience.store;

import dev.spillway.checkpoint.Cut;

import java.util.SortedMap;

/**
 * The content of one {@code gen-N.manifest}: what makes a generation.
 *
 * @param cut           the cut the generation records.
 * @param createdMillis wall-clock time of the commit.
 * @param originMillis  wall-clock time the run (incarnation 0) of this checkpoint directory started; kept across
 *                      restarts so the observed time between failures can be estimated.
 * @param entries       every block of the generation by tag, inherited ones included.
 */
record Manifest(Cut cut, long createdMillis, long originMillis, SortedMap<String, ManifestEntry> entries)
{
    /** @return the generation number. */
    long generation()
    {
        return cut.generation();
    }

    /** @return the sum of the block lengths. */
    long bytes()
    {
        long bytes = 0;
        for (final ManifestEntry entry : entries.values())
        {
            bytes += entry.length();
        }
        return bytes;
    }
}
