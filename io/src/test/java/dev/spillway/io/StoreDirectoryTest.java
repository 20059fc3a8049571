package dev.spillway.io;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Store directories and settings, apart from any store. */
final class StoreDirectoryTest
{
    @TempDir
    Path dir;

    @Test
    void directoryOfAReusedPidIsStale() throws IOException
    {
        final long pid = ProcessHandle.current().pid();
        final Path reused = Files.createDirectories(dir.resolve("spillway-" + pid + "-old"));
        Files.writeString(reused.resolve(StoreDirectory.OWNER_FILE), pid + " 1\n");
        final Path noOwnerFile = Files.createDirectories(dir.resolve("spillway-" + pid + "-new"));

        final StoreDirectory created = StoreDirectory.create(dir);

        assertFalse(Files.exists(reused), "a live pid that started at another time is not the owner");
        assertTrue(Files.exists(noOwnerFile), "without owner.pid the pid in the name counts, and it is alive");
        assertTrue(Files.readString(created.path().resolve(StoreDirectory.OWNER_FILE)).startsWith(pid + " "));
        created.delete();
        assertFalse(Files.exists(created.path()));
    }

    @Test
    void settingsAreValidated()
    {
        assertThrows(NullPointerException.class, () -> new StoreSettings(null, 1, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new StoreSettings(dir, 0, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new StoreSettings(dir, 1, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> new StoreSettings(dir, 1, 1, -1));
    }
}
