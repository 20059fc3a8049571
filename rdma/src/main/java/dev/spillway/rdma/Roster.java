package dev.spillway.rdma;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/**
 * What the rendezvous hands a joining rank: every rank's incarnation, whether it is lost (and why), and its address
 * blob (the UCX worker address). The coordinator keeps it current as ranks are lost and rejoin (under the
 * {@link FailureDetector}'s lock); a joining rank reads it once, behind the coordinator's verdict.
 *
 * <p>Wire, after the joining rank's address blob: a verdict byte, {@link #JOIN}, {@link #REJOIN} or
 * {@link #REFUSED}. A refusal adds the reason ({@code writeUTF}); the others are followed by the table (a join's
 * once every rank joined): per rank its incarnation ({@code int}), lost ({@code boolean}), for a lost rank the
 * reason ({@code writeUTF}), and the blob ({@link ControlConnection#writeBlob}).
 */
final class Roster
{
    /** Verdict: admitted to the rendezvous of a starting job; the table follows once every rank joined. */
    static final byte JOIN = 1;
    /** Verdict: admitted as a new incarnation of a lost rank of a running job; the table follows. */
    static final byte REJOIN = 2;
    /** Verdict: not admitted; the reason follows. */
    static final byte REFUSED = 3;

    private final PeerStates states;
    private final byte[][] blobs;

    /**
     * @param states every rank's incarnation and loss.
     * @param blobs every rank's address blob, by rank (held, not copied).
     */
    Roster(final PeerStates states, final byte[][] blobs)
    {
        this.states = states;
        this.blobs = blobs;
    }

    PeerStates states()
    {
        return states;
    }

    /** @return rank {@code r}'s address blob. */
    byte[] blob(final int r)
    {
        return blobs[r];
    }

    /** Records the address blob of a rank that rejoined. */
    void blob(final int r, final byte[] blob)
    {
        blobs[r] = blob;
    }

    /** Writes the table (not flushed). */
    void write(final DataOutputStream out) throws IOException
    {
        for (int r = 0; r < blobs.length; r++)
        {
            final PeerStates.State state = states.get(r);
            out.writeInt(state.incarnation());
            out.writeBoolean(state.lost());
            if (state.lost())
            {
                out.writeUTF(state.lostReason());
            }
            ControlConnection.writeBlob(out, blobs[r]);
        }
    }

    /** @return the table {@link #write} wrote, for a job of {@code size} ranks. */
    static Roster read(final DataInputStream in, final int size) throws IOException
    {
        final PeerStates states = new PeerStates(size, 0);
        final byte[][] blobs = new byte[size][];
        for (int r = 0; r < size; r++)
        {
            final int incarnation = in.readInt();
            final String lostReason = in.readBoolean() ? in.readUTF() : null;
            states.set(r, new PeerStates.State(incarnation, lostReason));
            blobs[r] = ControlConnection.readBlob(in);
        }
        return new Roster(states, blobs);
    }
}
