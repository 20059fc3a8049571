package dev.spillway.resilience.p2f;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SentRecordTest
{
    @TempDir
    Path dir;

    @Test
    void aLaterIncarnationCountsWhatAnEarlierOneStampedAsReexecuted() throws IOException
    {
        final Path file = dir.resolve("p2f-sent");
        try (SentRecord first = SentRecord.in(file, 3, false))
        {
            assertFalse(first.stamped(1, 0));
            assertFalse(first.stamped(1, 1));
            assertFalse(first.stamped(2, 0));
        }
        try (SentRecord second = SentRecord.in(file, 3, true))
        {
            assertTrue(second.stamped(1, 0));
            assertTrue(second.stamped(1, 1));
            assertFalse(second.stamped(1, 2), "past what the first one stamped");
            assertFalse(second.stamped(0, 0), "nothing went to rank 0");
            assertTrue(second.stamped(2, 0));
        }
        try (SentRecord third = SentRecord.in(file, 3, true))
        {
            assertTrue(third.stamped(1, 2), "the second one's sends count too");
            assertFalse(third.stamped(2, 1));
        }
    }

    @Test
    void aKilledIncarnationsRecordIsReadWithoutAClose() throws IOException
    {
        final Path file = dir.resolve("p2f-sent");
        final SentRecord killed = SentRecord.in(file, 2, false);
        killed.stamped(1, 4);
        try (SentRecord next = SentRecord.in(file, 2, true))
        {
            assertTrue(next.stamped(1, 4));
            assertFalse(next.stamped(1, 5));
        }
        killed.close();
    }

    @Test
    void aJobsFirstIncarnationForgetsAnEarlierJobsRecord() throws IOException
    {
        final Path file = dir.resolve("p2f-sent");
        try (SentRecord earlierJob = SentRecord.in(file, 2, false))
        {
            earlierJob.stamped(1, 9);
        }
        try (SentRecord fresh = SentRecord.in(file, 2, false))
        {
            assertFalse(fresh.stamped(1, 0));
        }
        assertTrue(Files.size(file) > 0);
    }
}
