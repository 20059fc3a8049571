package dev.spillway.rdma;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Each rank's current incarnation and whether it is lost, as one side sees it (the transport, or the control plane's
 * failure detector). Changes are compare-and-set transitions, so that each loss and each rejoin happens once: an
 * incarnation is lost once, and only a lost rank is replaced by a higher incarnation. Any thread.
 */
final class PeerStates
{
    /**
     * @param incarnation the rank's current incarnation.
     * @param lostReason why that incarnation is lost, or null while it is alive.
     */
    record State(int incarnation, String lostReason)
    {
        boolean lost()
        {
            return lostReason != null;
        }
    }

    private final AtomicReferenceArray<State> states;

    /** @param incarnation every rank's incarnation at the start, all alive. */
    PeerStates(final int size, final int incarnation)
    {
        states = new AtomicReferenceArray<>(size);
        for (int r = 0; r < size; r++)
        {
            states.set(r, new State(incarnation, null));
        }
    }

    int size()
    {
        return states.length();
    }

    State get(final int rank)
    {
        return states.get(rank);
    }

    /** Sets {@code rank}'s state outright: for the table a rank reads when it joins. */
    void set(final int rank, final State state)
    {
        states.set(rank, state);
    }

    int incarnation(final int rank)
    {
        return states.get(rank).incarnation();
    }

    /** @return why {@code rank}'s current incarnation is lost, or null. */
    String lostReason(final int rank)
    {
        return states.get(rank).lostReason();
    }

    /**
     * @return true when this call lost {@code incarnation} of {@code rank}; false when that incarnation is not the
     * current one or was lost before.
     */
    boolean lose(final int rank, final int incarnation, final String reason)
    {
        while (true)
        {
            final State current = states.get(rank);
            if (current.incarnation() != incarnation || current.lost())
            {
                return false;
            }
            if (states.compareAndSet(rank, current, new State(incarnation, reason)))
            {
                return true;
            }
        }
    }

    /**
     * @return true when this call replaced lost {@code rank} by {@code incarnation}; false when the rank is alive or
     * the incarnation is not higher than its current one.
     */
    boolean rejoin(final int rank, final int incarnation)
    {
        while (true)
        {
            final State current = states.get(rank);
            if (!current.lost() || incarnation <= current.incarnation())
            {
                return false;
            }
            if (states.compareAndSet(rank, current, new State(incarnation, null)))
            {
                return true;
            }
        }
    }

    /**
     * @return true when a message from {@code incarnation} of {@code rank} must be dropped: the incarnation is older
     * than the current one, or is the current one and lost.
     */
    boolean stale(final int rank, final int incarnation)
    {
        final State current = states.get(rank);
        return incarnation < current.incarnation() || (incarnation == current.incarnation() && current.lost());
    }
}
