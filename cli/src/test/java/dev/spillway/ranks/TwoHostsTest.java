package dev.spillway.ranks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two real hosts: two ranks in separate network namespaces joined by a veth pair ({@link NetnsPair}), UCX over TCP
 * only ({@code UCX_TLS=tcp}, so no shared memory between the namespaces; {@code UCX_NET_DEVICES} names the veth
 * end), the rendezvous at 198.18.0.1. The veth's byte counters prove the payload crossed it. Needs root: skipped
 * without it, failed under {@code CI=true}.
 */
@Tag("process")
@Timeout(1200)
class TwoHostsTest
{
    private static final int PORT = 47_000;
    /**
     * Safety net per child JVM, not a speed requirement: a lone n 512 run takes 7 to 13 s on a quiet machine, so
     * this allows one 20 times slower; a child past it fails the test with its output. The class timeout covers
     * three children in turn.
     */
    private static final Duration LIMIT = Duration.ofSeconds(300);
    private static final List<String> LU = List.of("run", "lu", "--n", "512", "--tile", "128", "--workers", "1",
        "--dram", "50%");

    @TempDir
    Path dir;

    @BeforeAll
    static void rootAndUcx()
    {
        NetnsPair.require();
        RankChildSupport.requireUcx();
    }

    /** The rdma layer across a real network path: send/receive both ways, put, flush and get. */
    @Test
    void ucxRoundTripAcrossTheVethPair() throws Exception
    {
        try (NetnsPair net = NetnsPair.create())
        {
            final RankChild r0 = onEnd(RankChild.main("rank0", UcxRoundTrip.class, List.of()), net, 0);
            final RankChild r1 = onEnd(RankChild.main("rank1", UcxRoundTrip.class, List.of()), net, 1);
            final long before = NetnsPair.trafficBytes(net.a(), net.deviceA());
            runPair(r0, r1, net);
            assertTrue(r0.stdout().contains("ROUNDTRIP rank 0 ok"), r0.output());
            assertTrue(r1.stdout().contains("ROUNDTRIP rank 1 ok"), r1.output());
            final long crossed = NetnsPair.trafficBytes(net.a(), net.deviceA()) - before;
            assertTrue(crossed >= 4L * UcxRoundTrip.BYTES, "only " + crossed + " bytes crossed " + net.deviceA() +
                " for 4 transfers of " + UcxRoundTrip.BYTES + ": the ranks did not talk over the veth pair");
            System.out.println("TwoHostsTest: " + crossed + " bytes crossed " + net);
        }
    }

    /** A distributed LU across the pair: rank 0's result checksum equals a single-rank run's, bit for bit. */
    @Test
    void distributedLuAcrossTheVethPairEqualsOneRank() throws Exception
    {
        final JsonNode alone = json(RankChild.cli("alone", lu("alone")), "alone");
        try (NetnsPair net = NetnsPair.create())
        {
            final RankChild r0 = onEnd(RankChild.cli("rank0", lu("rank0")), net, 0);
            final RankChild r1 = onEnd(RankChild.cli("rank1", lu("rank1")), net, 1);
            final long before = NetnsPair.trafficBytes(net.a(), net.deviceA());
            runPair(r0, r1, net);
            final JsonNode two = new ObjectMapper().readTree(dir.resolve("rank0.json").toFile());
            assertEquals(alone.get("result_checksum").asText(), two.get("result_checksum").asText(),
                "two ranks across " + net + " differ from one rank: " + two);
            assertEquals(2, two.path("ranks").asInt(), "rank 0 did not run as one of two ranks: " + two);
            assertTrue(two.get("verified").asBoolean(), two.toString());
            final long tile = 128L * 128 * Double.BYTES;
            final long crossed = NetnsPair.trafficBytes(net.a(), net.deviceA()) - before;
            assertTrue(crossed >= tile, "only " + crossed + " bytes crossed " + net.deviceA() + ", less than one tile");
            System.out.println("TwoHostsTest: distributed LU, " + crossed + " bytes crossed " + net);
        }
    }

    /** Puts the child on end {@code rank} of the pair: rank 0 on 198.18.0.1, where the rendezvous listens. */
    private static RankChild onEnd(final RankChild child, final NetnsPair net, final int rank)
    {
        return child.in(rank == 0 ? net.a() : net.b())
            .rank(rank, 2, NetnsPair.ADDRESS_A + ":" + PORT)
            .env("UCX_NET_DEVICES", rank == 0 ? net.deviceA() : net.deviceB())
            .env("UCX_TLS", "tcp");
    }

    private List<String> lu(final String name) throws Exception
    {
        final List<String> args = new ArrayList<>(LU);
        args.addAll(List.of("--dir", Files.createDirectories(dir.resolve(name + "-spill")).toString(),
            "--json", dir.resolve(name + ".json").toString()));
        return args;
    }

    private JsonNode json(final RankChild child, final String name) throws Exception
    {
        child.start(dir);
        try
        {
            assertEquals(0, child.await(LIMIT), child.output());
        }
        finally
        {
            child.destroy();
        }
        return new ObjectMapper().readTree(dir.resolve(name + ".json").toFile());
    }

    private void runPair(final RankChild r0, final RankChild r1, final NetnsPair net) throws Exception
    {
        try
        {
            r0.start(dir);
            r1.start(dir);
            assertEquals(0, r1.await(LIMIT), "rank 1 over " + net + ":\n" + r1.output() + "\n" + r0.output());
            assertEquals(0, r0.await(LIMIT), "rank 0 over " + net + ":\n" + r0.output() + "\n" + r1.output());
        }
        finally
        {
            r0.destroy();
            r1.destroy();
        }
    }
}
