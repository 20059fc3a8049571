package dev.spillway.rdma;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The rendezvous refuses peers that do not know the job secret, in both directions. */
final class UcxSecurityTest
{
    @BeforeAll
    static void ucx()
    {
        Ucx.requireUcx();
    }

    @Test
    void peerWithTheWrongSecretIsRefusedAndLoggedWhileTheJobStillForms() throws Exception
    {
        final InetSocketAddress coordinator = Ucx.freeLoopbackAddress();
        final List<String> lines;
        try (LogLines logged = new LogLines())
        {
            final CompletableFuture<UcxTransport> rank0 = CompletableFuture.supplyAsync(() ->
                UcxTransport.open(Ucx.config(0, 2, coordinator, Duration.ofSeconds(10)).build()));
            final TransportConfig impostor = Ucx.config(1, 2, coordinator, Duration.ofSeconds(10))
                .secret("not-the-job-secret-at-all".getBytes(StandardCharsets.UTF_8)).build();
            final AuthenticationException refused = assertThrows(AuthenticationException.class,
                () -> UcxTransport.open(impostor));
            assertTrue(refused.getMessage().contains("refused"), refused.getMessage());
            try (UcxTransport genuine = UcxTransport.open(Ucx.config(1, 2, coordinator, Duration.ofSeconds(10))
                .build());
                UcxTransport zero = rank0.get(20, TimeUnit.SECONDS))
            {
                final ByteBuffer dst = ByteBuffer.allocateDirect(8);
                final CompletableFuture<Message> r = zero.receive(1, 1, dst);
                Collectives.await(genuine.send(0, Header.of(1), ByteBuffer.allocateDirect(8).putLong(0, 5L)));
                assertEquals(1, Collectives.await(r).header().rank());
                assertEquals(5L, dst.getLong(0));
            }
            lines = logged.lines();
        }
        final String log = String.join("\n", lines);
        assertTrue(log.contains("rejected connection from /127.0.0.1:") && log.contains("did not prove the job secret"),
            log);
        assertTrue(!log.contains(Ucx.SECRET), "the secret was logged");
    }

    @Test
    void coordinatorThatCannotProveTheSecretIsRefused() throws Exception
    {
        try (ServerSocket fake = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress()))
        {
            final CompletableFuture<Void> server = CompletableFuture.runAsync(() ->
            {
                try (Socket s = fake.accept())
                {
                    final DataOutputStream out = new DataOutputStream(s.getOutputStream());
                    out.writeInt(Handshake.MAGIC);
                    out.writeInt(Handshake.VERSION);
                    out.write(new byte[Handshake.NONCE_BYTES]);
                    out.flush();
                    new DataInputStream(s.getInputStream()).readFully(new byte[Handshake.ANSWER_BYTES]);
                    out.write(new byte[Handshake.PROOF_BYTES]);
                    out.flush();
                    s.getInputStream().read();
                }
                catch (final java.io.IOException ignored)
                {
                    // The client hangs up once it has refused us.
                }
            });
            final TransportConfig config = Ucx.config(1, 2,
                new InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), fake.getLocalPort()),
                Duration.ofSeconds(5)).connectTimeout(Duration.ofSeconds(5)).build();
            final AuthenticationException e = assertThrows(AuthenticationException.class,
                () -> UcxTransport.open(config));
            assertTrue(e.getMessage().contains("did not prove the job secret"), e.getMessage());
            server.get(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void rendezvousWithAMissingRankTimesOutNamingIt()
    {
        final InetSocketAddress coordinator = Ucx.freeLoopbackAddress();
        final TransportConfig config = Ucx.config(0, 3, coordinator, Duration.ofSeconds(5))
            .connectTimeout(Duration.ofMillis(700)).build();
        final TransportTimeoutException e = assertThrows(TransportTimeoutException.class,
            () -> UcxTransport.open(config));
        assertTrue(e.getMessage().contains("missing ranks [1, 2]"), e.getMessage());
    }
}
