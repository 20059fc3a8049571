package dev.spillway.resilience.store;

import dev.spillway.checkpoint.Cut;
import dev.spillway.io.CrashPoints;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * One restore of a {@link FileCheckpointStore}: tries the committed generations newest first, rejecting (and
 * logging, with the reason) any whose manifest or blocks do not verify, or on which restore crashed
 * {@link RestoreAttempts#LIMIT} times, and keeps the account {@link FileRestorePoint#explanation()} gives.
 */
final class Recovery
{
    /** Accept the newest generation that verifies, whatever its cut. */
    static final long NEWEST = Long.MIN_VALUE;

    private final Path dir;
    private final boolean verifyChecksums;
    private final Consumer<String> log;
    private final long globalCut;
    private final List<String> rejected = new ArrayList<>();
    private long readNanos;
    private long verifyNanos;
    private long bytesVerified;

    /**
     * @param globalCut the {@link Cut#globalIndex} of the only generation to accept, {@link Cut#LOCAL} to accept
     *                  none, or {@link #NEWEST} for the newest that verifies.
     */
    Recovery(final Path dir, final boolean verifyChecksums, final Consumer<String> log, final long globalCut)
    {
        this.globalCut = globalCut;
        this.dir = dir;
        this.verifyChecksums = verifyChecksums;
        this.log = log;
    }

    /**
     * @param generations the committed generations, newest first.
     * @return the newest that verifies, or {@code null}.
     */
    Manifest run(final List<Long> generations) throws IOException
    {
        if (globalCut != NEWEST)
        {
            return runGlobal(generations);
        }
        if (generations.isEmpty())
        {
            return null;
        }
        final RestoreAttempts attempts = RestoreAttempts.load(dir);
        boolean first = true;
        for (final long generation : generations)
        {
            final int crashes = attempts.crashes(generation);
            if (crashes >= RestoreAttempts.LIMIT)
            {
                reject(generation, "quarantined: restore crashed " + crashes + " times while verifying it");
                continue;
            }
            attempts.begin(generation);
            if (first)
            {
                CrashPoints.hit(CrashPoints.RESTORE);
                first = false;
            }
            try
            {
                final Manifest manifest = verify(generation);
                attempts.finished();
                return manifest;
            }
            catch (final IOException e)
            {
                reject(generation, e.getMessage());
            }
        }
        attempts.finished();
        log.accept("checkpoint: no verified generation in " + dir + "; starting from the beginning");
        return null;
    }

    /**
     * Restores the generation of the job's global cut and no other. Newer generations are skipped unread, beyond
     * their manifests; the one generation the job can use is never quarantined, since without it no rank can resume.
     */
    private Manifest runGlobal(final List<Long> generations) throws IOException
    {
        if (globalCut == Cut.LOCAL)
        {
            if (generations.isEmpty())
            {
                return null;
            }
            log.accept("checkpoint: the job has no global checkpoint yet; " + dir + " starts from the beginning");
            return null;
        }
        for (final long generation : generations)
        {
            final Manifest manifest;
            try
            {
                manifest = read(generation);
            }
            catch (final IOException e)
            {
                reject(generation, e.getMessage());
                continue;
            }
            if (manifest.cut().globalIndex() != globalCut)
            {
                rejected.add("generation " + generation + " skipped: " + (manifest.cut().global() ? "its cut at " +
                    "global index " + manifest.cut().globalIndex() + " is not the one every rank committed (index " +
                    globalCut + "), which the job resumes from" : "not a cut every rank took"));
                continue;
            }
            CrashPoints.hit(CrashPoints.RESTORE);
            try
            {
                return verify(generation);
            }
            catch (final IOException e)
            {
                reject(generation, e.getMessage());
                break;
            }
        }
        throw new IOException("no verified generation of the job's global checkpoint (cut at global index " +
            globalCut + ") in " + dir + ": " + (rejected.isEmpty() ? "none was found" : String.join("; ", rejected)));
    }

    /** @return the account of this recovery, for people. */
    String explain(final Manifest used, final long previousRunCompleted)
    {
        final StringBuilder text = new StringBuilder();
        text.append("restored checkpoint generation ").append(used.generation()).append(" from ").append(dir)
            .append('\n');
        text.append("  cut: frontier ").append(used.cut().frontier())
            .append(used.cut().global() ? ", global index " + used.cut().globalIndex() : "")
            .append(", incarnation ").append(used.cut().incarnation())
            .append(", program hash ").append(String.format("%016x", used.cut().programHash())).append('\n');
        text.append("  blocks: ").append(used.entries().size()).append(", ").append(used.bytes()).append(" bytes")
            .append(verifyChecksums ? "" : " (checksums NOT verified: test-only setting)").append('\n');
        text.append(String.format("  verification: %d bytes read in %.3f s, checksummed in %.3f s%n",
            bytesVerified, readSeconds(), verifySeconds()));
        if (previousRunCompleted >= 0)
        {
            text.append("  the previous run had completed ").append(previousRunCompleted).append(" tasks\n");
        }
        if (rejected.isEmpty())
        {
            text.append("  no generation was rejected");
        }
        else
        {
            text.append("  rejected:");
            rejected.forEach(reason -> text.append("\n    ").append(reason));
        }
        return text.toString();
    }

    double readSeconds()
    {
        return readNanos / 1e9;
    }

    double verifySeconds()
    {
        return verifyNanos / 1e9;
    }

    private Manifest read(final long generation) throws IOException
    {
        return read(dir, generation, verifyChecksums);
    }

    /**
     * @return generation {@code generation}'s manifest in {@code dir}.
     * @throws IOException when it is missing, torn, or (with {@code verifyChecksums}) fails its checksum.
     */
    static Manifest read(final Path dir, final long generation, final boolean verifyChecksums) throws IOException
    {
        final Path file = Generations.manifest(dir, generation);
        final byte[] bytes;
        try
        {
            bytes = Files.readAllBytes(file);
        }
        catch (final NoSuchFileException e)
        {
            throw new ManifestCorruptedException("manifest " + file.getFileName() + " is missing");
        }
        final Manifest manifest = ManifestCodec.decode(file.getFileName().toString(), bytes, verifyChecksums);
        if (manifest.generation() != generation)
        {
            throw new ManifestCorruptedException("manifest " + file.getFileName() + " records generation " +
                manifest.generation());
        }
        return manifest;
    }

    private Manifest verify(final long generation) throws IOException
    {
        final Manifest manifest = read(generation);
        try (BlockReader reader = new BlockReader(dir, verifyChecksums))
        {
            try
            {
                for (final ManifestEntry entry : manifest.entries().values())
                {
                    reader.verify(generation, entry);
                }
            }
            finally
            {
                readNanos += reader.readNanos();
                verifyNanos += reader.verifyNanos();
                bytesVerified += reader.bytesRead();
            }
        }
        return manifest;
    }

    private void reject(final long generation, final String reason)
    {
        final String line = "generation " + generation + " rejected: " + reason;
        rejected.add(line);
        log.accept("checkpoint: " + line);
    }
}
