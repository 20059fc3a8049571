package dev.spillway.resilience.buddy;

import dev.spillway.checkpoint.Cut;
import dev.spillway.rdma.InProcessFabric;
import dev.spillway.rdma.Transport;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link BuddyCopyTest} with every chunk put one-sided into the buddy's ring window, over a transport whose puts land
 * only at their flush ({@link FaultyTransport}).
 */
class BuddyCopyOverPutsTest extends BuddyCopyTest
{
    @Override
    BuddyCheckpoints.Stream stream()
    {
        return BuddyCheckpoints.Stream.PUTS;
    }

    @Override
    Transport transport(final InProcessFabric fabric, final int r)
    {
        return new FaultyTransport(fabric.transport(r));
    }

    /** Ranks that copy different ways stop as they start, naming the option. */
    @Test
    void ranksThatCopyDifferentWaysAreRefused() throws Exception
    {
        try (InProcessFabric fabric = new InProcessFabric(2, Duration.ofMinutes(2)))
        {
            final List<CompletableFuture<BuddyCheckpoints>> started = new ArrayList<>();
            for (final BuddyCheckpoints.Stream stream : BuddyCheckpoints.Stream.values())
            {
                final Transport transport = fabric.transport(stream.ordinal());
                started.add(CompletableFuture.supplyAsync(() ->
                {
                    try
                    {
                        return BuddyCheckpoints.start(transport, root, Cut.LOCAL, stream,
                            line -> { });
                    }
                    catch (final Exception e)
                    {
                        throw new IllegalStateException(e.getMessage(), e);
                    }
                }));
            }
            for (final CompletableFuture<BuddyCheckpoints> f : started)
            {
                final ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(2, TimeUnit.MINUTES));
                assertTrue(e.getCause().getMessage().contains("start every rank with the same") &&
                    e.getCause().getMessage().contains("--buddy-stream"), e.getCause().getMessage());
            }
        }
    }
}
