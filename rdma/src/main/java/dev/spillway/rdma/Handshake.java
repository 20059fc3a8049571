package dev.spillway.rdma;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;

/**
 * The mutual HMAC-SHA256 challenge-response on the job secret that opens every control connection.
 *
 * <ol>
 * <li>The coordinator greets: magic, version, its nonce.</li>
 * <li>The rank answers: its rank, the job size, its incarnation, its nonce and its proof.</li>
 * <li>The coordinator checks the proof and the claim, then proves the secret back.</li>
 * </ol>
 * Each proof covers the role, both nonces, the rank, the size and the incarnation, so neither side can replay or
 * reflect the other's. Whether the proven claim is admitted (a rank may join once, and rejoin only as a higher
 * incarnation of a lost rank) the {@link RendezvousServer} decides after the handshake.
 */
final class Handshake
{
    static final int MAGIC = 0x53505759; // "SPWY"
    /** 2: the answer and the proofs carry the incarnation; a verdict follows the address blob. */
    static final int VERSION = 2;
    static final int NONCE_BYTES = 32;
    static final int PROOF_BYTES = 32;
    /** Magic, version, nonce. */
    static final int GREETING_BYTES = 4 + 4 + NONCE_BYTES;
    /** Rank, size, incarnation, nonce, proof. */
    static final int ANSWER_BYTES = 4 + 4 + 4 + NONCE_BYTES + PROOF_BYTES;

    /**
     * What a peer proved to be.
     *
     * @param rank its rank, 1 to size - 1.
     * @param incarnation its incarnation, 0 to {@link TransportConfig#MAX_INCARNATION}.
     */
    record Claim(int rank, int incarnation)
    {
    }

    private final byte[] secret;
    private final int size;
    private final SecureRandom random = new SecureRandom();

    /**
     * @param secret the job secret (not copied; the caller's copy).
     * @param size ranks in the job.
     */
    Handshake(final byte[] secret, final int size)
    {
        this.secret = secret;
        this.size = size;
    }

    /**
     * The coordinator's side.
     *
     * @return the rank and incarnation the peer proved.
     * @throws EOFException when the peer hangs up before or during its answer (the message says which).
     * @throws AuthenticationException when the proof or the claimed rank, size or incarnation are wrong.
     */
    Claim accept(final DataInputStream in, final DataOutputStream out) throws IOException
    {
        final byte[] serverNonce = nonce();
        out.writeInt(MAGIC);
        out.writeInt(VERSION);
        out.write(serverNonce);
        out.flush();
        final ByteBuffer fields = ByteBuffer.wrap(readAnswer(in));
        final int claimed = fields.getInt();
        final int claimedSize = fields.getInt();
        final int incarnation = fields.getInt();
        final byte[] clientNonce = new byte[NONCE_BYTES];
        final byte[] proof = new byte[PROOF_BYTES];
        fields.get(clientNonce).get(proof);
        if (!MessageDigest.isEqual(mac("client", serverNonce, clientNonce, claimed, claimedSize, incarnation), proof))
        {
            throw new AuthenticationException("peer claiming rank " + claimed + " did not prove the job secret");
        }
        if (claimedSize != size || claimed < 1 || claimed >= size)
        {
            throw new AuthenticationException("peer claims rank " + claimed + " of " + claimedSize +
                ", the job has " + size + " ranks");
        }
        if (incarnation < 0 || incarnation > TransportConfig.MAX_INCARNATION)
        {
            throw new AuthenticationException("peer claims rank " + claimed + " incarnation " + incarnation +
                ", outside 0.." + TransportConfig.MAX_INCARNATION);
        }
        out.write(mac("server", serverNonce, clientNonce, claimed, claimedSize, incarnation));
        out.flush();
        return new Claim(claimed, incarnation);
    }

