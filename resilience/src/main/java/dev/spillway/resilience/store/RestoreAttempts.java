package dev.spillway.resilience.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.TreeMap;

/**
 * Counts, durably, how often a restore began verifying each generation without finishing (G12, no poison loops):
 * a generation on which restore crashed {@link #LIMIT} times is quarantined and the next older one is tried. The
 * file ({@code generation count} per line) exists only while a restore is in progress.
 */
final class RestoreAttempts
{
    /** Crashed attempts after which a generation is skipped. */
    static final int LIMIT = 2;

    private final Path file;
    private final Map<Long, Integer> counts = new TreeMap<>();

    private RestoreAttempts(final Path file)
    {
        this.file = file;
    }

    /** Reads the attempts a crashed restore left behind; an unreadable line is ignored. */
    static RestoreAttempts load(final Path dir) throws IOException
    {
        final RestoreAttempts attempts = new RestoreAttempts(dir.resolve(Generations.ATTEMPTS));
        try
        {
            for (final String line : Files.readAllLines(attempts.file, StandardCharsets.US_ASCII))
            {
                final String[] fields = line.trim().split(" ");
                if (fields.length == 2 && fields[0].matches("\\d{1,18}") && fields[1].matches("\\d{1,9}"))
                {
                    attempts.counts.put(Long.parseLong(fields[0]), Integer.parseInt(fields[1]));
                }
            }
        }
        catch (final NoSuchFileException e)
        {
            // No restore crashed.
        }
        return attempts;
    }

    /** @return how many earlier restores crashed while verifying {@code generation}. */
    int crashes(final long generation)
    {
        return counts.getOrDefault(generation, 0);
    }

    /** Records, durably, that a restore starts verifying {@code generation}. */
    void begin(final long generation) throws IOException
    {
        counts.merge(generation, 1, Integer::sum);
        final StringBuilder text = new StringBuilder();
        counts.forEach((g, n) -> text.append(g).append(' ').append(n).append('\n'));
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING))
        {
            final ByteBuffer bytes = ByteBuffer.wrap(text.toString().getBytes(StandardCharsets.US_ASCII));
            while (bytes.hasRemaining())
            {
                channel.write(bytes);
            }
            channel.force(true);
        }
    }

    /** Forgets every attempt: the restore finished. */
    void finished() throws IOException
    {
        Files.deleteIfExists(file);
    }
}
