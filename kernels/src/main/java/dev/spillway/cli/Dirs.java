package dev.spillway.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** File tree helpers. */
final class Dirs
{
    private Dirs()
    {
    }

    /** Deletes {@code dir} and everything under it, if it exists. */
    static void deleteTree(final Path dir) throws IOException
    {
        if (!Files.exists(dir))
        {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir))
        {
            for (final Path p : (Iterable<Path>)paths.sorted(Comparator.reverseOrder())::iterator)
            {
                Files.delete(p);
            }
        }
    }
}
