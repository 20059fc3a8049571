package dev.spillway.cli;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;


/**
 * A directory nobody may write in, root included: immutable ({@code chattr +i}, ext2/3/4, XFS, Btrfs) or else a
 * read-only bind mount of itself. Skips the test where neither works. Closing makes it writable again.
 */
final class ReadOnly implements AutoCloseable
{
    private final List<String> undo;

    private ReadOnly(final List<String> undo)
    {
        this.undo = undo;
    }

    static ReadOnly make(final Path dir) throws Exception
    {
        final String d = dir.toString();
        if (run("chattr", "+i", d))
        {
            return new ReadOnly(List.of("chattr", "-i", d));
        }
        if (run("mount", "--bind", "-o", "ro", d, d))
        {
            return new ReadOnly(List.of("umount", d));
        }
        CiOrSkip.require(false, "cannot make " + dir + " read-only (chattr +i and a read-only bind mount both failed)");
        return null;
    }

    @Override
    public void close() throws Exception
    {
        if (!run(undo.toArray(new String[0])))
        {
            throw new IllegalStateException("could not undo: " + String.join(" ", undo));
        }
    }

    private static boolean run(final String... command) throws Exception
    {
        final Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        return p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0;
    }
}