    /** @throws EOFException when the peer closes (or resets) the connection before all of its answer came. */
    private static byte[] readAnswer(final DataInputStream in) throws IOException
    {
        final byte[] answer = new byte[ANSWER_BYTES];
        int got = 0;
        String how = "closed";
        try
        {
            int n = 0;
            while (got < ANSWER_BYTES && (n = in.read(answer, got, ANSWER_BYTES - got)) >= 0)
            {
                got += n;
            }
        }
        catch (final SocketException ex)
        {
            how = "reset"; // the usual end of a peer that hangs up without reading the greeting
        }
        if (got < ANSWER_BYTES)
        {
            throw new EOFException(got == 0 ? how + " before the handshake" :
                how + " after " + got + " of the " + ANSWER_BYTES + " handshake bytes");
        }
        return answer;
    }

    /**
     * The rank's side.
     *
     * @param coordinator names the coordinator in messages.
     * @throws NotGreetedException when the coordinator closes the connection before its greeting (it is busy).
     * @throws AuthenticationException when the coordinator refuses this rank or cannot prove the secret.
     */
    void join(final DataInputStream in, final DataOutputStream out, final int rank, final int incarnation,
        final String coordinator) throws IOException
    {
        final byte[] greeting = new byte[GREETING_BYTES];
        final int got;
        try
        {
            got = in.readNBytes(greeting, 0, GREETING_BYTES);
        }
        catch (final SocketException ex)
        {
            throw new NotGreetedException("coordinator " + coordinator + " reset the connection before greeting (" +
                ex.getMessage() + ")");
        }
        if (got == 0)
        {
            throw new NotGreetedException("coordinator " + coordinator + " closed the connection before greeting");
        }
        final ByteBuffer fields = ByteBuffer.wrap(greeting);
        if (got < GREETING_BYTES || fields.getInt() != MAGIC || fields.getInt() != VERSION)
        {
            throw new AuthenticationException("rank " + rank + ": " + coordinator +
                " does not speak the spillway rendezvous protocol");
        }
        final byte[] serverNonce = new byte[NONCE_BYTES];
        fields.get(serverNonce);
        final byte[] clientNonce = nonce();
        out.writeInt(rank);
        out.writeInt(size);
        out.writeInt(incarnation);
        out.write(clientNonce);
        out.write(mac("client", serverNonce, clientNonce, rank, size, incarnation));
        out.flush();
        final byte[] proof = new byte[PROOF_BYTES];
        if (in.readNBytes(proof, 0, PROOF_BYTES) < PROOF_BYTES)
        {
            throw new AuthenticationException("rank " + rank + ": coordinator " + coordinator +
                " refused the handshake (wrong secret or job size?)");
        }
        if (!MessageDigest.isEqual(proof, mac("server", serverNonce, clientNonce, rank, size, incarnation)))
        {
            throw new AuthenticationException("rank " + rank + ": coordinator " + coordinator +
                " did not prove the job secret");
        }
    }

    private byte[] nonce()
    {
        final byte[] nonce = new byte[NONCE_BYTES];
        random.nextBytes(nonce);
        return nonce;
    }

    private byte[] mac(final String role, final byte[] serverNonce, final byte[] clientNonce, final int rank,
        final int size, final int incarnation)
    {
        try
        {
            final Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            mac.update(("spillway-rdma v" + VERSION + " " + role).getBytes(StandardCharsets.US_ASCII));
            mac.update(serverNonce);
            mac.update(clientNonce);
            mac.update(ByteBuffer.allocate(12).putInt(rank).putInt(size).putInt(incarnation).array());
            return mac.doFinal();
        }
        catch (final GeneralSecurityException ex)
        {
            throw new IllegalStateException("HmacSHA256 unavailable", ex);
        }
    }

    /** The coordinator closed the connection before greeting: it had too many connections awaiting handshakes. */
    static final class NotGreetedException extends IOException
    {
        private static final long serialVersionUID = 1L;

        NotGreetedException(final String message)
        {
            super(message);
        }
    }
}
