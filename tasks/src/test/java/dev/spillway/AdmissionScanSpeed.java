package dev.spillway;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * Prints how long N tasks take when they all wait for DRAM at once: each writes a new 4 KiB object under a budget of
 * 16, so every admission evicts. Under {@code p} this was quadratic while admission's reuse pass scanned the whole
 * queue before each eviction (121 s for 32000 tasks against 13 s under {@code f}). A measurement, not a check: runs
 * only with {@code -Dspillway.admission.speed=true}, for example
 * {@code mvn -o -q -pl tasks test -Dtest=AdmissionScanSpeed -Dspillway.admission.speed=true}.
 */
@EnabledIfSystemProperty(named = "spillway.admission.speed", matches = "true")
class AdmissionScanSpeed
{
    @TempDir
    Path dir;

    @Test
    void manyTasksWaitingForDram() throws InterruptedException
    {
        for (final int n : new int[] {2000, 8000, 32000})
        {
            for (final String policy : new String[] {"f", "p", "a"})
            {
                if (policy.equals("a") && n > 8000)
                {
                    continue; // seed 003's fewest-in-NVMe order scans the queue at every admission by design
                }
                final long started = System.nanoTime();
                try (Spillway sw = Runtimes.small(dir.resolve(policy + n), 16L * 4096, policy).cleanReserve(0)
                    .storeSizing(n + 64, 4096).build())
                {
                    final Data gate = sw.data("gate", 64);
                    final CountDownLatch go = new CountDownLatch(1);
                    sw.task("gate").write(gate).submit(ctx -> go.await());
                    for (int i = 0; i < n; i++)
                    {
                        final Data x = sw.data("x" + i, 4096);
                        sw.task("write " + i).read(gate).write(x).submit(ctx -> { });
                    }
                    go.countDown();
                    sw.awaitAll();
                }
                System.out.printf("%d tasks, policy %s: %.2f s%n", n, policy, (System.nanoTime() - started) / 1e9);
            }
        }
    }
}
