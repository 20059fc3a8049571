package dev.spillway.resilience;

import dev.spillway.Spillway;
import dev.spillway.SpillwayConfig;
import dev.spillway.checkpoint.CheckpointPolicy;
import dev.spillway.resilience.interval.AutoInterval;
import dev.spillway.resilience.interval.CheckpointModel;
import dev.spillway.resilience.interval.EverySeconds;
import dev.spillway.resilience.interval.EveryTasks;
import dev.spillway.resilience.interval.MtbfEstimator;
import dev.spillway.resilience.store.FileCheckpointStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Parsing of the checkpoint interval, and wiring a store and policy into a configuration. */
class CheckpointsTest
{
    @TempDir
    Path dir;

    @Test
    void parsesTasksSecondsAndAuto()
    {
        assertEquals("every 500 tasks", assertInstanceOf(EveryTasks.class, Checkpoints.policy("500", null)).describe());
        assertEquals("every 30 s", assertInstanceOf(EverySeconds.class, Checkpoints.policy(" 30s ", 99.0)).describe());
        assertEquals("every 0.5 s", Checkpoints.policy("0.5S", null).describe());
        final CheckpointPolicy auto = Checkpoints.policy("AUTO", 600.0);
        assertInstanceOf(AutoInterval.class, auto);
        assertTrue(auto.describe().contains("M 600 s given"), auto.describe());
        assertTrue(Checkpoints.policy("auto", null).describe().contains("M 3600 s"));
    }

    @Test
    void badValuesAreNamed()
    {
        for (final String bad : new String[] {"0", "-5", "ten", "5m", "1e3s", "0s", "s", "5 s", "NaNs", "1.s"})
        {
            final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Checkpoints.policy(bad, null), bad);
            assertTrue(e.getMessage().contains("'" + bad + "'"), e.getMessage());
        }
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Checkpoints.policy(" ", null)).getMessage()
            .contains("empty"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Checkpoints.policy(null, null)).getMessage()
            .contains("empty"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Checkpoints.policy("auto", -3.0)).getMessage()
            .contains("-3.0"));
    }

    @Test
    void configureOpensTheStoreAndSetsThePolicy() throws IOException
    {
        final SpillwayConfig config = Spillway.builder();
        assertEquals(config, Checkpoints.configure(config, dir.resolve("ckpt"), "auto", null));
        try (FileCheckpointStore store = assertInstanceOf(FileCheckpointStore.class, config.checkpointStore()))
        {
            assertTrue(Files.isDirectory(store.directory()));
            assertTrue(config.checkpointPolicy().describe().contains("no failure observed"),
                config.checkpointPolicy().describe());
        }
        assertThrows(IllegalArgumentException.class,
            () -> Checkpoints.configure(Spillway.builder(), dir.resolve("never"), "often", null));
        assertTrue(Files.notExists(dir.resolve("never")), "a bad interval opens no store");
    }

    /** The automatic interval learns from a restart that found no checkpoint: the run died (after 3 tasks) before one. */
    @Test
    void autoCountsARestartWithoutACheckpoint() throws IOException
    {
        final SpillwayConfig died = Checkpoints.configure(Spillway.builder(), dir.resolve("ckpt"), "auto", null);
        try (FileCheckpointStore store = (FileCheckpointStore)died.checkpointStore())
        {
            assertNull(store.restore(line -> { }));
            store.progress(3);
        }
        final SpillwayConfig restarted = Checkpoints.configure(Spillway.builder(), dir.resolve("ckpt"), "auto", null);
        try (FileCheckpointStore store = (FileCheckpointStore)restarted.checkpointStore())
        {
            final AutoInterval policy = assertInstanceOf(AutoInterval.class, restarted.checkpointPolicy());
            assertTrue(policy.describe().contains("observed: 1 failures"), policy.describe());
            assertTrue(policy.intervalSeconds() < CheckpointModel.young(AutoInterval.INITIAL_DELTA_SECONDS,
                MtbfEstimator.DEFAULT_SECONDS), policy.describe());
        }
    }
}
