package dev.spillway.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The benches cap memory through cgroup v1 or v2 (issue 17, item 9). This machine mounts v1, where the benches'
 * runs use it for real; v2's file protocol is checked here on a tree laid out as the kernel lays out
 * {@code /sys/fs/cgroup}, since the kernel cannot mount the memory controller in both at once.
 */
class MemoryCgroupTest
{
    @TempDir
    Path sys;

    @Test
    void v2LimitsThroughMemoryMaxAndEnablesTheControllerForChildren() throws IOException
    {
        v2Root("cpu io");
        assertNull(MemoryCgroup.unavailableReason(sys), "a writable v2 root with memory can host a group");
        try (MemoryCgroup g = MemoryCgroup.create(sys, "bench-1", 1536L << 20))
        {
            final Path dir = sys.resolve("bench-1");
            assertEquals(Long.toString(1536L << 20), Files.readString(dir.resolve("memory.max")));
            assertEquals("0", Files.readString(dir.resolve("memory.swap.max")));
            assertEquals("+memory", Files.readString(sys.resolve("cgroup.subtree_control")),
                "memory enabled for the root's children");
            assertTrue(g.wrap(List.of("java")).get(2).contains(dir.resolve("cgroup.procs").toString()));

            assertEquals(-1, g.peakBytes(), "no memory.peak (kernels before 5.19): unknown, not zero");
            Files.writeString(dir.resolve("memory.peak"), "123456789\n");
            assertEquals(123456789, g.peakBytes());
            Files.writeString(dir.resolve("memory.events"), "low 0\nhigh 0\nmax 17\noom 0\noom_kill 0\n");
            assertEquals(17, g.limitHits());
            Files.delete(dir.resolve("memory.max"));
            Files.delete(dir.resolve("memory.swap.max"));
            Files.delete(dir.resolve("memory.peak"));
            Files.delete(dir.resolve("memory.events"));
        }
        assertFalse(Files.exists(sys.resolve("bench-1")), "the group is removed");
    }

    @Test
    void v2LeavesAnEnabledControllerAsItIs() throws IOException
    {
        v2Root("memory cpu");
        try (MemoryCgroup g = MemoryCgroup.create(sys, "g", 1 << 30))
        {
            assertEquals("memory cpu", Files.readString(sys.resolve("cgroup.subtree_control")));
            Files.delete(sys.resolve("g").resolve("memory.max"));
            Files.delete(sys.resolve("g").resolve("memory.swap.max"));
        }
    }

    @Test
    void v1IsPreferredWhereItsMemoryControllerIsMounted() throws IOException
    {
        v2Root("");
        Files.createDirectories(sys.resolve("memory"));
        try (MemoryCgroup g = MemoryCgroup.create(sys, "g", 4096))
        {
            final Path dir = sys.resolve("memory").resolve("g");
            assertEquals("4096", Files.readString(dir.resolve("memory.limit_in_bytes")));
            Files.writeString(dir.resolve("memory.max_usage_in_bytes"), "777\n");
            Files.writeString(dir.resolve("memory.failcnt"), "3\n");
            assertEquals(777, g.peakBytes());
            assertEquals(3, g.limitHits());
            for (final String f : List.of("memory.limit_in_bytes", "memory.swappiness", "memory.max_usage_in_bytes",
                "memory.failcnt"))
            {
                Files.delete(dir.resolve(f));
            }
        }
    }

    @Test
    void withoutAMemoryControllerTheReasonNamesBothPlaces() throws IOException
    {
        Files.writeString(sys.resolve("cgroup.controllers"), "cpu io pids\n");
        final String why = MemoryCgroup.unavailableReason(sys);
        assertNotNull(why);
        assertTrue(why.contains(sys.resolve("memory").toString()) && why.contains("cgroup v2"), why);
    }

    @Test
    void aProcessKnowsWhetherItsOwnGroupIsLimited() throws IOException
    {
        v2Root("memory");
        final Path own = Files.createDirectories(sys.resolve("user.slice/run-1.scope"));
        Files.writeString(own.resolve("memory.max"), "max\n");
        final List<String> self = List.of("0::/user.slice/run-1.scope");
        assertFalse(MemoryCgroup.insideLimitedCgroup(sys, self), "memory.max 'max' is no limit");
        Files.writeString(own.resolve("memory.max"), "1073741824\n");
        assertTrue(MemoryCgroup.insideLimitedCgroup(sys, self));

        final Path v1 = Files.createDirectories(sys.resolve("memory/capped"));
        Files.writeString(v1.resolve("memory.limit_in_bytes"), "1073741824\n");
        assertTrue(MemoryCgroup.insideLimitedCgroup(sys, List.of("9:cpu:/", "4:memory:/capped")));
        assertFalse(MemoryCgroup.insideLimitedCgroup(sys, List.of("4:memory:/elsewhere")), "no such group");
    }

    private void v2Root(final String subtree) throws IOException
    {
        Files.writeString(sys.resolve("cgroup.controllers"), "cpuset cpu io memory hugetlb pids rdma\n");
        Files.writeString(sys.resolve("cgroup.subtree_control"), subtree);
    }
}
