package dev.spillway.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;


/**
 * A small tmpfs mounted on a test's directory, for runs that must meet a full disk; needs root (CAP_SYS_ADMIN), and
 * skips the test where it cannot mount (fails it under CI=true). Closing unmounts it.
 */
final class SmallDisk implements AutoCloseable
{
    private final Path mountPoint;

    private SmallDisk(final Path mountPoint)
    {
        this.mountPoint = mountPoint;
    }

    /** Mounts a tmpfs of {@code size} (mount's syntax, e.g. 97m) on {@code mountPoint}, creating it. */
    static SmallDisk mount(final Path mountPoint, final String size) throws Exception
    {
        Files.createDirectories(mountPoint);
        final String output = run("mount", "-t", "tmpfs", "-o", "size=" + size, "spillway-test", mountPoint.toString());
        CiOrSkip.require(output == null, "cannot mount a small tmpfs (root with CAP_SYS_ADMIN is needed): " + output);
        return new SmallDisk(mountPoint);
    }

    Path path()
    {
        return mountPoint;
    }

    @Override
    public void close() throws Exception
    {
        final String output = run("umount", mountPoint.toString());
        if (output != null && run("umount", "-l", mountPoint.toString()) != null)
        {
            throw new IOException("cannot unmount " + mountPoint + ": " + output);
        }
    }

    /** @return null on success, else the command's output and status. */
    private static String run(final String... command) throws Exception
    {
        final Process p = new ProcessBuilder(List.of(command)).redirectErrorStream(true).start();
        if (!p.waitFor(60, TimeUnit.SECONDS))
        {
            p.destroyForcibly();
            return String.join(" ", command) + " did not finish in 60 s";
        }
        final String out = new String(p.getInputStream().readAllBytes()).strip();
        return p.exitValue() == 0 ? null : String.join(" ", command) + ": exit " + p.exitValue() + ": " + out;
    }
}
