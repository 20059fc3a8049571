package dev.spillway.rdma;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

final class TransportConfigTest
{
    static final String SECRET = "0123456789abcdef-secret";

    @Test
    void environmentNamesRankSizeCoordinatorAndSecret()
    {
        final TransportConfig c = TransportConfig.fromEnvironment(Map.of("SPILLWAY_RANK", "2", "SPILLWAY_SIZE", "4",
            "SPILLWAY_COORDINATOR", "127.0.0.1:4567", "SPILLWAY_SECRET", SECRET)).build();
        assertEquals(2, c.rank());
        assertEquals(4, c.size());
        assertEquals(new InetSocketAddress(InetAddress.getLoopbackAddress(), 4567), c.coordinator());
        assertTrue(!c.toString().contains(SECRET), "toString shows the secret");
    }

    @Test
    void missingOrMalformedVariablesAreNamed()
    {
        final IllegalArgumentException missing = assertThrows(IllegalArgumentException.class,
            () -> TransportConfig.fromEnvironment(Map.of("SPILLWAY_RANK", "0", "SPILLWAY_SIZE", "1",
                "SPILLWAY_COORDINATOR", "127.0.0.1:1")));
        assertTrue(missing.getMessage().contains("SPILLWAY_SECRET"), missing.getMessage());
        final IllegalArgumentException port = assertThrows(IllegalArgumentException.class,
            () -> TransportConfig.fromEnvironment(Map.of("SPILLWAY_RANK", "0", "SPILLWAY_SIZE", "1",
                "SPILLWAY_COORDINATOR", "localhost", "SPILLWAY_SECRET", SECRET)));
        assertTrue(port.getMessage().contains("SPILLWAY_COORDINATOR"), port.getMessage());
        assertThrows(IllegalArgumentException.class, () -> TransportConfig.fromEnvironment(Map.of("SPILLWAY_RANK",
            "3", "SPILLWAY_SIZE", "2", "SPILLWAY_COORDINATOR", "127.0.0.1:1", "SPILLWAY_SECRET", SECRET)).build());
    }

    @Test
    void nonLoopbackCoordinatorAndShortSecretAreRefusedUnlessAllowed() throws Exception
    {
        final InetSocketAddress remote = new InetSocketAddress(InetAddress.getByAddress(new byte[] {10, 1, 2, 3}), 9);
        final TransportConfig.Builder b = TransportConfig.builder().rank(0).size(2).coordinator(remote)
            .secret(SECRET.getBytes(StandardCharsets.UTF_8));
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, b::build);
        assertTrue(e.getMessage().contains("not a loopback address"), e.getMessage());
        assertTrue(b.allowNonLoopback(true).build().allowNonLoopback());
        assertThrows(IllegalArgumentException.class, () -> b.secret(new byte[15]).build());
    }

    @Test
    void incarnationDefaultsToZeroComesFromTheEnvironmentAndIsValidated()
    {
        final Map<String, String> env = Map.of("SPILLWAY_RANK", "1", "SPILLWAY_SIZE", "2",
            "SPILLWAY_COORDINATOR", "127.0.0.1:4567", "SPILLWAY_SECRET", SECRET);
        assertEquals(0, TransportConfig.fromEnvironment(env).build().incarnation());
        final Map<String, String> relaunched = new HashMap<>(env);
        relaunched.put("SPILLWAY_INCARNATION", "3");
        final TransportConfig c = TransportConfig.fromEnvironment(relaunched).build();
        assertEquals(3, c.incarnation());
        assertTrue(c.toString().contains("incarnation 3"), c.toString());
        final TransportConfig.Builder b = TransportConfig.fromEnvironment(env);
        final IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
            () -> b.incarnation(-1).build());
        assertTrue(negative.getMessage().contains("incarnation -1"), negative.getMessage());
        assertEquals(TransportConfig.MAX_INCARNATION, b.incarnation(TransportConfig.MAX_INCARNATION).build()
            .incarnation());
        assertThrows(IllegalArgumentException.class, () -> b.incarnation(TransportConfig.MAX_INCARNATION + 1).build());
        relaunched.put("SPILLWAY_INCARNATION", "two");
        assertThrows(IllegalArgumentException.class, () -> TransportConfig.fromEnvironment(relaunched));
        assertThrows(IllegalArgumentException.class,
            () -> b.incarnation(0).size(TransportConfig.MAX_SIZE + 1).build());
    }

    @Test
    void handshakeLimitsHaveDefaultsAndAreValidated()
    {
        final TransportConfig.Builder b = TransportConfig.builder().rank(0).size(2)
            .coordinator(new InetSocketAddress(InetAddress.getLoopbackAddress(), 1))
            .secret(SECRET.getBytes(StandardCharsets.UTF_8));
        assertEquals(java.time.Duration.ofSeconds(5), b.build().handshakeTimeout());
        assertEquals(16, b.build().maxPendingHandshakes());
        final IllegalArgumentException cap = assertThrows(IllegalArgumentException.class,
            () -> b.maxPendingHandshakes(0).build());
        assertTrue(cap.getMessage().contains("maxPendingHandshakes"), cap.getMessage());
        assertThrows(IllegalArgumentException.class,
            () -> b.maxPendingHandshakes(1).handshakeTimeout(java.time.Duration.ZERO).build());
    }
}
