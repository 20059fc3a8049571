package dev.spillway.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;

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
        assertTrue(out.contains("Replication: not modelled yet"), out);
        assertEquals("mutual", r.get("placement").asText());
        assertEquals(1307.876, r.get("daly_interval_s").asDouble(), 5e-4);
        assertEquals(1, r.get("hosts_fatal_alone").asInt());
        assertEquals(2, r.get("fatal_rank_pairs").asInt());
        assertEquals(1.0, r.get("catastrophic_failures_per_day").asDouble(), 1e-12);
        assertEquals(SHARED_HOST, r.get("warnings").get(0).asText());
        assertTrue(r.get("replication").asText().startsWith("not modelled yet"), r::toString);
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
    }
}
