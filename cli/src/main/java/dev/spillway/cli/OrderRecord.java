package dev.spillway.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The DRAM budget that shaped a checkpointed run's submission order (LU's column blocks), kept in its checkpoint
 * directory until the run finishes. A resume with another {@code --dram} must submit the same program, or the program
 * hash refuses it at the cut.
 */
final class OrderRecord
{
    /** The file's name in the checkpoint directory. */
    static final String FILE = "submission-order";
    private static final String KEY = "order-dram ";

    private final Path file;

    private OrderRecord(final Path file)
    {
        this.file = file;
    }

    /** @return the record of the run checkpointed in {@code checkpointDir}. */
    static OrderRecord in(final Path checkpointDir)
    {
        return new OrderRecord(checkpointDir.resolve(FILE));
    }

    /**
     * @return the recorded budget in bytes, or null if none is recorded.
     * @throws IOException naming the file if it cannot be read or holds something else.
     */
    Long read() throws IOException
    {
        if (!Files.exists(file))
        {
            return null;
        }
        final String text = Files.readString(file, StandardCharsets.US_ASCII).trim();
        if (text.startsWith(KEY))
        {
            try
            {
                final long bytes = Long.parseLong(text.substring(KEY.length()).trim());
                if (bytes > 0)
                {
                    return bytes;
                }
            }
            catch (final NumberFormatException ignored)
            {
                // reported below
            }
        }
        throw new IOException(file + " should hold \"" + KEY + "BYTES\", the budget that shaped the checkpointed " +
            "run's submission order, but holds \"" + text + "\"; delete it to resume with this run's --dram");
    }

    /** Records {@code bytes}, atomically: a reader sees the old record or the new one. */
    void write(final long bytes) throws IOException
    {
        final Path next = file.resolveSibling(FILE + "." + ProcessHandle.current().pid() + ".new");
        Files.writeString(next, KEY + bytes + "\n", StandardCharsets.US_ASCII);
        Files.move(next, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /** Forgets the record once its run has finished: the next run in the directory starts afresh. */
    void delete() throws IOException
    {
        Files.deleteIfExists(file);
    }

    @Override
    public String toString()
    {
        return file.toString();
    }
}
