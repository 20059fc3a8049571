package dev.spillway.rdma;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * Where a rank sits in the job and how long it waits. Built with {@link #builder()} or read from the environment with
 * {@link #fromEnvironment()}:
 * <ul>
 * <li>{@code SPILLWAY_RANK}: this process's rank, 0 to size - 1. Rank 0 is the coordinator.</li>
 * <li>{@code SPILLWAY_SIZE}: the number of ranks in the job, at least 1.</li>
 * <li>{@code SPILLWAY_COORDINATOR}: {@code host:port} of the rendezvous: rank 0 listens there, the others connect.
 * It must be a loopback address unless {@link Builder#allowNonLoopback} is set in code.</li>
 * <li>{@code SPILLWAY_SECRET}: the job secret, at least 16 characters, the same at every rank. Each connection proves
 * knowledge of it (HMAC-SHA256 challenge-response, both ways). It is never printed.</li>
 * <li>{@code SPILLWAY_INCARNATION} (optional, default 0): how many times this rank was restarted; see
 * {@link #incarnation()}.</li>
 * </ul>
 */
public final class TransportConfig
{
    /** Environment variable naming this rank. */
    public static final String RANK_ENV = "SPILLWAY_RANK";
    /** Environment variable naming the number of ranks. */
    public static final String SIZE_ENV = "SPILLWAY_SIZE";
    /** Environment variable naming the coordinator's {@code host:port}. */
    public static final String COORDINATOR_ENV = "SPILLWAY_COORDINATOR";
    /** Environment variable holding the job secret. */
    public static final String SECRET_ENV = "SPILLWAY_SECRET";
    /** Environment variable holding this rank's incarnation (optional). */
    public static final String INCARNATION_ENV = "SPILLWAY_INCARNATION";
    /** Shortest accepted secret, in bytes. */
    public static final int MIN_SECRET_BYTES = 16;
    /** Most ranks in a job: the UCX tag holds a rank in 16 bits. */
    public static final int MAX_SIZE = 1 << 16;
    /** Highest incarnation: the UCX tag holds an incarnation in 15 bits. */
    public static final int MAX_INCARNATION = (1 << 15) - 1;
    /** How long a peer may be silent before it is declared lost, unless {@link Builder#failureTimeout} says. */
    public static final Duration DEFAULT_FAILURE_TIMEOUT = Duration.ofSeconds(5);
    /**
     * Default bound on the rendezvous: long enough for the slowest rank's JVM to start on a loaded host (under four
     * CPU hogs on 2 cores it took over 30 s), short enough that a coordinator that never comes is reported.
     */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(120);

    private final int rank;
    private final int size;
    private final int incarnation;
    private final InetSocketAddress coordinator;
    private final byte[] secret;
    private final boolean allowNonLoopback;
    private final Duration connectTimeout;
    private final Duration operationTimeout;
    private final Duration failureTimeout;
    private final Duration idleMaxPark;
    private final boolean peerErrorHandling;
    private final Duration handshakeTimeout;
    private final int maxPendingHandshakes;

    private TransportConfig(final Builder b)
    {
        rank = b.rank;
        size = b.size;
        incarnation = b.incarnation;
        coordinator = Objects.requireNonNull(b.coordinator, "coordinator");
        secret = Objects.requireNonNull(b.secret, "secret").clone();
        allowNonLoopback = b.allowNonLoopback;
        connectTimeout = b.connectTimeout;
        operationTimeout = b.operationTimeout;
        failureTimeout = b.failureTimeout;
        idleMaxPark = b.idleMaxPark;
        peerErrorHandling = b.peerErrorHandling;
        handshakeTimeout = b.handshakeTimeout;
        maxPendingHandshakes = b.maxPendingHandshakes;
        if (size < 1 || rank < 0 || rank >= size)
        {
            throw new IllegalArgumentException("rank " + rank + " is outside 0.." + (size - 1) + " (size " + size +
                ")");
        }
        if (size > MAX_SIZE)
        {
            throw new IllegalArgumentException("size " + size + " exceeds " + MAX_SIZE + " ranks");
        }
        if (incarnation < 0 || incarnation > MAX_INCARNATION)
        {
            throw new IllegalArgumentException("incarnation " + incarnation + " is outside 0.." + MAX_INCARNATION);
        }
        if (secret.length < MIN_SECRET_BYTES)
        {
            throw new IllegalArgumentException("the job secret must have at least " + MIN_SECRET_BYTES +
                " bytes, got " + secret.length);
        }
        if (coordinator.isUnresolved())
        {
            throw new IllegalArgumentException("coordinator " + coordinator + " does not resolve");
        }
        if (!allowNonLoopback && !coordinator.getAddress().isLoopbackAddress())
        {
            throw new IllegalArgumentException("coordinator " + coordinator + " is not a loopback address; " +
                "set allowNonLoopback to listen or connect beyond this host");
        }
        for (final Duration d : new Duration[] {connectTimeout, operationTimeout, failureTimeout, handshakeTimeout})
        {
            if (d.isNegative() || d.isZero())
            {
                throw new IllegalArgumentException("timeouts must be positive, got " + d);
            }
        }
        if (maxPendingHandshakes < 1)
        {
            throw new IllegalArgumentException("maxPendingHandshakes must be at least 1, got " + maxPendingHandshakes);
        }
    }

    /**
     * @return a builder with the defaults: 30 s connect and operation timeouts, 5 s failure detection, 5 s per
     * handshake, 16 pending handshakes.
     */
    public static Builder builder()
    {
        return new Builder();
    }

    /** @return the configuration named by {@code SPILLWAY_RANK/SIZE/COORDINATOR/SECRET/INCARNATION} here. */
    public static TransportConfig fromEnvironment()
    {
        return fromEnvironment(System.getenv()).build();
    }

    /**
     * @param env variables to read (the process environment or a test's map).
     * @return a builder preset from them, for further settings.
     * @throws IllegalArgumentException naming the missing or malformed variable.
     */
    public static Builder fromEnvironment(final Map<String, String> env)
    {
        final String coordinator = required(env, COORDINATOR_ENV);
        final int colon = coordinator.lastIndexOf(':');
        if (colon <= 0 || colon == coordinator.length() - 1)
        {
            throw new IllegalArgumentException(COORDINATOR_ENV + "='" + coordinator + "' is not host:port");
        }
        final InetSocketAddress address;
        try
        {
            address = new InetSocketAddress(InetAddress.getByName(coordinator.substring(0, colon)),
                integer(COORDINATOR_ENV, coordinator.substring(colon + 1)));
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalArgumentException(COORDINATOR_ENV + "='" + coordinator + "': unknown host", ex);
        }
        final String incarnation = env.get(INCARNATION_ENV);
        return builder()
            .rank(integer(RANK_ENV, required(env, RANK_ENV)))
            .size(integer(SIZE_ENV, required(env, SIZE_ENV)))
            .incarnation(incarnation == null || incarnation.isBlank() ? 0 : integer(INCARNATION_ENV, incarnation))
            .coordinator(address)
            .secret(required(env, SECRET_ENV).getBytes(StandardCharsets.UTF_8));
    }

    private static String required(final Map<String, String> env, final String name)
    {
        final String value = env.get(name);
        if (value == null || value.isBlank())
        {
            throw new IllegalArgumentException("environment variable " + name + " is not set");
        }
        return value.trim();
    }

    private static int integer(final String name, final String value)
    {
        try
        {
            return Integer.parseInt(value.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException(name + "='" + value + "' is not an integer", ex);
        }
    }

    /** @return this rank. */
    public int rank()
    {
        return rank;
    }

    /** @return ranks in the job. */
    public int size()
    {
        return size;
    }

    /**
     * @return how many times this rank was restarted, 0 to {@link #MAX_INCARNATION} (default 0). Every message
     * carries it; peers drop messages of an incarnation they know to be lost. At the start of a job every rank has
     * the same incarnation (a global restart raises it everywhere); a rank relaunched while the job runs uses a
     * higher incarnation than the one lost, and its transport then rejoins the running job (see
     * {@link UcxTransport#open}).
     */
    public int incarnation()
    {
        return incarnation;
    }

    /** @return rank 0's rendezvous address. */
    public InetSocketAddress coordinator()
    {
        return coordinator;
    }

    byte[] secret()
    {
        return secret.clone();
    }

    /** @return true when addresses beyond loopback were explicitly allowed (UCX then uses all its devices). */
    public boolean allowNonLoopback()
    {
        return allowNonLoopback;
    }

    /**
     * @return bound on the whole rendezvous, and on each other start-up step (the UCX worker, the endpoints); default
     *         {@link #DEFAULT_CONNECT_TIMEOUT}.
     */
    public Duration connectTimeout()
    {
        return connectTimeout;
    }

    /** @return bound on every send, receive, flush and atomic. */
    public Duration operationTimeout()
    {
        return operationTimeout;
    }

    /** @return a peer silent for this long (no heartbeat) is declared lost; a closed connection is lost at once. */
    public Duration failureTimeout()
    {
        return failureTimeout;
    }

    /** @return longest park of the idle progress thread (latency against CPU). */
    public Duration idleMaxPark()
    {
        return idleMaxPark;
    }

    /**
     * @return true when UCX endpoints use peer error handling: UCX reports a dead peer itself, but shared-memory
     * transports are then unavailable (TCP over loopback is used within a host).
     */
    public boolean peerErrorHandling()
    {
        return peerErrorHandling;
    }

    /**
     * @return how long the coordinator gives one connection for its handshake and address; a connection still
     * silent then is closed, so that it cannot hold a handshake slot for the whole rendezvous.
     */
    public Duration handshakeTimeout()
    {
        return handshakeTimeout;
    }

    /**
     * @return how many connections the coordinator serves at once before they authenticated; it closes further ones
     * at once, and a rank turned away so retries until the connect timeout.
     */
    public int maxPendingHandshakes()
    {
        return maxPendingHandshakes;
    }

    @Override
    public String toString()
    {
        return "TransportConfig{rank " + rank + " of " + size + ", incarnation " + incarnation + ", coordinator " +
            coordinator + ", operation " + operationTimeout.toMillis() + " ms, failure " + failureTimeout.toMillis() +
            " ms, peerErrorHandling " + peerErrorHandling + "}";
    }

    /** Fluent settings; {@link #build()} validates. */
    public static final class Builder
    {
        private int rank;
        private int size = 1;
        private int incarnation;
        private InetSocketAddress coordinator;
        private byte[] secret;
        private boolean allowNonLoopback;
        private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
        private Duration operationTimeout = Duration.ofSeconds(30);
        private Duration failureTimeout = DEFAULT_FAILURE_TIMEOUT;
        private Duration idleMaxPark = Duration.ofNanos(50_000);
        private boolean peerErrorHandling = true;
        private Duration handshakeTimeout = Duration.ofSeconds(5);
        private int maxPendingHandshakes = 16;

        private Builder()
        {
        }

        /** @param rank this rank. @return this */
        public Builder rank(final int rank)
        {
            this.rank = rank;
            return this;
        }

        /** @param size ranks in the job. @return this */
        public Builder size(final int size)
        {
            this.size = size;
            return this;
        }

        /** @param incarnation this rank's incarnation (see {@link TransportConfig#incarnation()}). @return this */
        public Builder incarnation(final int incarnation)
        {
            this.incarnation = incarnation;
            return this;
        }

        /** @param coordinator rank 0's rendezvous address. @return this */
        public Builder coordinator(final InetSocketAddress coordinator)
        {
            this.coordinator = coordinator;
            return this;
        }

        /** @param secret the job secret (copied). @return this */
        public Builder secret(final byte[] secret)
        {
            this.secret = secret.clone();
            return this;
        }

        /** @param allow true to permit a non-loopback coordinator and all UCX devices. @return this */
        public Builder allowNonLoopback(final boolean allow)
        {
            this.allowNonLoopback = allow;
            return this;
        }

        /** @param timeout bound on the rendezvous. @return this */
        public Builder connectTimeout(final Duration timeout)
        {
            this.connectTimeout = timeout;
            return this;
        }

        /** @param timeout bound on each operation. @return this */
        public Builder operationTimeout(final Duration timeout)
        {
            this.operationTimeout = timeout;
            return this;
        }

        /** @param timeout silence after which a peer is lost. @return this */
        public Builder failureTimeout(final Duration timeout)
        {
            this.failureTimeout = timeout;
            return this;
        }

        /** @param park longest idle park of the progress thread. @return this */
        public Builder idleMaxPark(final Duration park)
        {
            this.idleMaxPark = park;
            return this;
        }

        /** @param enabled UCX peer error handling (see {@link TransportConfig#peerErrorHandling()}). @return this */
        public Builder peerErrorHandling(final boolean enabled)
        {
            this.peerErrorHandling = enabled;
            return this;
        }

        /** @param timeout the coordinator's bound on one connection's handshake. @return this */
        public Builder handshakeTimeout(final Duration timeout)
        {
            this.handshakeTimeout = timeout;
            return this;
        }

        /** @param max connections the coordinator serves at once before they authenticated. @return this */
        public Builder maxPendingHandshakes(final int max)
        {
            this.maxPendingHandshakes = max;
            return this;
        }

        /** @return the validated configuration. */
        public TransportConfig build()
        {
            return new TransportConfig(this);
        }
    }
}
