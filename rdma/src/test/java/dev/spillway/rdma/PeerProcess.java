package dev.spillway.rdma;

import java.nio.ByteBuffer;

/**
 * A rank in a child JVM for {@link UcxCrashTest}: configured from the SPILLWAY_* environment,
 * it exposes a window of {@code args[0]} bytes, exchanges handles (tag 77) and waits passively (its progress thread
 * serves puts, gets and atomics) until rank 0 sends tag 99 or the operation timeout passes.
 */
public final class PeerProcess
{
    private PeerProcess()
    {
    }

    public static void main(final String[] args)
    {
        final TransportConfig config = TransportConfig.fromEnvironment(System.getenv())
            .peerErrorHandling(!"false".equals(System.getenv("SPILLWAY_UCX_ERROR_HANDLING")))
            .operationTimeout(java.time.Duration.ofMinutes(5))
            .build();
        try (UcxTransport transport = UcxTransport.open(config);
            Window window = transport.createWindow("peer-" + config.rank(), Integer.parseInt(args[0])))
        {
            Collectives.exchange(transport, 77, window);
            System.out.println("peer " + config.rank() + " ready");
            Collectives.await(transport.receive(0, 99, ByteBuffer.allocateDirect(8)));
        }
    }
}
