package dev.spillway.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.spillway.resilience.model.AcrModel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PlanCommandTest
{
    private static final String SHARED_HOST =
        "buddies share host host0: this protects against a process's death, not the host's";

    @TempDir
    Path tmp;

    private final InProcessCli cli = new InProcessCli();

    private JsonNode plan(final String... args) throws IOException
    {
        final Path json = tmp.resolve("plan-" + String.join("_", args).replace("-", "") + ".json");
        final String[] all = new String[args.length + 3];
        all[0] = "plan";
        System.arraycopy(args, 0, all, 1, args.length);
        all[args.length + 1] = "--json";
        all[args.length + 2] = json.toString();
        assertEquals(0, cli.run(all), cli.err::toString);
        return new ObjectMapper().readTree(json.toFile());
    }

    @Test
    void oneHostPrintsMutualPairsTheWarningAndSeed000sDalyInterval() throws IOException
    {
        final JsonNode r = plan("--ranks", "4", "--mtbf", "86400");
        final String out = cli.out.toString();
        assertTrue(out.contains("  rank 0 (host0) <-> rank 1 (host0)\n  rank 2 (host0) <-> rank 3 (host0)\n"), out);
        assertTrue(out.contains("Warning: " + SHARED_HOST), out);
        assertTrue(out.contains("Daly interval: 1307.88 s"), "δ 10 s, M 86400 s: 1307.876 s\n" + out);
        assertTrue(out.contains("Catastrophic failures: 1.00 per day"), "every host failure is fatal\n" + out);
        assertTrue(out.contains("Replication: r = 1, every rank alone\n"), out);
        assertTrue(out.contains("  seed 004's eq. 9 needs the redundant run time below the host MTBF; degrees from " +
            "1 up are left out\n"), "a day's work at a day's MTBF\n" + out);
        assertEquals("mutual", r.get("placement").asText());
        assertEquals(1307.876, r.get("daly_interval_s").asDouble(), 5e-4);
        assertEquals(1, r.get("hosts_fatal_alone").asInt());
        assertEquals(2, r.get("fatal_rank_pairs").asInt());
        assertEquals(1.0, r.get("catastrophic_failures_per_day").asDouble(), 1e-12);
        assertEquals(SHARED_HOST, r.get("warnings").get(0).asText());
        assertEquals(0, r.get("replication").get("model").size(), r::toString);
        assertEquals(0, r.get("replication").get("spheres").size(), "r = 1: no replicas to place");
    }

    @Test
    void hostsGetBuddiesOnOtherHostsAndARingLosesTwiceAsOften() throws IOException
    {
        final JsonNode mutual = plan("--ranks", "16", "--hosts", "16", "--mtbf", "2592000");
        assertTrue(cli.out.toString().contains("  rank 0 (host0) <-> rank 1 (host1)\n"), cli.out::toString);
        final JsonNode ring = plan("--ranks", "16", "--hosts", "16", "--mtbf", "2592000", "--placement", "ring");
        assertTrue(cli.out.toString().contains("  rank 15 (host15) -> rank 0 (host0)\n"), cli.out::toString);
        assertEquals(8, mutual.get("fatal_host_pairs").asInt());
        assertEquals(16, ring.get("fatal_host_pairs").asInt());
        assertEquals(0, mutual.get("warnings").size());
        for (final JsonNode b : mutual.get("buddies"))
        {
            assertFalse(b.get("host").asText().equals(b.get("buddy_host").asText()), b::toString);
        }
        final double m = mutual.get("catastrophic_failures_per_day").asDouble();
        final double ratio = ring.get("catastrophic_failures_per_day").asDouble() / m;
        assertTrue(ratio > 1.9 && ratio <= 2, "two failures dominate, and the ring has twice the pairs: " + ratio);
        assertTrue(m > 0 && m < mutual.get("host_failures_per_day").asDouble() / 100, mutual::toString);
        assertEquals(2592000.0 / 16, mutual.get("job_mtbf_s").asDouble(), 1e-9);
        assertEquals(mutual.get("daly_interval_s").asDouble() + 10, mutual.get("concurrency_window_s").asDouble(),
            1e-9);
    }

    @Test
    void blocksOnTwoHostsPairAcrossThem() throws IOException
    {
        final JsonNode r = plan("--ranks", "8", "--hosts", "2", "--mtbf", "1e6", "--checkpoint-cost", "30");
        assertEquals(4, r.get("buddies").get(0).get("buddy").asInt(), r::toString);
        assertEquals(1, r.get("fatal_host_pairs").asInt());
        assertEquals(30.0, r.get("checkpoint_cost_s").asDouble());
        final JsonNode odd = plan("--ranks", "5", "--hosts", "2", "--mtbf", "1e6");
        assertEquals("ring", odd.get("placement").asText(), "an odd rank count gets a ring");
        assertEquals(5, odd.get("fatal_rank_pairs").asInt());
        assertEquals(1, odd.get("warnings").size(), "3 ranks on host0 in a ring of 5: one pair must share it");
    }

    @Test
    void badArgumentsExit2()
    {
        final String[][] bad = {
            {"--ranks", "1", "--mtbf", "100"},
            {"--ranks", "4", "--hosts", "5", "--mtbf", "100"},
            {"--ranks", "4", "--hosts", "0", "--mtbf", "100"},
            {"--ranks", "4", "--mtbf", "0"},
            {"--ranks", "4", "--mtbf", "100", "--checkpoint-cost", "-1"},
            {"--ranks", "5", "--mtbf", "100", "--placement", "mutual"},
            {"--ranks", "4", "--mtbf", "100", "--placement", "star"},
            {"--ranks", "4", "--mtbf", "100", "--redundancy", "0.5"},
            {"--ranks", "4", "--mtbf", "100", "--redundancy", "1.5x"},
            {"--ranks", "4", "--mtbf", "100", "--work", "0"},
            {"--ranks", "4", "--mtbf", "100", "--comm-fraction", "1.5"},
            {"--ranks", "4", "--mtbf", "100", "--restart-cost", "-1"},
            {"--ranks", "4", "--mtbf", "100", "--sdc-fit", "-1"},
            {"--ranks", "4"}};
        for (final String[] args : bad)
        {
            final InProcessCli one = new InProcessCli();
            final String[] all = new String[args.length + 1];
            all[0] = "plan";
            System.arraycopy(args, 0, all, 1, args.length);
            assertEquals(2, one.run(all), () -> String.join(" ", args) + ": " + one.err);
            assertTrue(one.err.toString().startsWith("spillway: "), one.err::toString);
            assertEquals("", one.out.toString());
        }
        final InProcessCli odd = new InProcessCli();
        odd.run("plan", "--ranks", "5", "--mtbf", "100", "--placement", "mutual");
        assertTrue(odd.err.toString().contains("mutual pairs need an even number of ranks, got 5"), odd.err::toString);
        final InProcessCli low = new InProcessCli();
        low.run("plan", "--ranks", "4", "--mtbf", "100", "--redundancy", "0.5");
        assertTrue(low.err.toString().contains("--redundancy: the redundancy degree must be at least 1"),
            low.err::toString);
    }

    @Test
    void oneAndAHalfReplicatesTheEvenRanksOnOtherHosts() throws IOException
    {
        final JsonNode r = plan("--ranks", "8", "--hosts", "2", "--mtbf", "2592000", "--redundancy", "1.5")
            .get("replication");
        assertTrue(cli.out.toString().contains("Replication: r = 1.5, 4 of 8 ranks have one replica more than the " +
            "other 4 (evenly spread from rank 0); 12 processes"), cli.out::toString);
        assertTrue(cli.out.toString().contains("  rank 0: slots 0 (host0), 6 (host1)\n  rank 1: slot 1 (host0)\n"),
            cli.out::toString);
        assertEquals("1.5", r.get("degree").asText());
        assertEquals(4, r.get("floor_ranks").asInt());
        assertEquals(12, r.get("processes").asInt());
        for (final JsonNode sphere : r.get("spheres"))
        {
            final JsonNode hosts = sphere.get("hosts");
            assertEquals(sphere.get("rank").asInt() % 2 == 0 ? 2 : 1, hosts.size(), sphere::toString);
            assertTrue(hosts.size() == 1 || !hosts.get(0).equals(hosts.get(1)), sphere::toString);
        }
        assertEquals(0, r.get("shared_host_spheres").asInt());
        assertEquals(9, r.get("model").size(), "1x to 3x in quarters, 1.5 among them");
        final JsonNode odd = plan("--ranks", "8", "--mtbf", "2592000", "--redundancy", "1.1").get("replication");
        assertEquals(10, odd.get("model").size(), "1.1 is added to the quarters");
        assertEquals("1.1", odd.get("model").get(1).get("degree").asText());
        assertEquals(7, odd.get("floor_ranks").asInt(), "⌊0.9·8⌋");
    }

    @Test
    void replicasOnOneHostAreNamedInAWarning() throws IOException
    {
        final JsonNode r = plan("--ranks", "4", "--mtbf", "2592000", "--redundancy", "2").get("replication");
        final String warning = "replicas of 4 spheres share host host0: they survive a process's death there, not " +
            "the host's";
        assertTrue(cli.out.toString().contains("Warning: " + warning), cli.out::toString);
        assertEquals(warning, r.get("warnings").get(0).asText());
        assertEquals(4, r.get("shared_host_spheres").asInt());
    }

    @Test
    void seed004sFig4CheckpointCountAndTwoReplicasFastestAt100kRanks() throws IOException
    {
        final JsonNode r = plan("--ranks", "100000", "--mtbf", "157680000", "--work", "460800",
            "--checkpoint-cost", "600").get("replication");
        final JsonNode one = r.get("model").get(0);
        assertEquals("1", one.get("degree").asText());
        assertEquals(459.1, one.get("checkpoints").asDouble(), 0.05, "Fig. 4: the paper's 458");
        assertEquals(371.21 * 3600, one.get("total_time_s").asDouble(), 1e-4 * 371.21 * 3600);
        assertEquals(436.69 * 3600, one.get("total_time_corrected_s").asDouble(), 1e-4 * 436.69 * 3600);
        assertTrue(cli.out.toString().contains("  fastest: r = 2 (* marks --redundancy 1)\n"), cli.out::toString);
    }

    @Test
    void acrUsesTheRanksAsSocketsPerReplicaAndTheRestartCost() throws IOException
    {
        final JsonNode acr = plan("--ranks", "64", "--mtbf", "3e7", "--work", "36000", "--checkpoint-cost", "20",
            "--restart-cost", "40", "--sdc-fit", "1e5").get("acr");
        final AcrModel model = new AcrModel(36_000, 20, 40, 40, 3e7 / 64, 1e9 * 3600 / (1e5 * 64));
        assertEquals(3e7 / 64, acr.get("hard_mtbf_s").asDouble(), 1e-6);
        for (final JsonNode s : acr.get("schemes"))
        {
            final AcrModel.Optimum o = model.optimum(AcrModel.Scheme.valueOf(s.get("scheme").asText()
                .toUpperCase(Locale.ROOT)));
            assertEquals(o.utilisation(), s.get("utilisation").asDouble(), 1e-12, s::toString);
            assertEquals(o.interval(), s.get("interval_s").asDouble(), 1e-9 * o.interval(), s::toString);
            assertTrue(cli.out.toString().contains(String.format(Locale.ROOT, "  %-6s interval ", s.get("scheme")
                .asText())), cli.out::toString);
        }
    }
}
