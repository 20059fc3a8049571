package dev.spillway.resilience.store;

import dev.spillway.checkpoint.Cut;
import dev.spillway.io.BlockCorruptedException;
import dev.spillway.io.DurableFiles;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * The files that make a generation of a {@link FileCheckpointStore} directory, for copying it elsewhere (a buddy
 * rank's copy) and back. A copy holds the same file names, so a store opened on it restores it, verifying every
 * checksum as usual.
 */
public final class GenerationFiles
{
    private GenerationFiles()
    {
    }

    /**
     * @return the names of every file generation {@code generation} of {@code dir} needs: the blocks files its manifest
     *         refers to (inherited ones included), then the manifest, which a copy must make durable last.
     * @throws IOException when the manifest is missing or does not verify.
     */
    public static List<String> names(final Path dir, final long generation) throws IOException
    {
        final Manifest manifest = read(dir, generation);
        final Set<Long> blockFiles = new TreeSet<>();
        manifest.entries().values().forEach(entry -> blockFiles.add(entry.fileGeneration()));
        final List<String> names = new ArrayList<>();
        blockFiles.forEach(g -> names.add(Generations.blocks(dir, g).getFileName().toString()));
        names.add(Generations.manifest(dir, generation).getFileName().toString());
        return names;
    }

    /**
     * @return the newest generation of {@code dir} whose manifest verifies and records the cut at
     *         {@code globalIndex}, or -1 when there is none.
     */
    public static long ofGlobalCut(final Path dir, final long globalIndex) throws IOException
    {
        if (!Files.isDirectory(dir))
        {
            return -1;
        }
        for (final long generation : Generations.scan(dir).manifests())
        {
            try
            {
                if (read(dir, generation).cut().globalIndex() == globalIndex)
                {
                    return generation;
                }
            }
            catch (final IOException e)
            {
                // A torn or foreign manifest is not the cut asked for.
            }
        }
        return -1;
    }

    /**
     * @return the digest of the generation of {@code dir} that records the global cut at {@code globalIndex}, for
     *         comparing replicas or runs; read from its manifest alone.
     * @throws IOException naming the cut and the directory when no verified manifest records it.
     */
    public static GenerationDigest digest(final Path dir, final long globalIndex) throws IOException
    {
        final long generation = ofGlobalCut(dir, globalIndex);
        if (generation < 0)
        {
            throw new IOException(dir + " has no verified manifest of the cut at global index " + globalIndex);
        }
        return GenerationDigest.of(read(dir, generation));
    }

    /**
     * Reads blocks of the generation of {@code dir} that records the global cut at {@code globalIndex}, verifying
     * each against its checksum.
     *
     * @return tag to contents, in tag order.
     * @throws IOException naming the cut and the directory when no verified manifest records it, or the block that
     *                     is missing or fails its checksum.
     */
    public static SortedMap<String, ByteBuffer> blocks(final Path dir, final long globalIndex, final Set<String> tags)
        throws IOException
    {
        final long generation = ofGlobalCut(dir, globalIndex);
        if (generation < 0)
        {
            throw new IOException(dir + " has no verified manifest of the cut at global index " + globalIndex);
        }
        final Manifest manifest = read(dir, generation);
        final SortedMap<String, ByteBuffer> blocks = new TreeMap<>();
        try (BlockReader reader = new BlockReader(dir, true))
        {
            for (final String tag : new TreeSet<>(tags))
            {
                final ManifestEntry entry = manifest.entries().get(tag);
                if (entry == null)
                {
                    throw new IOException("generation " + generation + " of " + dir + " holds no block '" + tag + "'");
                }
                final ByteBuffer contents = ByteBuffer.allocate(entry.length());
                reader.read(generation, entry, contents);
                blocks.put(tag, contents);
            }
        }
        return blocks;
    }

    /**
     * @return the global cuts at or below {@code atMost} whose generation {@code dir} holds whole (see
     *         {@link #incomplete}), newest first; empty when the directory is missing.
     */
    public static List<Long> completeCuts(final Path dir, final long atMost) throws IOException
    {
        final TreeSet<Long> cuts = new TreeSet<>();
        if (Files.isDirectory(dir))
        {
            for (final long generation : Generations.scan(dir).manifests())
            {
                try
                {
                    final long cut = read(dir, generation).cut().globalIndex();
                    if (cut != Cut.LOCAL && cut <= atMost)
                    {
                        cuts.add(cut);
                    }
                }
                catch (final IOException e)
                {
                    // A torn or foreign manifest holds no cut.
                }
            }
        }
        final List<Long> complete = new ArrayList<>();
        for (final long cut : cuts.descendingSet())
        {
            if (incomplete(dir, cut) == null)
            {
                complete.add(cut);
            }
        }
        return complete;
    }

    /**
     * Checks, without reading blocks, that {@code dir} holds the generation of the global cut at {@code globalIndex}
     * whole: its manifest verifies and every blocks file it names is long enough for its blocks. Restoring it still
     * verifies every block's checksum.
     *
     * @return null when it does, else why not.
     */
    public static String incomplete(final Path dir, final long globalIndex) throws IOException
    {
        if (!Files.isDirectory(dir))
        {
            return "the directory " + dir + " is missing";
        }
        final long generation = ofGlobalCut(dir, globalIndex);
        if (generation < 0)
        {
            return dir + " has no verified manifest of the cut at global index " + globalIndex;
        }
        for (final ManifestEntry entry : read(dir, generation).entries().values())
        {
            final Path blocks = Generations.blocks(dir, entry.fileGeneration());
            final long size;
            try
            {
                size = Files.size(blocks);
            }
            catch (final NoSuchFileException e)
            {
                return "generation " + generation + " needs " + blocks.getFileName() + ", which is missing";
            }
            if (size < entry.offset() + entry.length())
            {
                return "generation " + generation + "'s block '" + entry.tag() + "' ends at byte " +
                    (entry.offset() + entry.length()) + " of " + blocks.getFileName() + ", which has " + size;
            }
        }
        return null;
    }

    /**
     * Reads every block of the generation of the global cut at {@code globalIndex} in {@code dir} and checks it
     * against its manifest and its checksums, as a restore does.
     *
     * @return null when it verifies, else why not, naming the block.
     */
    public static String unverified(final Path dir, final long globalIndex) throws IOException
    {
        final String incomplete = incomplete(dir, globalIndex);
        if (incomplete != null)
        {
            return incomplete;
        }
        final long generation = ofGlobalCut(dir, globalIndex);
        try (BlockReader reader = new BlockReader(dir, true))
        {
            for (final ManifestEntry entry : read(dir, generation).entries().values())
            {
                reader.verify(generation, entry);
            }
        }
        catch (final BlockCorruptedException e)
        {
            return e.getMessage();
        }
        return null;
    }

    /**
     * Keeps the {@code generations} newest generations of {@code dir} whose manifests verify, and every other one whose
     * cut lies at or after the global index {@code keptFrom}, with exactly the blocks files they refer to; deletes
     * every other generation file and temporary.
     *
     * @param keptFrom {@link Long#MAX_VALUE} to keep the newest only.
     * @param warn     told of each file that could not be deleted.
     */
    public static void keepNewest(final Path dir, final int generations, final long keptFrom,
        final Consumer<String> warn) throws IOException
    {
        final Set<Long> kept = new HashSet<>();
        final Set<Long> referenced = new HashSet<>();
        for (final long generation : Generations.scan(dir).manifests())
        {
            try
            {
                final Manifest manifest = read(dir, generation);
                if (kept.size() >= generations && manifest.cut().globalIndex() < keptFrom)
                {
                    continue;
                }
                manifest.entries().values().forEach(entry -> referenced.add(entry.fileGeneration()));
                kept.add(generation);
            }
            catch (final IOException e)
            {
                warn.accept("dropping " + Generations.manifest(dir, generation) + ": " + e.getMessage());
            }
        }
        Generations.collect(dir, kept, referenced, warn);
        DurableFiles.syncDirectory(dir);
    }

    /**
     * Deletes every generation of {@code dir} whose cut lies after the global cut at {@code globalIndex} (or whose
     * manifest does not verify), with the blocks files only they refer to: a copy newer than the cut a job resumes
     * from was never part of a global checkpoint, and keeping it could push the cut's own generation out.
     *
     * @param warn told of each file that could not be deleted.
     */
    public static void dropAfter(final Path dir, final long globalIndex, final Consumer<String> warn)
        throws IOException
    {
        if (!Files.isDirectory(dir))
        {
            return;
        }
        final Set<Long> kept = new HashSet<>();
        final Set<Long> referenced = new HashSet<>();
        for (final long generation : Generations.scan(dir).manifests())
        {
            try
            {
                final Manifest manifest = read(dir, generation);
                if (manifest.cut().globalIndex() <= globalIndex)
                {
                    manifest.entries().values().forEach(entry -> referenced.add(entry.fileGeneration()));
                    kept.add(generation);
                }
            }
            catch (final IOException e)
            {
                warn.accept("dropping " + Generations.manifest(dir, generation) + ": " + e.getMessage());
            }
        }
        Generations.collect(dir, kept, referenced, warn);
        DurableFiles.syncDirectory(dir);
    }

    private static Manifest read(final Path dir, final long generation) throws IOException
    {
        return Recovery.read(dir, generation, true);
    }
}
