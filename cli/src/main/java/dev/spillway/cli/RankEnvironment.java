package dev.spillway.cli;

import dev.spillway.rdma.Transport;
import dev.spillway.rdma.TransportConfig;
import dev.spillway.rdma.UcxTransport;
import dev.spillway.resilience.redundancy.RedundancyDegree;
import dev.spillway.resilience.redundancy.RedundancyPlan;
import dev.spillway.resilience.redundancy.ReplicaMismatchException;
import dev.spillway.resilience.redundancy.ReplicatedTransport;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Map;
import java.util.function.Consumer;

/**
 * How a process learns that it is one rank of a job: {@code SPILLWAY_RANK}, {@code SPILLWAY_SIZE},
 * {@code SPILLWAY_COORDINATOR} (rank 0's host:port) and {@code SPILLWAY_SECRET}, set by {@code spillway launch}, or
 * by hand for Slurm, mpirun or ssh. A non-loopback coordinator is the request to use the network; UCX then uses the
 * devices {@code UCX_NET_DEVICES} names (all by default) instead of loopback only.
 *
 * <p>{@code SPILLWAY_TRANSPORT} (set by {@code launch --transport}) is {@code tcp}, the default, or {@code shm}: UCX
 * with or without peer error handling ({@link #errorHandling}).
 *
 * <p>With {@code SPILLWAY_REDUNDANCY} (set by {@code launch --redundancy}), the job's {@code SPILLWAY_SIZE} processes
 * are the replicas of {@code SPILLWAY_LOGICAL_RANKS} ranks, and {@code SPILLWAY_RANK} is this process's slot.
 */
final class RankEnvironment
{
    /** How many times the job was relaunched: 0 (the default) on the first launch. */
    static final String INCARNATION_ENV = TransportConfig.INCARNATION_ENV;
    /** The redundancy degree r of a replicated job; unset or 1 for none. */
    static final String REDUNDANCY_ENV = "SPILLWAY_REDUNDANCY";
    /** With {@link #REDUNDANCY_ENV}: the logical ranks the program sees. */
    static final String LOGICAL_RANKS_ENV = "SPILLWAY_LOGICAL_RANKS";
    /** In a replicated job: the name this process's host goes by in placement (by default the host name). */
    static final String HOST_ENV = "SPILLWAY_HOST";
    /** Bounds a single transfer; peers are watched separately (lost after 5 s of silence). */
    static final String OPERATION_TIMEOUT_ENV = "SPILLWAY_OPERATION_TIMEOUT_S";
    /** How ranks on one host reach each other: {@code tcp} (the default) or {@code shm} ({@link #errorHandling}). */
    static final String TRANSPORT_ENV = "SPILLWAY_TRANSPORT";

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
     * @return whether UCX runs with peer error handling, as {@link #TRANSPORT_ENV} says. With {@code tcp}, the
     *         default, UCX reports a dead peer itself, but on one host it moves everything over TCP on loopback, a
     *         put emulated by the target's progress thread. With {@code shm} it uses shared memory and cma on one
     *         host, so puts are truly one-sided, and a lost peer is found by the control plane's heartbeats alone.
     * @throws IllegalArgumentException naming a value that is neither.
     */
    static boolean errorHandling(final Map<String, String> env)
    {
        final String transport = env.getOrDefault(TRANSPORT_ENV, "tcp").trim();
        return switch (transport)
        {
            case "tcp" -> true;
            case "shm" -> false;
            default -> throw new IllegalArgumentException(TRANSPORT_ENV + "='" + transport + "' is not a " +
                "transport: use tcp (the default) or shm");
        };
    }

    /** @return the plan of a replicated job, or null when {@link #REDUNDANCY_ENV} is unset. */
    static RedundancyPlan redundancy(final Map<String, String> env)
    {
        final String degree = env.get(REDUNDANCY_ENV);
        if (degree == null)
        {
            return null;
        }
        final String ranks = env.get(LOGICAL_RANKS_ENV);
        if (ranks == null || !ranks.trim().matches("\\d{1,9}"))
        {
            throw new IllegalArgumentException(REDUNDANCY_ENV + " is set, so " + LOGICAL_RANKS_ENV + " must name the " +
                "logical ranks, got '" + ranks + "'");
        }
        return RedundancyPlan.of(Integer.parseInt(ranks.trim()), RedundancyDegree.parse(degree.trim()));
    }

    /** @return the name this process's host goes by in a replicated job's placement. */
    private static String host(final Map<String, String> env)
    {
        final String named = env.get(HOST_ENV);
        if (named != null && !named.isBlank())
        {
            return named.trim();
        }
        try
        {
            return InetAddress.getLocalHost().getHostName();
        }
        catch (final UnknownHostException e)
        {
            throw new IllegalStateException("this host has no name to place replicas by (" + e.getMessage() +
                "): set " + HOST_ENV, e);
        }
    }

    /**
     * Joins the job over UCX; in a replicated job, as one replica of a logical rank, the spheres placed from the hosts
     * the processes name ({@link #HOST_ENV}, by default the host name), each replica on a host its partners do not
     * use when the slots allow it; process 0 names, once for the job, the hosts that hold two replicas of one sphere.
     *
     * @param onMismatch told when copies of a transfer differ (replicated jobs only).
     * @throws IllegalArgumentException naming a missing or malformed variable.
     */
    static Transport join(final Map<String, String> env, final Consumer<ReplicaMismatchException> onMismatch)
    {
        final RedundancyPlan plan = redundancy(env);
        final Transport physical = join(env);
        if (plan == null)
        {
            return physical;
        }
        if (plan.processes() != physical.size())
        {
            physical.close();
            throw new IllegalArgumentException(REDUNDANCY_ENV + "=" + plan.degree() + " over " + plan.ranks() +
                " ranks needs " + plan.processes() + " processes, but " + TransportConfig.SIZE_ENV + " is " +
                physical.size());
        }
        final ReplicatedTransport replicated = ReplicatedTransport.join(physical, plan, host(env), onMismatch);
        if (physical.rank() == 0)
        {
            replicated.placement().warnings().forEach(w -> System.err.println("spillway: " + w));
        }
        return replicated;
    }

    /**
     * Joins the job over UCX.
     *
     * @throws IllegalArgumentException naming a missing or malformed variable.
     */
    private static Transport join(final Map<String, String> env)
    {
        final String missing = UcxTransport.unavailableReason();
        if (missing != null)
        {
            throw new IllegalStateException("this rank cannot start: " + missing);
        }
        final boolean errorHandling = errorHandling(env);
        final TransportConfig.Builder b = TransportConfig.fromEnvironment(env).peerErrorHandling(errorHandling);
        final long timeout = Long.parseLong(env.getOrDefault(OPERATION_TIMEOUT_ENV, "600"));
        final TransportConfig probe = b.allowNonLoopback(true).build();
        final boolean network = !probe.coordinator().getAddress().isLoopbackAddress();
        if (!errorHandling && probe.rank() == 0)
        {
            System.err.println("spillway: ranks over UCX without peer error handling (" + TRANSPORT_ENV + "=shm): " +
                "shared memory and cma between ranks on one host, puts one-sided; a lost rank is found by " +
                "heartbeats alone" + (network ? "; WARNING: between hosts too, which is not tested" : ""));
        }
        return UcxTransport.open(b.allowNonLoopback(network).operationTimeout(Duration.ofSeconds(timeout)).build());
    }
}
