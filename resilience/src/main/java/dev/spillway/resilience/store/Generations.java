package dev.spillway.resilience.store;

import dev.spillway.io.CrashPoints;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The file names of a checkpoint directory, the durable write of a manifest, what a scan of the directory finds, and
 * the deletion of what is no longer kept.
 */
final class Generations
{
    /** The marker of a finished run. */
    static final String COMPLETE = "complete";
    /** The 8-byte count of completed tasks. */
    static final String PROGRESS = "progress";
    /** How many times the run in this directory restarted, and when it first started ({@link RunStarts}). */
    static final String STARTS = "starts";
    /** Restore attempts per generation, while a restore is in progress. */
    static final String ATTEMPTS = "restore-attempts";
    private static final Pattern MANIFEST = Pattern.compile("gen-(\\d{1,18})\\.manifest");
    private static final Pattern MANIFEST_TMP = Pattern.compile("gen-(\\d{1,18})\\.manifest\\.tmp");
    private static final Pattern BLOCKS = Pattern.compile("blocks-(\\d{1,18})\\.dat");

    private Generations()
    {
    }

    static Path manifest(final Path dir, final long generation)
    {
        return dir.resolve("gen-" + generation + ".manifest");
    }

    static Path manifestTmp(final Path dir, final long generation)
    {
        return dir.resolve("gen-" + generation + ".manifest.tmp");
    }

    static Path blocks(final Path dir, final long generation)
    {
        return dir.resolve("blocks-" + generation + ".dat");
    }

    /**
     * Writes {@code manifest} under its generation's name as one step: a temporary file, forced, then renamed over the
     * name. The caller syncs the directory.
     */
    static void writeManifest(final Path dir, final Manifest manifest) throws IOException
    {
        final Path tmp = manifestTmp(dir, manifest.generation());
        try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE))
        {
            final ByteBuffer bytes = ByteBuffer.wrap(ManifestCodec.encode(manifest));
            while (bytes.hasRemaining())
            {
                channel.write(bytes);
            }
            channel.force(true);
        }
        CrashPoints.hit(CrashPoints.MANIFEST_RENAME);
        Files.move(tmp, manifest(dir, manifest.generation()), StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * What a checkpoint directory holds.
     *
     * @param manifests   generations with a committed manifest, newest first.
     * @param blockFiles  generations with a blocks file.
     * @param temporaries every {@code *.tmp} file.
     * @param highest     the highest generation number of any file, or -1.
     */
    record Scan(List<Long> manifests, Set<Long> blockFiles, List<Path> temporaries, long highest)
    {
    }

    static Scan scan(final Path dir) throws IOException
    {
        final TreeSet<Long> manifests = new TreeSet<>(Collections.reverseOrder());
        final Set<Long> blockFiles = new TreeSet<>();
        final List<Path> temporaries = new ArrayList<>();
        long highest = -1;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir))
        {
            for (final Path file : files)
            {
                final String name = file.getFileName().toString();
                final long manifest = number(MANIFEST, name);
                final long blocks = number(BLOCKS, name);
                if (manifest >= 0)
                {
                    manifests.add(manifest);
                }
                if (blocks >= 0)
                {
                    blockFiles.add(blocks);
                }
                if (name.endsWith(".tmp"))
                {
                    temporaries.add(file);
                }
                highest = Math.max(highest, Math.max(Math.max(manifest, blocks), number(MANIFEST_TMP, name)));
            }
        }
        return new Scan(List.copyOf(manifests), blockFiles, temporaries, highest);
    }

    /**
     * Deletes every manifest not in {@code kept}, every blocks file not in {@code referenced}, and every temporary
     * file, in that order, so a crash part way leaves only unreferenced files for the next collection.
     *
     * @param warn told of each file that could not be deleted.
     */
    static void collect(final Path dir, final Set<Long> kept, final Set<Long> referenced, final Consumer<String> warn)
        throws IOException
    {
        final Scan scan = scan(dir);
        for (final long generation : scan.manifests())
        {
            if (!kept.contains(generation))
            {
                delete(manifest(dir, generation), warn);
            }
        }
        for (final long generation : scan.blockFiles())
        {
            if (!referenced.contains(generation))
            {
                delete(blocks(dir, generation), warn);
            }
        }
        for (final Path tmp : scan.temporaries())
        {
            delete(tmp, warn);
        }
    }

    /** Deletes every generation's files: manifests first, so none refers to a missing blocks file. */
    static void deleteAll(final Path dir, final Consumer<String> warn) throws IOException
    {
        collect(dir, Set.of(), Set.of(), warn);
    }

    static void delete(final Path file, final Consumer<String> warn)
    {
        try
        {
            Files.deleteIfExists(file);
        }
        catch (final IOException e)
        {
            warn.accept("could not delete " + file + ": " + e);
        }
    }

    private static long number(final Pattern pattern, final String name)
    {
        final Matcher matcher = pattern.matcher(name);
        return matcher.matches() ? Long.parseLong(matcher.group(1)) : -1;
    }
}
