package dev.spillway.ranks;

import dev.spillway.checkpoint.Cut;
import dev.spillway.io.DurableFiles;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * Rank 0's record of the job's newest global checkpoint: the global index every rank has committed a cut at. One
 * line, {@code spillway-global-commit <index> <ranks> <incarnation> <millis> <crc32c>}, replaced atomically (written
 * to a temporary file, forced, renamed, directory forced), so a crash leaves the old record or the new one.
 */
final class GlobalCommitRecord
{
    private static final String MAGIC = "spillway-global-commit";

    private final Path file;

    /** @param file where the record lives, beside the ranks' checkpoint directories. */
    GlobalCommitRecord(final Path file)
    {
        this.file = file;
    }

    Path file()
    {
        return file;
    }

    /**
     * @param ranks the job's size, which must match the record's.
     * @return the recorded global index, or {@code Cut.LOCAL} when there is no record.
     * @throws IOException naming the file when it is corrupt or was written by a job of another size.
     */
    long read(final int ranks) throws IOException
    {
        final String text = DurableFiles.read(file);
        if (text == null)
        {
            return Cut.LOCAL;
        }
        final String[] f = text.split(" ");
        if (f.length != 6 || !f[0].equals(MAGIC) || !f[5].equals(crc(text.substring(0, text.lastIndexOf(' ')))))
        {
            throw new IOException("the global commit record " + file + " is corrupt ('" + text + "'): cannot tell " +
                "which checkpoint the ranks share; remove the checkpoint directory to start afresh");
        }
        if (Integer.parseInt(f[2]) != ranks)
        {
            throw new IOException("the global commit record " + file + " belongs to a job of " + f[2] +
                " ranks, this one has " + ranks + "; use another --checkpoint-dir");
        }
        return Long.parseLong(f[1]);
    }

    /** Durably records that every one of {@code ranks} ranks committed its cut at {@code index}. */
    void write(final long index, final int ranks, final long incarnation) throws IOException
    {
        final String body = MAGIC + " " + index + " " + ranks + " " + incarnation + " " + System.currentTimeMillis();
        DurableFiles.replace(file, body + " " + crc(body) + "\n");
    }

    /** The job finished: a later start of it begins afresh. */
    void delete() throws IOException
    {
        if (Files.deleteIfExists(file))
        {
            DurableFiles.syncDirectory(file.toAbsolutePath().getParent());
        }
    }

    private static String crc(final String text)
    {
        final CRC32C crc = new CRC32C();
        crc.update(text.getBytes(StandardCharsets.US_ASCII));
        return String.format("%08x", crc.getValue());
    }
}
