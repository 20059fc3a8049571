package dev.spillway.cli;

import dev.spillway.rdma.Transport;
import dev.spillway.rdma.TransportConfig;
import dev.spillway.rdma.UcxTransport;

import java.time.Duration;
import java.util.Map;

/**
 * How a process learns that it is one rank of a job: {@code SPILLWAY_RANK}, {@code SPILLWAY_SIZE},
 * {@code SPILLWAY_COORDINATOR} (rank 0's host:port) and {@code SPILLWAY_SECRET}, set by {@code spillway launch}, or
 * by hand for Slurm, mpirun or ssh. A non-loopback coordinator is the request to use the network; UCX then uses the
 * devices {@code UCX_NET_DEVICES} names (all by default) instead of loopback only.
 */
final class RankEnvironment
{
    /** How many times the job was relaunched: 0 (the default) on the first launch. */
    static final String INCARNATION_ENV = TransportConfig.INCARNATION_ENV;
    /** Bounds a single transfer; peers are watched separately (lost after 5 s of silence). */
    static final String OPERATION_TIMEOUT_ENV = "SPILLWAY_OPERATION_TIMEOUT_S";

    private RankEnvironment()
    {
    }

    /** @return true when the environment names this process a rank. */
    static boolean present(final Map<String, String> env)
    {
        return env.containsKey(TransportConfig.RANK_ENV) || env.containsKey(TransportConfig.SIZE_ENV);
    }

    /**
     * @return {@link #INCARNATION_ENV}, 0 when unset.
     * @throws IllegalArgumentException naming a malformed value.
     */
    static int incarnation(final Map<String, String> env)
    {
        final String text = env.getOrDefault(INCARNATION_ENV, "0").trim();
        try
        {
            final int incarnation = Integer.parseInt(text);
            if (incarnation >= 0)
            {
                return incarnation;
            }
        }
        catch (final NumberFormatException ignored)
        {
            // reported below
        }
        throw new IllegalArgumentException(INCARNATION_ENV + "='" + text + "' must be a whole number ≥ 0");
    }

    /**
     * Joins the job over UCX.
     *
     * @throws IllegalArgumentException naming a missing or malformed variable.
     */
    static Transport join(final Map<String, String> env)
    {
        final String missing = UcxTransport.unavailableReason();
        if (missing != null)
        {
            throw new IllegalStateException("this rank cannot start: " + missing);
        }
        final TransportConfig.Builder b = TransportConfig.fromEnvironment(env);
        final long timeout = Long.parseLong(env.getOrDefault(OPERATION_TIMEOUT_ENV, "600"));
        final TransportConfig probe = b.allowNonLoopback(true).build();
        final boolean network = !probe.coordinator().getAddress().isLoopbackAddress();
        return UcxTransport.open(b.allowNonLoopback(network).operationTimeout(Duration.ofSeconds(timeout)).build());
    }
}
