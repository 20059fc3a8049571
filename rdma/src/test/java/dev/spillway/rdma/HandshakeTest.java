package dev.spillway.rdma;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The HMAC challenge-response alone, over a loopback socket pair: coordinator on a thread, rank on the test's. */
final class HandshakeTest
{
    private static final byte[] SECRET = "the-job-secret-0123456789".getBytes(StandardCharsets.UTF_8);
    private static final byte[] OTHER = "another-secret-0123456789".getBytes(StandardCharsets.UTF_8);
    /** Safety net only: every step here takes milliseconds. */
    private static final int SAFETY_NET_S = 30;

    private Socket coordinatorEnd;
    private Socket rankEnd;

    @BeforeEach
    void connect() throws IOException
    {
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            rankEnd = new Socket(InetAddress.getLoopbackAddress(), listener.getLocalPort());
            coordinatorEnd = listener.accept();
        }
        rankEnd.setSoTimeout(SAFETY_NET_S * 1000);
        coordinatorEnd.setSoTimeout(SAFETY_NET_S * 1000);
    }

    @AfterEach
    void close() throws IOException
    {
        rankEnd.close();
        coordinatorEnd.close();
    }

    @Test
    void ranksThatShareTheSecretProveItBothWaysWithRankAndIncarnation() throws Exception
    {
        final CompletableFuture<Handshake.Claim> accepted = accept(new Handshake(SECRET, 4));
        join(new Handshake(SECRET, 4), 2, 7);
        assertEquals(new Handshake.Claim(2, 7), accepted.get(SAFETY_NET_S, TimeUnit.SECONDS));
    }

    @Test
    void aRankWithTheWrongSecretIsRefusedAndTold() throws Exception
    {
        final CompletableFuture<Handshake.Claim> accepted = accept(new Handshake(SECRET, 2));
        final AuthenticationException rank = assertThrows(AuthenticationException.class,
            () -> join(new Handshake(OTHER, 2), 1));
        assertTrue(rank.getMessage().contains("refused the handshake"), rank.getMessage());
        final Throwable coordinator = failure(accepted);
        assertInstanceOf(AuthenticationException.class, coordinator);
        assertEquals("peer claiming rank 1 did not prove the job secret", coordinator.getMessage());
    }

    @Test
    void aRankOfAnotherJobSizeIsRefused() throws Exception
    {
        final CompletableFuture<Handshake.Claim> accepted = accept(new Handshake(SECRET, 4));
        assertThrows(AuthenticationException.class, () -> join(new Handshake(SECRET, 3), 1));
        assertEquals("peer claims rank 1 of 3, the job has 4 ranks", failure(accepted).getMessage());
    }

    @Test
    void anIncarnationOutOfRangeIsRefusedAndNotProvenTo() throws Exception
    {
        final CompletableFuture<Handshake.Claim> accepted = accept(new Handshake(SECRET, 2));
        final AuthenticationException rank = assertThrows(AuthenticationException.class,
            () -> join(new Handshake(SECRET, 2), 1, -1));
        assertTrue(rank.getMessage().contains("refused the handshake"), rank.getMessage());
        assertEquals("peer claims rank 1 incarnation -1, outside 0.." + TransportConfig.MAX_INCARNATION,
            failure(accepted).getMessage());
    }

    @Test
    void aCoordinatorReflectingTheRanksProofIsRefused() throws Exception
    {
        final CompletableFuture<Void> impostor = CompletableFuture.runAsync(() ->
        {
            try
            {
                final DataOutputStream out = new DataOutputStream(coordinatorEnd.getOutputStream());
                out.writeInt(Handshake.MAGIC);
                out.writeInt(Handshake.VERSION);
                out.write(new byte[Handshake.NONCE_BYTES]);
                final byte[] answer = new byte[Handshake.ANSWER_BYTES];
                new DataInputStream(coordinatorEnd.getInputStream()).readFully(answer);
                out.write(answer, Handshake.ANSWER_BYTES - Handshake.PROOF_BYTES, Handshake.PROOF_BYTES);
                out.flush();
            }
            catch (final IOException ex)
            {
                throw new AssertionError("impostor failed: " + ex, ex);
            }
        }, runner());
        final AuthenticationException e = assertThrows(AuthenticationException.class,
            () -> join(new Handshake(SECRET, 2), 1));
        assertTrue(e.getMessage().endsWith("did not prove the job secret"), e.getMessage());
        impostor.get(SAFETY_NET_S, TimeUnit.SECONDS);
    }

    @Test
    void aServerThatIsNoCoordinatorIsNamed() throws Exception
    {
        coordinatorEnd.getOutputStream()
            .write("HTTP/1.1 400 Bad Request\r\n\r\n....".getBytes(StandardCharsets.US_ASCII));
        coordinatorEnd.shutdownOutput();
        final AuthenticationException e = assertThrows(AuthenticationException.class,
            () -> join(new Handshake(SECRET, 2), 1));
        assertTrue(e.getMessage().contains("does not speak the spillway rendezvous protocol"), e.getMessage());
    }

    @Test
    void aCoordinatorClosingBeforeItsGreetingMeansTryAgain() throws Exception
    {
        coordinatorEnd.close();
        final Handshake.NotGreetedException e = assertThrows(Handshake.NotGreetedException.class,
            () -> join(new Handshake(SECRET, 2), 1));
        assertTrue(e.getMessage().contains("before greeting"), e.getMessage());
    }

    @Test
    void aPeerHangingUpBeforeItsAnswerIsToldApart() throws Exception
    {
        final CompletableFuture<Handshake.Claim> accepted = accept(new Handshake(SECRET, 2));
        readGreeting();
        rankEnd.close();
        final Throwable e = failure(accepted);
        assertInstanceOf(EOFException.class, e);
        assertEquals("closed before the handshake", e.getMessage());
    }

    @Test
    void aPeerHangingUpDuringItsAnswerIsToldApart() throws Exception
    {
        final CompletableFuture<Handshake.Claim> accepted = accept(new Handshake(SECRET, 2));
        readGreeting();
        rankEnd.getOutputStream().write(new byte[10]);
        rankEnd.close();
        assertEquals("closed after 10 of the 76 handshake bytes", failure(accepted).getMessage());
    }

    @Test
    void aPeerResettingTheConnectionIsToldApart() throws Exception
    {
        final CompletableFuture<Handshake.Claim> accepted = accept(new Handshake(SECRET, 2));
        readGreeting();
        rankEnd.setSoLinger(true, 0);
        rankEnd.close();
        final Throwable e = failure(accepted);
        assertInstanceOf(EOFException.class, e);
        assertEquals("reset before the handshake", e.getMessage());
    }

    private void readGreeting() throws IOException
    {
        new DataInputStream(rankEnd.getInputStream()).readFully(new byte[Handshake.GREETING_BYTES]);
    }

    private CompletableFuture<Handshake.Claim> accept(final Handshake handshake)
    {
        return CompletableFuture.supplyAsync(() ->
        {
            try
            {
                return handshake.accept(new DataInputStream(coordinatorEnd.getInputStream()),
                    new DataOutputStream(coordinatorEnd.getOutputStream()));
            }
            catch (final IOException ex)
            {
                throw new java.io.UncheckedIOException(ex);
            }
            finally
            {
                ControlConnection.closeQuietly(coordinatorEnd); // as the coordinator hangs up on a refused peer
            }
        }, runner());
    }

    private void join(final Handshake handshake, final int rank) throws IOException
    {
        join(handshake, rank, 0);
    }

    private void join(final Handshake handshake, final int rank, final int incarnation) throws IOException
    {
        handshake.join(new DataInputStream(rankEnd.getInputStream()), new DataOutputStream(rankEnd.getOutputStream()),
            rank, incarnation, "the test coordinator");
    }

    /** @return why the coordinator's side failed. */
    private static Throwable failure(final CompletableFuture<Handshake.Claim> accepted) throws Exception
    {
        final ExecutionException e = assertThrows(ExecutionException.class,
            () -> accepted.get(SAFETY_NET_S, TimeUnit.SECONDS));
        return e.getCause() instanceof java.io.UncheckedIOException ? e.getCause().getCause() : e.getCause();
    }

    /** A thread per task: the common pool may have a single thread on a small machine. */
    private static Executor runner()
    {
        return task ->
        {
            final Thread thread = new Thread(task, "handshake-test-coordinator");
            thread.setDaemon(true);
            thread.start();
        };
    }
}
