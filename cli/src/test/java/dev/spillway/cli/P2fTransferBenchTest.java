package dev.spillway.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.spillway.rdma.UcxTransport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code bench p2f-transfer} on small objects: two UCX ranks in the test's JVM, every configuration verified. */
class P2fTransferBenchTest
{
    @TempDir
    Path tmp;

    @Test
    void measuresEverySizeInEveryConfigurationAndVerifies() throws Exception
    {
        CiOrSkip.require(UcxTransport.unavailableReason() == null, "UCX: " + UcxTransport.unavailableReason());
        final Path json = tmp.resolve("transfer.json");
        final InProcessCli cli = new InProcessCli();
        assertEquals(0, cli.run("bench", "p2f-transfer", "--min", "8", "--max", "4k", "--factor", "64", "--volume",
            "2k", "--repeat", "1", "--dir", tmp.resolve("data").toString(), "--json", json.toString()),
            cli.err::toString);
        assertTrue(cli.out.toString().contains("every run verified"), cli.out::toString);
        final JsonNode sizes = new ObjectMapper().readTree(json.toFile()).get("sizes");
        assertEquals(3, sizes.size(), sizes::toString);
        final long[] expected = {8, 512, 4096};
        for (int i = 0; i < expected.length; i++)
        {
            final JsonNode row = sizes.get(i);
            assertEquals(expected[i], row.get("bytes").asLong(), row::toString);
            for (final String mode : new String[] {"protocol_off", "p2f_nothing_logged", "p2f_all_logged"})
            {
                assertTrue(row.get(mode + "_us").asDouble() > 0, row::toString);
            }
            assertTrue(row.get("all_logged_ratio").asDouble() > 0, row::toString);
        }
        assertFalse(Files.exists(tmp.resolve("data").resolve("bench-p2f-transfer")), "the runs' files are removed");
    }

    @Test
    void anObjectBelowEightBytesIsAUsageError()
    {
        final InProcessCli cli = new InProcessCli();
        assertEquals(2, cli.run("bench", "p2f-transfer", "--min", "4", "--dir", tmp.toString()));
        assertTrue(cli.err.toString().contains("need 8 B <= --min <= --max <= 1 GiB"), cli.err::toString);
    }
}
