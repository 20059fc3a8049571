package dev.spillway.rdma;

import java.lang.System.Logger.Level;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Keeps a rank's lost incarnations out: a message (or atomic request) from an incarnation that {@link PeerStates}
 * says is stale is dropped, counted, and logged at WARNING once per peer and incarnation. Any thread.
 */
final class Fence
{
    private static final System.Logger LOG = System.getLogger(Fence.class.getName());

    private final int rank;
    private final PeerStates states;
    private final AtomicLong fenced = new AtomicLong();
    private final Set<Long> warned = ConcurrentHashMap.newKeySet();

    /**
     * @param rank the receiving rank, for the log.
     * @param states the receiver's view of every sender's incarnation.
     */
    Fence(final int rank, final PeerStates states)
    {
        this.rank = rank;
        this.states = states;
    }

    /** @return true when a message from {@code incarnation} of {@code sender} may be delivered; else drops it. */
    boolean admits(final int sender, final int incarnation)
    {
        if (sender < 0 || sender >= states.size() || !states.stale(sender, incarnation))
        {
            return true;
        }
        drop(sender, incarnation);
        return false;
    }

    /** Counts one dropped message of {@code incarnation} of {@code sender}; warns about the first of each. */
    void drop(final int sender, final int incarnation)
    {
        fenced.incrementAndGet();
        if (warned.add(((long)sender << Integer.SIZE) | Integer.toUnsignedLong(incarnation)))
        {
            final PeerStates.State now = states.get(sender);
            LOG.log(Level.WARNING, "spillway-rdma: rank " + rank + " dropped a message from rank " + sender +
                " incarnation " + incarnation + ", which is lost (rank " + sender + " is now incarnation " +
                now.incarnation() + (now.lost() ? ", lost: " + now.lostReason() : ", alive") +
                "); further ones are counted, not logged");
        }
    }

    /** @return messages dropped so far. */
    long fenced()
    {
        return fenced.get();
    }
}
