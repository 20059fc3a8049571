package dev.spillway.ranks;

import dev.spillway.rdma.CoordinatorPorts;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A peer killed with kill -9 mid-transfer: a distributed {@code spillway run lu} with two ranks on loopback; rank 1
 * parks inside the send of a tile (crash point {@value #SEND_POINT}, hit number {@value #HIT}, so transfers have
 * already flowed) and is killed with SIGKILL there. Rank 0 must report it: exit non-zero within {@link #BOUND}, its
 * failure line ({@code spillway: ...}) naming rank 1; no hang.
 * <p>
 * "No corrupted local data" means here: rank 0 publishes no result. The tasks that needed rank 1's tiles fail instead
 * of running on a partly received or never received buffer, so rank 0 writes no JSON and prints no result checksum;
 * a checksum from such a run would pass off a wrong factorization as a result.
 */
@Tag("process")
@Timeout(300)
class RankKillTest
{
    /** Reached by a rank inside the send of a distributed transfer (io.CrashPoints, added with the distributed run). */
    static final String SEND_POINT = dev.spillway.io.CrashPoints.TRANSFER_SEND;
    static final int HIT = 2;
    static final Duration BOUND = Duration.ofSeconds(300);
    private static final Duration START_LIMIT = Duration.ofSeconds(120);

    @TempDir
    Path dir;

    @BeforeAll
    static void ucx()
    {
        RankChildSupport.requireUcx();
    }

    @Test
    void rankOneKilledMidTransferIsReportedByRankZeroWithoutHangOrResult() throws Exception
    {
        final String coordinator = "127.0.0.1:" + freeLoopbackPort();
        final RankChild r0 = RankChild.cli("rank0", lu("rank0")).rank(0, 2, coordinator).env("UCX_NET_DEVICES", "lo");
        final RankChild r1 = RankChild.cli("rank1", lu("rank1")).rank(1, 2, coordinator).env("UCX_NET_DEVICES", "lo")
            .property("spillway.crashAt", SEND_POINT).property("spillway.crashAtHit", Integer.toString(HIT));
        try
        {
            r0.start(dir);
            r1.start(dir);
            r1.awaitOutput("CRASHPOINT " + SEND_POINT, START_LIMIT, r0);
            r1.kill();
            final long killed = System.nanoTime();
            final int exit = r0.await(BOUND);
            final long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);

            final String stderr = r0.stderr();
            final String output = r0.output();
            assertNotEquals(0, exit, "rank 0 succeeded although rank 1 died mid-transfer:\n" + output);
            final String failure = stderr.lines().filter(l -> l.startsWith("spillway:")).reduce((a, b) -> b)
                .orElseThrow(() -> new AssertionError("rank 0 printed no 'spillway: ...' failure line:\n" + output));
            assertTrue(failure.contains("rank 1"), "rank 0's failure does not name rank 1: " + failure);
            assertFalse(Files.exists(dir.resolve("rank0.json")), "rank 0 wrote a result:\n" + output);
            final String all = r0.stdout() + stderr;
            assertFalse(all.contains("result_checksum") || all.contains("result checksum"),
                "rank 0 printed a result checksum after losing rank 1:\n" + output);
            System.out.println("RankKillTest: rank 0 exited " + exit + " " + ms + " ms after rank 1's SIGKILL: " +
                failure);
        }
        finally
        {
            r0.destroy();
            r1.destroy();
        }
    }

    private List<String> lu(final String name) throws IOException
    {
        final List<String> args = new ArrayList<>(List.of("run", "lu", "--n", "2048", "--tile", "256",
            "--workers", "1", "--dram", "25%"));
        args.addAll(List.of("--dir", Files.createDirectories(dir.resolve(name + "-spill")).toString(),
            "--json", dir.resolve(name + ".json").toString()));
        return args;
    }

    private static int freeLoopbackPort()
    {
        return CoordinatorPorts.freeLoopback().getPort();
    }
}
