package dev.spillway.cli;

import dev.spillway.kernels.stencil.Stencil;
import dev.spillway.memory.ByteUnits;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Reference checksums of stencil runs too large to verify in-process: each computed once by
 * {@code bench stencil-reference} in a JVM of its own, outside every memory cap, with the whole grid in its heap,
 * and kept in {@code DIR/reference-checksums/stencil-KEY} ({@link Stencil#referenceKey}) for later benches.
 */
final class StencilReferences
{
    private final Path dir;
    private final long timeoutSeconds;

    /**
     * @param dir            the directory of the kept checksums.
     * @param timeoutSeconds the limit of one computation.
     */
    StencilReferences(final Path dir, final long timeoutSeconds)
    {
        this.dir = dir;
        this.timeoutSeconds = timeoutSeconds;
    }

    /**
     * @param problem the stencil's options ({@code --grid … --tile … --sweeps … --steps …}) that made {@code stencil}.
     * @return the checksum its runs must report, kept or computed now.
     * @throws IllegalStateException when the computation fails, naming its log.
     */
    String checksum(final Stencil stencil, final List<String> problem) throws IOException, InterruptedException
    {
        final Path kept = dir.resolve("stencil-" + stencil.referenceKey());
        if (Files.exists(kept))
        {
            final String checksum = Files.readString(kept).trim();
            System.err.printf("spillway: stencil reference checksum %s, kept in %s%n", checksum, kept);
            return checksum;
        }
        Files.createDirectories(dir);
        final long heap = stencil.dataBytes() + stencil.dataBytes() / 4 + (256L << 20);
        final List<String> args = new ArrayList<>(List.of("bench", "stencil-reference"));
        args.addAll(problem);
        final Path log = dir.resolve("stencil-" + stencil.referenceKey() + ".log");
        System.err.printf("spillway: computing the stencil reference checksum in a JVM of its own (-Xmx%s, no " +
            "cap) ... ", ByteUnits.format(heap));
        final long started = System.nanoTime();
        final Process p = new ProcessBuilder(ChildJvm.command(Long.toString(heap), args)).redirectErrorStream(true)
            .redirectOutput(log.toFile()).start();
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS))
        {
            p.destroyForcibly().waitFor();
            throw new IllegalStateException("the stencil reference took longer than " + timeoutSeconds + " s; see " +
                log);
        }
        final String expect = " for " + stencil.referenceKey();
        final String line = Files.readAllLines(log).stream().filter(l -> l.startsWith(StencilReferenceCommand.PREFIX))
            .findFirst().orElse("");
        if (p.exitValue() != 0 || !line.endsWith(expect))
        {
            throw new IllegalStateException("the stencil reference failed (exit " + p.exitValue() + ", expected a " +
                "line '" + StencilReferenceCommand.PREFIX + "…" + expect + "'); see " + log);
        }
        final String checksum = line.substring(StencilReferenceCommand.PREFIX.length(), line.length() - expect.length());
        Files.writeString(kept, checksum + System.lineSeparator());
        System.err.printf("%s in %.0f s, kept in %s%n", checksum, (System.nanoTime() - started) / 1e9, kept);
        return checksum;
    }
}
